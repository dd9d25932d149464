// Idempotency-Key on the POSTs that create things: replay within 24 h, 409 for reuse with another request or
// while the first is running, failures not kept, answers sealed at rest, purged after 24 h by a job.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimKey } from '../../../src/core/http/conventions/idempotency.repo.js';
import { buildTestApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { createUser } from '../../helpers/factories.js';
import type { TestUser } from '../../helpers/factories.js';
import { expectError } from '../../helpers/http.js';
import { loadOpenApi } from '../../helpers/openapi.js';

let t: TestApp;
let user: TestUser;
let other: TestUser;
let sequence = 0;

beforeAll(async () => {
  t = await buildTestApp();
  [user, other] = await Promise.all([createUser(t.app), createUser(t.app)]);
});
afterAll(async () => t.close());

const resourceBody = (slug: string) => ({
  name: `Idem ${slug}`,
  slug,
  type: 'PLUGIN',
  shortDescription: 'x',
});
const createResource = (who: TestUser, key: string | undefined, payload: object) =>
  t.app.inject({
    method: 'POST',
    url: '/resources',
    headers: key === undefined ? who.headers : { ...who.headers, 'idempotency-key': key },
    payload,
  });
const newKey = () => `key-${process.pid}-${(sequence += 1)}`;

describe('Idempotency-Key', () => {
  it('is documented on every POST that creates from a JSON body: resources, versions, servers, teams, reports, API keys', async () => {
    const document = (await loadOpenApi(t.app)) as unknown as {
      paths: Record<
        string,
        Record<string, { parameters?: Array<{ in: string; name: string }>; responses?: object }>
      >;
    };
    const honouring = Object.entries(document.paths)
      .filter(([, operations]) =>
        (operations['post']?.parameters ?? []).some(
          (parameter) => parameter.in === 'header' && parameter.name === 'idempotency-key',
        ),
      )
      .map(([path]) => path);
    for (const path of [
      '/resources',
      '/resources/{resourceId}/versions',
      '/servers',
      '/teams',
      '/reports/users/{userId}',
      '/reports/resources/{resourceId}',
      '/users/me/api-keys',
    ]) {
      expect(honouring).toContain(path);
    }
  });

  it('replays the first answer (status, body, Location) for the same key and body, creating nothing more', async () => {
    const key = newKey();
    const first = await createResource(user, key, resourceBody('idem-first'));
    expect(first.statusCode, first.body).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    // The same body with its keys in another order is the same request.
    const { shortDescription, type, slug, name } = resourceBody('idem-first');
    const again = await createResource(user, key, { shortDescription, type, slug, name });
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    expect(again.headers['location']).toBe(first.headers['location']);
    const mine = await t.app.inject({ method: 'GET', url: '/resources/me', headers: user.headers });
    const slugs = (mine.json() as { resources: Array<{ slug: string }> }).resources.map((r) => r.slug);
    expect(slugs.filter((s) => s === 'idem-first')).toHaveLength(1);
  });

  it('answers 409 IDEMPOTENCY_KEY_REUSED for the same key with a different body', async () => {
    const key = newKey();
    expect((await createResource(user, key, resourceBody('idem-reuse-a'))).statusCode).toBe(201);
    expectError(await createResource(user, key, resourceBody('idem-reuse-b')), 409, 'IDEMPOTENCY_KEY_REUSED');
  });

  it('keeps keys per caller: another caller with the same key creates its own', async () => {
    const key = newKey();
    expect((await createResource(user, key, resourceBody('idem-caller-a'))).statusCode).toBe(201);
    const theirs = await createResource(other, key, resourceBody('idem-caller-b'));
    expect(theirs.statusCode).toBe(201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
  });

  it('does not keep failures: after a 4xx the key is free for a corrected request', async () => {
    await createResource(user, undefined, resourceBody('idem-taken'));
    const key = newKey();
    expectError(await createResource(user, key, resourceBody('idem-taken')), 409, 'SLUG_TAKEN');
    const corrected = await createResource(user, key, resourceBody('idem-corrected'));
    expect(corrected.statusCode).toBe(201);
    expect(corrected.headers['idempotent-replayed']).toBeUndefined();
  });

  it('refuses an unfinished claim of another request, and takes it over once abandoned (5 min)', async () => {
    const key = newKey();
    const payload = resourceBody('idem-in-flight');
    // Another process's claim, with no answer yet.
    await claimKey(t.app.context.database.db, {
      caller: `user:${user.id}`,
      key,
      fingerprint: 'another-request',
      created_at: t.clock.now().toISOString(),
    });
    expectError(await createResource(user, key, payload), 409, 'IDEMPOTENCY_KEY_REUSED');
    t.clock.advance(5 * 60 * 1000);
    expect((await createResource(user, key, payload)).statusCode).toBe(201);
  });

  it('answers IN_USE for a claim of the same request still running', async () => {
    const key = newKey();
    const first = await createResource(user, key, resourceBody('idem-running'));
    expect(first.statusCode).toBe(201);
    // The row is complete; a fresh claim for another key with this request's fingerprint is what a concurrent
    // duplicate meets: read the stored fingerprint and claim a second key with it.
    const row = await t.app.context.database.db
      .selectFrom('idempotency_keys')
      .select('fingerprint')
      .where('key', '=', key)
      .executeTakeFirstOrThrow();
    const running = newKey();
    await claimKey(t.app.context.database.db, {
      caller: `user:${user.id}`,
      key: running,
      fingerprint: row.fingerprint,
      created_at: t.clock.now().toISOString(),
    });
    expectError(
      await createResource(user, running, resourceBody('idem-running')),
      409,
      'IDEMPOTENCY_KEY_IN_USE',
    );
  });

  it('refuses a key that is not 1–255 printable ASCII characters with 400', async () => {
    for (const key of ['x'.repeat(256), 'clé', 'tab\there']) {
      const res = await createResource(user, key, resourceBody('idem-bad-key'));
      expectError(res, 400, 'INVALID_REQUEST');
    }
    expect((await createResource(user, 'x'.repeat(255), resourceBody('idem-long-key'))).statusCode).toBe(201);
  });

  it('replays an API key creation with its plaintext key, which is stored only sealed', async () => {
    const key = newKey();
    const create = () =>
      t.app.inject({
        method: 'POST',
        url: '/users/me/api-keys',
        headers: { ...user.headers, 'idempotency-key': key },
        payload: { name: 'replayed' },
      });
    const first = await create();
    expect(first.statusCode, first.body).toBe(201);
    const plaintext = (first.json() as { key: string }).key;
    const again = await create();
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect((again.json() as { key: string }).key).toBe(plaintext);
    const stored = await t.app.context.database.db
      .selectFrom('idempotency_keys')
      .select('body_sealed')
      .where('key', '=', key)
      .executeTakeFirstOrThrow();
    expect(stored.body_sealed).not.toContain(plaintext);
    expect(stored.body_sealed).not.toContain('replayed');
  });

  it('forgets an answer after 24 h: the key creates again, and the purge job deletes the row', async () => {
    const key = newKey();
    const first = await createResource(user, key, resourceBody('idem-day-one'));
    expect(first.statusCode).toBe(201);
    t.clock.advance(24 * 60 * 60 * 1000 - 1000);
    expect(
      (await createResource(user, key, resourceBody('idem-day-one'))).headers['idempotent-replayed'],
    ).toBe('true');
    const count = async () =>
      (
        await t.app.context.database.db
          .selectFrom('idempotency_keys')
          .select('key')
          .where('key', '=', key)
          .execute()
      ).length;
    await t.app.context.scheduler.runNow('purge-idempotency-keys');
    expect(await count()).toBe(1);
    t.clock.advance(2000);
    await t.app.context.scheduler.runNow('purge-idempotency-keys');
    expect(await count()).toBe(0);
    // Past its 24 h the key is new again: a different body is a fresh request, not a reuse.
    expect((await createResource(user, key, resourceBody('idem-day-two'))).statusCode).toBe(201);
  });

  it('works for anonymous creations too, scoped by client address (register)', async () => {
    const key = newKey();
    const register = () =>
      t.app.inject({
        method: 'POST',
        url: '/auth/register',
        headers: { 'idempotency-key': key },
        payload: { username: 'idem_register', email: 'idem@example.test', password: 'long enough password' },
      });
    const first = await register();
    expect(first.statusCode, first.body).toBe(201);
    const again = await register();
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
  });
});
