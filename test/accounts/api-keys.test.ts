// API keys (DESIGN §7): shown once, stored as a digest, revocable at once, expiring, limited to 25, never logged.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import type { TestUser } from '../helpers/factories.js';
import { expectError } from '../helpers/http.js';

// Checksummed keys (docs/api-keys.md): mk_ + 40 random base62 + 6-character checksum.
const KEY_PATTERN = /^mk_[0-9A-Za-z]{46}$/;
const HOUR_MS = 60 * 60 * 1000;

interface CreatedKey {
  id: string;
  name: string;
  prefix: string;
  key: string;
  createdAt: string;
  expiresAt: string | null;
}

describe('API keys', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => t.close());

  const createKey = (owner: TestUser, payload: Record<string, unknown> = { name: 'ci' }) =>
    t.app.inject({ method: 'POST', url: '/users/me/api-keys', headers: owner.headers, payload });
  const listKeys = (owner: TestUser) =>
    t.app.inject({ method: 'GET', url: '/users/me/api-keys', headers: owner.headers });
  const deleteKey = (owner: TestUser, keyId: string) =>
    t.app.inject({ method: 'DELETE', url: `/users/me/api-keys/${keyId}`, headers: owner.headers });
  const meWith = (key: string) =>
    t.app.inject({ method: 'GET', url: '/users/me', headers: { 'x-api-key': key } });

  async function newKey(owner: TestUser, payload?: Record<string, unknown>): Promise<CreatedKey> {
    const res = await createKey(owner, payload);
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as CreatedKey;
  }

  it('creates a key: 201 with the key (mk_ + 40 base62 + checksum) shown once and its prefix', async () => {
    const owner = await createUser(t.app);
    const res = await createKey(owner, { name: 'deploy bot' });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json() as CreatedKey;
    expect(Object.keys(body).sort()).toEqual([
      'createdAt',
      'expiresAt',
      'id',
      'key',
      'lastUsedAt',
      'lastUsedIp',
      'name',
      'prefix',
      'scopes',
      'teamId',
    ]);
    expect(body.key).toMatch(KEY_PATTERN);
    expect(body.key.startsWith(body.prefix)).toBe(true);
    expect(body.prefix.length).toBeGreaterThan(3);
    expect(body.prefix.length).toBeLessThan(body.key.length / 2);
    expect(body.name).toBe('deploy bot');
    expect(body.expiresAt).toBeNull();
    expect(body.createdAt).toBe(t.clock.now().toISOString());
    expect(body.key).not.toBe(owner.apiKey);
  });

  it('authenticates with the new key', async () => {
    const owner = await createUser(t.app);
    const { key } = await newKey(owner);
    const res = await meWith(key);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().id).toBe(owner.id);
  });

  it('lists keys without the key itself or any hash, newest first', async () => {
    const owner = await createUser(t.app);
    t.clock.advance(1000);
    const created = await newKey(owner, { name: 'second' });
    const res = await listKeys(owner);
    expect(res.statusCode).toBe(200);
    const { apiKeys } = res.json() as { apiKeys: Array<Record<string, unknown>> };
    expect(apiKeys).toHaveLength(2);
    expect(apiKeys[0]).toMatchObject({ id: created.id, name: 'second', prefix: created.prefix });
    expect(apiKeys[1]).toMatchObject({ name: 'test' });
    for (const item of apiKeys) {
      expect(Object.keys(item).sort()).toEqual([
        'createdAt',
        'expiresAt',
        'id',
        'lastUsedAt',
        'lastUsedIp',
        'name',
        'prefix',
        'scopes',
        'teamId',
      ]);
    }
    expect(res.body).not.toContain(created.key);
    expect(res.body).not.toContain(owner.apiKey);
    expect(res.body.toLowerCase()).not.toMatch(/hash/);
  });

  it('shows only the caller’s own keys', async () => {
    const owner = await createUser(t.app);
    const other = await createUser(t.app);
    const created = await newKey(other, { name: 'not yours' });
    const res = await listKeys(owner);
    expect(res.json().apiKeys.map((key: { id: string }) => key.id)).not.toContain(created.id);
  });

  it('revokes a key: DELETE → 204 and the very next request with it is 401', async () => {
    const owner = await createUser(t.app);
    const created = await newKey(owner);
    expect((await meWith(created.key)).statusCode).toBe(200);
    const res = await deleteKey(owner, created.id);
    expect(res.statusCode, res.body).toBe(204);
    expect(res.body).toBe('');
    expectError(await meWith(created.key), 401, 'UNAUTHORIZED');
    expect((await listKeys(owner)).json().apiKeys.map((key: { id: string }) => key.id)).not.toContain(
      created.id,
    );
    expectError(await deleteKey(owner, created.id), 404, 'NOT_FOUND');
  });

  it('lets a key revoke itself', async () => {
    const owner = await createUser(t.app);
    const created = await newKey(owner);
    const res = await t.app.inject({
      method: 'DELETE',
      url: `/users/me/api-keys/${created.id}`,
      headers: { 'x-api-key': created.key },
    });
    expect(res.statusCode).toBe(204);
    expectError(await meWith(created.key), 401, 'UNAUTHORIZED');
  });

  it('answers 404 for another user’s key, which keeps working for its owner', async () => {
    const owner = await createUser(t.app);
    const intruder = await createUser(t.app);
    const created = await newKey(owner);
    expectError(await deleteKey(intruder, created.id), 404, 'NOT_FOUND');
    expect((await meWith(created.key)).statusCode).toBe(200);
    expect((await listKeys(owner)).json().apiKeys.map((key: { id: string }) => key.id)).toContain(created.id);
  });

  it('answers 404 for an unknown key id', async () => {
    const owner = await createUser(t.app);
    expectError(await deleteKey(owner, 'no-such-key'), 404, 'NOT_FOUND');
  });

  it.each([
    [
      'a past expiresAt',
      () => ({ name: 'old', expiresAt: new Date(t.clock.now().getTime() - 1000).toISOString() }),
    ],
    ['an expiresAt of now', () => ({ name: 'now', expiresAt: t.clock.now().toISOString() })],
    ['a malformed expiresAt', () => ({ name: 'bad', expiresAt: 'next tuesday' })],
    ['a missing name', () => ({})],
    ['an empty name', () => ({ name: '   ' })],
    ['a name over 100 characters', () => ({ name: 'n'.repeat(101) })],
  ])('answers 400 for %s', async (_label, payload) => {
    const owner = await createUser(t.app);
    expectError(await createKey(owner, payload()), 400, 'INVALID_REQUEST');
  });

  it('honours expiresAt: the key works until the clock passes it, then 401', async () => {
    const owner = await createUser(t.app);
    const expiresAt = new Date(t.clock.now().getTime() + HOUR_MS).toISOString();
    const created = await newKey(owner, { name: 'short-lived', expiresAt });
    expect(created.expiresAt).toBe(expiresAt);
    expect((await meWith(created.key)).statusCode).toBe(200);
    t.clock.advance(HOUR_MS - 60_000);
    expect((await meWith(created.key)).statusCode).toBe(200);
    t.clock.advance(60_000);
    expectError(await meWith(created.key), 401, 'UNAUTHORIZED');
    // The owner's other key is unaffected.
    expect((await meWith(owner.apiKey)).statusCode).toBe(200);
  });

  it('records lastUsedAt once the key is used', async () => {
    const owner = await createUser(t.app);
    const created = await newKey(owner);
    const lastUsed = async () =>
      ((await listKeys(owner)).json().apiKeys as Array<{ id: string; lastUsedAt: string | null }>).find(
        (key) => key.id === created.id,
      )!.lastUsedAt;
    expect(await lastUsed()).toBeNull();
    t.clock.advance(5000);
    const usedAt = t.clock.now().toISOString();
    expect((await meWith(created.key)).statusCode).toBe(200);
    expect(await lastUsed()).toBe(usedAt);
  });

  it('allows at most 25 keys: the 26th is 409 LIMIT_REACHED, and a deletion frees a slot', async () => {
    const owner = await createUser(t.app); // already holds the factory's key
    const created: CreatedKey[] = [];
    for (let i = 0; i < 24; i++) created.push(await newKey(owner, { name: `key ${i}` }));
    expect((await listKeys(owner)).json().apiKeys).toHaveLength(25);
    expectError(await createKey(owner, { name: 'one too many' }), 409, 'LIMIT_REACHED');
    expect((await listKeys(owner)).json().apiKeys).toHaveLength(25);

    expect((await deleteKey(owner, created[0]!.id)).statusCode).toBe(204);
    expect((await createKey(owner, { name: 'replacement' })).statusCode).toBe(201);
  });

  it('never exceeds 25 keys when creations race at the limit', async () => {
    const owner = await createUser(t.app);
    for (let i = 0; i < 23; i++) await newKey(owner, { name: `key ${i}` });
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => createKey(owner, { name: `racer ${i}` })),
    );
    expect(results.filter((res) => res.statusCode === 201)).toHaveLength(1);
    for (const res of results.filter((r) => r.statusCode !== 201)) expectError(res, 409, 'LIMIT_REACHED');
    expect((await listKeys(owner)).json().apiKeys).toHaveLength(25);
  });

  it('answers 401 to anonymous callers', async () => {
    expectError(await t.app.inject({ method: 'GET', url: '/users/me/api-keys' }), 401, 'UNAUTHORIZED');
    expectError(
      await t.app.inject({ method: 'POST', url: '/users/me/api-keys', payload: { name: 'x' } }),
      401,
      'UNAUTHORIZED',
    );
    expectError(
      await t.app.inject({ method: 'DELETE', url: '/users/me/api-keys/some-id' }),
      401,
      'UNAUTHORIZED',
    );
  });
});

// Its own app (LOG_LEVEL=info), built after the main app of this file is closed.
describe('API key logging', () => {
  let logged: TestApp;
  beforeAll(async () => {
    logged = await buildTestApp({ LOG_LEVEL: 'info' });
  });
  afterAll(async () => logged.close());

  /** Runs fn while recording everything written to stdout and stderr (pino writes to fd 1 directly). */
  async function captureOutput(fn: () => Promise<void>): Promise<string> {
    const chunks: string[] = [];
    const record = (chunk: unknown) => {
      chunks.push(
        typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk),
      );
    };
    const stdoutWrite = process.stdout.write;
    const stderrWrite = process.stderr.write;
    const fsWrite = fs.write;
    const fsWriteSync = fs.writeSync;
    const wrap =
      <F extends (...args: never[]) => unknown>(original: F) =>
      (...args: Parameters<F>) => {
        const [fd, data] = args as unknown[];
        if (fd === 1 || fd === 2) record(data);
        return original(...args);
      };
    process.stdout.write = ((chunk: unknown) => (record(chunk), true)) as typeof process.stdout.write;
    process.stderr.write = ((chunk: unknown) => (record(chunk), true)) as typeof process.stderr.write;
    fs.write = wrap(fsWrite) as unknown as typeof fs.write;
    fs.writeSync = wrap(fsWriteSync) as typeof fs.writeSync;
    try {
      await fn();
      // Let an asynchronous log stream flush its last line.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.stdout.write = stdoutWrite;
      process.stderr.write = stderrWrite;
      fs.write = fsWrite;
      fs.writeSync = fsWriteSync;
    }
    return chunks.join('');
  }

  it('never writes a key or token to the logs', async () => {
    const owner = await createUser(logged.app);
    const account = `logged_${process.pid}`;
    const secrets: string[] = [owner.apiKey];
    const output = await captureOutput(async () => {
      const created = await logged.app.inject({
        method: 'POST',
        url: '/users/me/api-keys',
        headers: owner.headers,
        payload: { name: 'logged' },
      });
      const key = created.json().key as string;
      secrets.push(key);
      await logged.app.inject({ method: 'GET', url: '/users/me', headers: { 'x-api-key': key } });
      await logged.app.inject({
        method: 'GET',
        url: '/users/me',
        headers: { authorization: `Bearer ${key}` },
      });
      await logged.app.inject({
        method: 'POST',
        url: '/auth/register',
        payload: { username: account, email: `${account}@example.test`, password: 'logged password 1' },
      });
      const login = await logged.app.inject({
        method: 'POST',
        url: '/auth/login',
        payload: { login: account, password: 'logged password 1' },
      });
      const token = login.json().token as string;
      secrets.push(token, 'logged password 1');
      await logged.app.inject({
        method: 'GET',
        url: '/users/me',
        headers: { authorization: `Bearer ${token}` },
      });
      const wrongKey = `mk_${'Z'.repeat(40)}`;
      secrets.push(wrongKey);
      await logged.app.inject({ method: 'GET', url: '/users/me', headers: { 'x-api-key': wrongKey } });
    });
    // The capture really saw the request log, so an absent secret means it was not logged.
    expect(output).toContain('/users/me');
    expect(output).toContain('/auth/login');
    for (const secret of secrets) expect(output).not.toContain(secret);
    expect(output).not.toContain(owner.apiKey.slice(3));
  });
});
