// cli backup / cli restore (issue 11, "the operator's path"): an online backup of a live single-machine instance
// (SQLite + local storage) while it is being written to, restored into a fresh DATA_DIR with every row and file.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { App } from '../../src/app.js';
import { pngImage } from '../fixtures/images.js';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import type { TestUser } from '../helpers/factories.js';
import { multipart } from '../helpers/http.js';
import { createResource } from '../resources/helpers.js';
import { createVersion, uploadFile } from '../versions/helpers.js';
import { keysInRows } from '../helpers/storage-keys.js';

// Each CLI run is a real process (node + tsx); on a loaded machine one takes several seconds.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 });

const ROOT = resolve(import.meta.dirname, '../..');
const CLI = join(ROOT, 'src', 'cli.ts');
const SECRET = 'backup-test-secret-backup-test-secret-0123';

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

function runCli(dataDir: string, args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', CLI, ...args],
      {
        cwd: ROOT,
        timeout: 150_000,
        env: {
          PATH: process.env['PATH'] ?? '',
          HOME: process.env['HOME'] ?? dataDir,
          DATA_DIR: dataDir,
          DATABASE_URL: `sqlite:${join(dataDir, 'marketplace.db')}`,
          SECRET,
          ...env,
        },
      },
      (error, stdout, stderr) =>
        done({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr }),
    );
  });
}

/** A single-machine instance on `dataDir`, whatever database the rest of the suite uses. */
const instanceOn = (dataDir: string) =>
  buildTestApp({
    DATA_DIR: dataDir,
    DATABASE_URL: `sqlite:${join(dataDir, 'marketplace.db')}`,
    STORAGE: 'local',
    SECRET,
  });

async function rowCounts(app: App): Promise<Record<string, number>> {
  const { db } = app.context.database;
  const counts: Record<string, number> = {};
  for (const table of await db.introspection.getTables({ withInternalKyselyTables: true })) {
    const row = await db
      .selectFrom(table.name as 'users')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow();
    counts[table.name] = Number(row.count);
  }
  return counts;
}

const objectPath = (dataDir: string, key: string) => join(dataDir, 'storage', 'objects', ...key.split('/'));

/** One unit of realistic writing: a resource with an icon, a version and its file. */
async function writeSome(app: App, owner: TestUser, round: number): Promise<void> {
  const resource = await createResource(app, owner);
  const form = await multipart('icon', { data: await pngImage(32 + (round % 16), 32), name: 'icon.png' });
  const icon = await app.inject({
    method: 'POST',
    url: `/resources/${resource.id}/icon`,
    headers: { ...owner.headers, ...form.headers },
    payload: form.payload,
  });
  expect(icon.statusCode, icon.body).toBe(200);
  const version = await createVersion(app, owner, resource.id);
  await uploadFile(app, owner, resource.id, version.id, {
    data: Buffer.from(`round ${round}: ${'x'.repeat(round * 100)}\n`),
    name: `notes-${round}.txt`,
  });
}

describe('cli backup and restore', () => {
  const directories: string[] = [];
  const freshDir = () => {
    const directory = mkdtempSync(join(tmpdir(), 'marketplace-backup-'));
    directories.push(directory);
    return directory;
  };
  let sourceDir: string;
  let source: TestApp;
  let owner: TestUser;

  beforeAll(async () => {
    sourceDir = freshDir();
    source = await instanceOn(sourceDir);
    owner = await createUser(source.app);
    for (let round = 0; round < 3; round += 1) await writeSome(source.app, owner, round);
  });
  afterAll(async () => {
    await source?.close();
    for (const directory of directories) rmSync(directory, { recursive: true, force: true });
  });

  it('backs up a live instance while it is written to; the restore holds every row and file of the snapshot', async () => {
    const archive = join(freshDir(), 'live.tar');
    const before = await rowCounts(source.app);
    let writing = true;
    let rounds = 0;
    const writer = (async () => {
      while (writing) {
        rounds += 1;
        await writeSome(source.app, owner, 100 + rounds);
      }
    })();
    const backup = await runCli(sourceDir, ['backup', '--to', archive]);
    const roundsDuringBackup = rounds;
    writing = false;
    await writer;
    expect(backup.code, backup.stderr).toBe(0);
    expect(roundsDuringBackup).toBeGreaterThan(0);
    expect(backup.stderr).toContain('Snapshotting the database');
    const manifest = JSON.parse(backup.stdout) as { tables: Record<string, number> };

    const targetDir = freshDir();
    const restore = await runCli(targetDir, ['restore', '--from', archive]);
    expect(restore.code, restore.stderr).toBe(0);
    const restored = await instanceOn(targetDir);
    try {
      const counts = await rowCounts(restored.app);
      const after = await rowCounts(source.app);
      expect(counts).toEqual(manifest.tables);
      for (const [table, count] of Object.entries(counts)) {
        expect(count, table).toBeGreaterThanOrEqual(before[table] ?? 0);
        expect(count, table).toBeLessThanOrEqual(after[table] ?? 0);
      }
      // Every object a restored row names is there, byte for byte as in the source.
      const keys = await keysInRows(restored.app);
      expect(keys.length).toBeGreaterThanOrEqual(6);
      for (const key of keys) {
        expect(existsSync(objectPath(targetDir, key)), key).toBe(true);
        expect(
          readFileSync(objectPath(targetDir, key)).equals(readFileSync(objectPath(sourceDir, key))),
          key,
        ).toBe(true);
      }
      const list = await restored.app.inject({ method: 'GET', url: `/users/${owner.id}` });
      expect(list.statusCode).toBe(200);
    } finally {
      await restored.close();
    }
  });

  it('restores a quiet instance exactly: the same row count in every table and the same bytes in every object', async () => {
    const archive = join(freshDir(), 'quiet.tar');
    expect((await runCli(sourceDir, ['backup', '--to', archive])).code).toBe(0);
    const targetDir = freshDir();
    expect((await runCli(targetDir, ['restore', '--from', archive])).code).toBe(0);
    const restored = await instanceOn(targetDir);
    try {
      expect(await rowCounts(restored.app)).toEqual(await rowCounts(source.app));
      for (const prefix of ['images/', 'files/', 'defaults/']) {
        const listed = async (app: App) => {
          const objects = new Map<string, string>();
          for await (const page of app.context.storage.list({ prefix, pageSize: 100 })) {
            for (const object of page) objects.set(object.key, object.key);
          }
          return [...objects.keys()].sort();
        };
        const sourceKeys = await listed(source.app);
        expect(await listed(restored.app)).toEqual(sourceKeys);
        for (const key of sourceKeys) {
          expect(
            readFileSync(objectPath(targetDir, key)).equals(readFileSync(objectPath(sourceDir, key))),
            key,
          ).toBe(true);
        }
      }
    } finally {
      await restored.close();
    }
  });

  it('refuses to restore over existing data without --force, and to back up PostgreSQL or over a file', async () => {
    const archive = join(freshDir(), 'refusals.tar');
    expect((await runCli(sourceDir, ['backup', '--to', archive])).code).toBe(0);
    const occupied = await runCli(sourceDir, ['restore', '--from', archive]);
    expect(occupied.code).toBe(1);
    expect(occupied.stderr).toMatch(/is not empty.*--force/);

    const overwrite = await runCli(sourceDir, ['backup', '--to', archive]);
    expect(overwrite.code).toBe(2);

    const postgres = await runCli(freshDir(), ['backup', '--to', join(freshDir(), 'pg.tar')], {
      DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
    });
    expect(postgres.code).toBe(1);
    expect(postgres.stderr).toContain('pg_dump');

    const notABackup = join(freshDir(), 'not-a-backup.tar');
    writeFileSync(notABackup, 'plain text');
    const garbage = await runCli(freshDir(), ['restore', '--from', notABackup]);
    expect(garbage.code).toBe(1);
    expect(garbage.stderr.trim().split('\n')).toHaveLength(2);
  });
});
