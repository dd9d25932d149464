// The operator CLI (DESIGN §7): `create-user` prints one JSON line whose apiKey works against the API.
// The CLI always runs on its own SQLite file, whatever database the rest of the suite uses.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { expectError } from '../helpers/http.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CLI = join(ROOT, 'src', 'cli.ts');

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

describe('cli create-user', () => {
  let dataDir: string;
  let databaseFile: string;

  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'marketplace-cli-'));
    databaseFile = join(dataDir, 'db.sqlite');
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  function runCli(args: string[]): Promise<CliResult> {
    const env = {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? dataDir,
      DATA_DIR: dataDir,
      DATABASE_URL: `sqlite:${databaseFile}`,
      LOG_LEVEL: 'silent',
    };
    return new Promise((done) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', CLI, ...args],
        { cwd: ROOT, env, timeout: 60_000 },
        (error, stdout, stderr) => {
          const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
          done({ code, stdout, stderr });
        },
      );
    });
  }

  const createUserArgs = (username: string, extra: string[] = []) => [
    'create-user',
    '--username',
    username,
    '--email',
    `${username}@example.test`,
    '--password',
    'operator password',
    ...extra,
  ];

  describe('creating the first administrator', () => {
    let result: CliResult;
    let t: TestApp;

    beforeAll(async () => {
      result = await runCli(createUserArgs('root_admin', ['--role', 'SUPER_ADMIN']));
      t = await buildTestApp({ DATABASE_URL: `sqlite:${databaseFile}` });
    }, 90_000);
    afterAll(async () => t?.close());

    it('exits 0 and prints exactly one JSON line {id, username, role, apiKey}', () => {
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout.endsWith('\n')).toBe(true);
      const lines = result.stdout.split('\n').filter((line) => line !== '');
      expect(lines).toHaveLength(1);
      const printed = JSON.parse(lines[0]!) as Record<string, unknown>;
      expect(Object.keys(printed).sort()).toEqual(['apiKey', 'id', 'role', 'username']);
      expect(printed).toMatchObject({ username: 'root_admin', role: 'SUPER_ADMIN' });
      expect(printed['apiKey']).toMatch(/^mk_[0-9A-Za-z]{40}$/);
      expect(typeof printed['id']).toBe('string');
    });

    it('prints a key that authenticates against the API as that SUPER_ADMIN', async () => {
      const printed = JSON.parse(result.stdout) as { id: string; apiKey: string };
      const res = await t.app.inject({
        method: 'GET',
        url: '/users/me',
        headers: { 'x-api-key': printed.apiKey },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ id: printed.id, username: 'root_admin', role: 'SUPER_ADMIN' });
      const admin = await t.app.inject({
        method: 'GET',
        url: '/admin/users',
        headers: { 'x-api-key': printed.apiKey },
      });
      expect(admin.statusCode).toBe(200);
    });

    it('creates an account that can log in with the given password', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/auth/login',
        payload: { login: 'root_admin@example.test', password: 'operator password' },
      });
      expect(res.statusCode, res.body).toBe(200);
    });

    it('refuses a second account with the same username (non-zero exit, nothing on stdout)', async () => {
      const again = await runCli(createUserArgs('Root_Admin'));
      expect(again.code).not.toBe(0);
      expect(again.stdout).toBe('');
      expect(again.stderr).not.toBe('');
    });
  });

  it('defaults the role to USER', async () => {
    const result = await runCli(createUserArgs('plain_user'));
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ username: 'plain_user', role: 'USER' });
  });

  it.each([
    ['a missing --password', ['create-user', '--username', 'nopass', '--email', 'nopass@example.test']],
    ['a missing --email', ['create-user', '--username', 'noemail', '--password', 'operator password']],
    ['an invalid username', createUserArgs('bad name')],
    [
      'a short password',
      ['create-user', '--username', 'shortpw', '--email', 'shortpw@example.test', '--password', 'short'],
    ],
    ['an unknown role', createUserArgs('badrole', ['--role', 'OWNER'])],
    ['an unknown option', createUserArgs('unknownopt', ['--admin'])],
    ['an unknown command', ['make-coffee']],
    ['no command at all', []],
  ])('exits non-zero for %s, printing nothing on stdout', async (_label, args) => {
    const result = await runCli(args);
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim()).not.toBe('');
  });

  it('created no account for the refused invocations', async () => {
    const check = await buildTestApp({ DATABASE_URL: `sqlite:${databaseFile}` });
    try {
      const cli = JSON.parse((await runCli(createUserArgs('lister', ['--role', 'ADMIN']))).stdout) as {
        apiKey: string;
      };
      for (const username of ['nopass', 'noemail', 'shortpw', 'badrole', 'unknownopt']) {
        const res = await check.app.inject({ method: 'GET', url: `/users/username/${username}` });
        expectError(res, 404, 'NOT_FOUND');
      }
      const list = await check.app.inject({
        method: 'GET',
        url: '/admin/users?limit=100',
        headers: { 'x-api-key': cli.apiKey },
      });
      expect(list.statusCode).toBe(200);
    } finally {
      await check.close();
    }
  });
});
