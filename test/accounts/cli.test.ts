// The operator CLI (DESIGN §7, issue 11): `create-user` prints one JSON line whose apiKey works against the API;
// every command has --help; set-role, ban, unban, revoke-keys, migrate --status, jobs and seed-demo act on the
// same database the API reads. Exit codes: 0 done, 1 failed, 2 usage error.
// The CLI always runs on its own SQLite file, whatever database the rest of the suite uses.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
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

// Each case starts a real process (node + tsx); on a loaded machine one takes several seconds.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

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
        { cwd: ROOT, env, timeout: 120_000 },
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
      expect(printed['apiKey']).toMatch(/^mk_[0-9A-Za-z]{46}$/);
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
    [
      'an invalid e-mail address',
      [
        'create-user',
        '--username',
        'bademail',
        '--email',
        'not-an-address',
        '--password',
        'operator password',
      ],
    ],
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
      for (const username of ['nopass', 'noemail', 'shortpw', 'badrole', 'unknownopt', 'bademail']) {
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

  describe('exit codes and help', () => {
    const COMMANDS = [
      'create-user',
      'set-role',
      'ban',
      'unban',
      'revoke-keys',
      'migrate',
      'jobs',
      'backup',
      'restore',
      'seed-demo',
    ];

    it('`--help` lists every command and exits 0', async () => {
      const result = await runCli(['--help']);
      expect(result.code).toBe(0);
      for (const command of COMMANDS) expect(result.stdout).toContain(`  ${command} `);
    });

    it('every command answers --help with its usage and exit 0, touching nothing', async () => {
      const results = await Promise.all(COMMANDS.map((command) => runCli([command, '--help'])));
      for (const [index, result] of results.entries()) {
        expect(result.code, COMMANDS[index]).toBe(0);
        expect(result.stdout).toMatch(new RegExp(`^Usage: cli ${COMMANDS[index]}`));
      }
    });

    it.each([
      ['an unknown command', ['make-coffee']],
      ['no command at all', []],
      ['an unknown option', ['ban', '--user', 'x', '--forever']],
      ['a missing required option', ['set-role', '--role', 'ADMIN']],
      ['an invalid e-mail address', createUserArgs('bad_mail').map((a) => (a.endsWith('.test') ? 'x@' : a))],
      ['an unknown job', ['jobs', 'run', 'make-coffee']],
    ])('exits 2 for %s, with the usage on stderr', async (_label, args) => {
      const result = await runCli(args);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain('Usage: cli');
    });

    it('exits 1 with one line and no stack trace when the command fails', async () => {
      const result = await runCli(['ban', '--user', 'nobody_here']);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr.trim().split('\n')).toEqual(['No user with username, email or id "nobody_here"']);
    });
  });

  describe('managing an account', () => {
    let t: TestApp;
    let target: { id: string; apiKey: string };

    beforeAll(async () => {
      target = JSON.parse((await runCli(createUserArgs('managed_user'))).stdout) as typeof target;
      t = await buildTestApp({ DATABASE_URL: `sqlite:${databaseFile}` });
    }, 90_000);
    afterAll(async () => t?.close());

    const me = (apiKey: string) =>
      t.app.inject({ method: 'GET', url: '/users/me', headers: { 'x-api-key': apiKey } });

    it('set-role changes the role through the admin rules', async () => {
      const result = await runCli(['set-role', '--user', 'managed_user', '--role', 'MODERATOR']);
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ id: target.id, role: 'MODERATOR', status: 'ACTIVE' });
      expect((await me(target.apiKey)).json()).toMatchObject({ role: 'MODERATOR' });
    });

    it('ban refuses the account at once; unban makes it active again (its old keys stay revoked)', async () => {
      const banned = await runCli(['ban', '--user', 'managed_user@example.test']);
      expect(banned.code, banned.stderr).toBe(0);
      expect(JSON.parse(banned.stdout)).toMatchObject({ status: 'BANNED' });
      expectError(await me(target.apiKey), 403, 'ACCOUNT_BANNED');
      const unbanned = await runCli(['unban', '--user', target.id]);
      expect(unbanned.code, unbanned.stderr).toBe(0);
      expect(JSON.parse(unbanned.stdout)).toMatchObject({ status: 'ACTIVE' });
      expectError(await me(target.apiKey), 401);
      const login = await t.app.inject({
        method: 'POST',
        url: '/auth/login',
        payload: { login: 'managed_user', password: 'operator password' },
      });
      expect(login.statusCode, login.body).toBe(200);
    });

    it('revoke-keys makes every key and token of the account fail on the next request', async () => {
      const fresh = JSON.parse((await runCli(createUserArgs('leaky_user'))).stdout) as { apiKey: string };
      expect((await me(fresh.apiKey)).statusCode).toBe(200);
      const result = await runCli(['revoke-keys', '--user', 'leaky_user']);
      expect(result.code, result.stderr).toBe(0);
      expectError(await me(fresh.apiKey), 401);
    });

    it('migrate --status lists every migration as applied and none pending', async () => {
      const result = await runCli(['migrate', '--status']);
      expect(result.code, result.stderr).toBe(0);
      const status = JSON.parse(result.stdout) as {
        migrations: { name: string; appliedAt: string }[];
        pending: [];
      };
      expect(status.pending).toEqual([]);
      expect(status.migrations.length).toBeGreaterThanOrEqual(8);
      expect(status.migrations.every((migration) => !Number.isNaN(Date.parse(migration.appliedAt)))).toBe(
        true,
      );
    });

    it('jobs run NAME runs a job and records it; jobs list shows the record', async () => {
      const result = await runCli(['jobs', 'run', 'purge-expired-sessions']);
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ job: 'purge-expired-sessions', ok: true });
      const list = await runCli(['jobs', 'list']);
      const { jobs } = JSON.parse(list.stdout) as {
        jobs: { name: string; lastStatus: string; runCount: number }[];
      };
      expect(jobs.map((job) => job.name)).toContain('sweep-storage');
      expect(jobs.find((job) => job.name === 'purge-expired-sessions')).toMatchObject({
        lastStatus: 'OK',
        runCount: 1,
      });
    });
  });

  describe('seed-demo', () => {
    it('fills the catalogue through the API once, and changes nothing when run again', async () => {
      const seeded = await runCli(['seed-demo']);
      expect(seeded.code, seeded.stderr).toBe(0);
      expect(seeded.stderr).toContain('Resources: 20/20');
      const result = JSON.parse(seeded.stdout) as { seeded: boolean; apiKeys: Record<string, string> };
      expect(result.seeded).toBe(true);
      const t = await buildTestApp({ DATABASE_URL: `sqlite:${databaseFile}` });
      try {
        const resources = await t.app.inject({ method: 'GET', url: '/resources?limit=100' });
        const list = resources.json() as { resources: { type: string; status: string }[]; total: number };
        expect(list.total).toBe(20);
        expect(new Set(list.resources.map((resource) => resource.type)).size).toBe(8);
        const servers = await t.app.inject({ method: 'GET', url: '/servers?limit=100' });
        expect((servers.json() as { total: number }).total).toBe(4);
        const admin = await t.app.inject({
          method: 'GET',
          url: '/users/me',
          headers: { 'x-api-key': result.apiKeys['demo_admin']! },
        });
        expect(admin.json()).toMatchObject({ username: 'demo_admin', role: 'ADMIN' });
      } finally {
        await t.close();
      }
      const again = await runCli(['seed-demo']);
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout)).toEqual({ seeded: false });
    }, 120_000);
  });
});
