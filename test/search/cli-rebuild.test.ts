// `cli search rebuild` (issue 17): rewrites a wiped resource index from the resources, reports progress on stderr
// and one JSON line on stdout. The CLI runs on its own SQLite file, whatever database the rest of the suite uses.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import { createResource, moderate } from '../resources/helpers.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CLI = join(ROOT, 'src', 'cli.ts');

// A real process (node + tsx); on a loaded machine it takes several seconds.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

describe('cli search rebuild', () => {
  let dataDir: string;
  let t: TestApp;
  let result: { code: number; stdout: string; stderr: string };
  let approvedId: string;
  let pendingId: string;

  const indexedIds = async () =>
    (
      await sql<{ resource_id: string }>`
        select s.resource_id from resource_search_fts f join resource_search s on s.doc_id = f.rowid
        where resource_search_fts match ${'"lanternfish"'}`.execute(t.app.context.database.db)
    ).rows.map((row) => row.resource_id);

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'marketplace-search-cli-'));
    const databaseUrl = `sqlite:${join(dataDir, 'db.sqlite')}`;
    t = await buildTestApp({ DATABASE_URL: databaseUrl });
    const [owner, moderator] = await Promise.all([
      createUser(t.app),
      createUser(t.app, { role: 'MODERATOR' }),
    ]);
    approvedId = (await createResource(t.app, owner, { name: 'Lanternfish Lights' })).id;
    await moderate(t.app, moderator, approvedId, 'APPROVE');
    pendingId = (await createResource(t.app, owner, { name: 'Lanternfish Pending' })).id;
    await t.app.context.database.db.deleteFrom('resource_search').execute();
    expect(await indexedIds()).toEqual([]);

    result = await new Promise((done) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', CLI, 'search', 'rebuild', '--index', 'resources,users'],
        {
          cwd: ROOT,
          env: {
            PATH: process.env['PATH'] ?? '',
            HOME: process.env['HOME'] ?? dataDir,
            DATA_DIR: dataDir,
            DATABASE_URL: databaseUrl,
            LOG_LEVEL: 'silent',
          },
          timeout: 120_000,
        },
        (error, stdout, stderr) => {
          done({
            code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1,
            stdout,
            stderr,
          });
        },
      );
    });
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('exits 0, prints one JSON line of documents per index rebuilt and the seconds taken', () => {
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const body = JSON.parse(lines[0]!) as Record<string, number>;
    expect(Object.keys(body).sort()).toEqual(['resources', 'seconds', 'users']);
    expect(body['resources']).toBe(1);
    expect(body['users']).toBe(2);
    expect(body['seconds']).toBeGreaterThanOrEqual(0);
  });

  it('reports progress on stderr: index, done/total and rate', () => {
    expect(result.stderr).toMatch(/^resources 1\/1 \d+\/s$/m);
  });

  it('puts the approved resource back in the full-text index, and only it', async () => {
    expect(await indexedIds()).toEqual([approvedId]);
    expect(pendingId).not.toBe(approvedId);
  });
});
