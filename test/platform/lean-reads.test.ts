// The lean read path (issue 18): the hot authenticated reads take one statement for the credential and one for
// the answer (badges joined into profiles, the tag total beside the tag page), and the PostgreSQL pool size is a
// setting. Statements are counted through /metrics (db_query_duration_seconds_count), so a read that goes back
// to two round trips fails here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultPoolSize } from '../../src/config-database.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/core/db/database.js';
import { awardOk, createBadge } from '../badges/helpers.js';
import type { BadgeBody } from '../badges/helpers.js';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import type { TestUser } from '../helpers/factories.js';
import { statementsSoFar } from '../helpers/statements.js';

let t: TestApp;
let admin: TestUser;
let moderator: TestUser;

beforeAll(async () => {
  t = await buildTestApp({ METRICS: 'on' });
  [admin, moderator] = await Promise.all([
    createUser(t.app, { role: 'ADMIN' }),
    createUser(t.app, { role: 'MODERATOR' }),
  ]);
});
afterAll(async () => t.close());

const statements = () => statementsSoFar(t);

/** The request's answer and how many statements it ran, less those of a scrape (the webhook backlog gauges). */
async function counted(url: string, headers: Record<string, string> = {}) {
  // Once before: the first use of a credential records its last use (a write, at most once a minute).
  await t.app.inject({ method: 'GET', url, headers });
  const first = await statements();
  const before = await statements();
  const response = await t.app.inject({ method: 'GET', url, headers });
  const after = await statements();
  return { response, statements: after - before - (before - first) };
}

/** A user holding two badges, the newer one awarded a minute after the older. */
async function userWithBadges(): Promise<{ user: TestUser; newer: BadgeBody; older: BadgeBody }> {
  const user = await createUser(t.app);
  const older = await createBadge(t.app, admin, { color: '#123456' });
  const newer = await createBadge(t.app, admin);
  await awardOk(t.app, moderator, older.id, user.id);
  t.clock.advance(60_000);
  await awardOk(t.app, moderator, newer.id, user.id);
  return { user, newer, older };
}

describe('statements per hot read', () => {
  it('GET /users/me: the key lookup and the profile with its badges, newest award first', async () => {
    const { user, newer, older } = await userWithBadges();
    const { response, statements: count } = await counted('/users/me', user.headers);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().badges.map((badge: { id: string }) => badge.id)).toEqual([newer.id, older.id]);
    expect(response.json().badges[1]).toMatchObject({ color: '#123456', name: older.name });
    expect(response.json().badges[0].awardedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(count).toBe(2);
  });

  it('a public profile read with credentials: one statement besides the key, badges and isFollowing', async () => {
    const { user, newer, older } = await userWithBadges();
    const viewer = await createUser(t.app);
    const follow = await t.app.inject({
      method: 'POST',
      url: `/users/${user.id}/follow`,
      headers: viewer.headers,
    });
    expect(follow.statusCode, follow.body).toBe(200);
    for (const url of [`/users/${user.id}`, `/users/username/${user.username}`]) {
      const { response, statements: count } = await counted(url, viewer.headers);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json().isFollowing).toBe(true);
      expect(response.json().badges.map((badge: { id: string }) => badge.id)).toEqual([newer.id, older.id]);
      expect(count, url).toBe(2);
    }
  });

  it('a deactivated badge leaves the joined badges at once', async () => {
    const { user, newer, older } = await userWithBadges();
    const patch = await t.app.inject({
      method: 'PATCH',
      url: `/badges/${newer.id}`,
      headers: admin.headers,
      payload: { isActive: false },
    });
    expect(patch.statusCode, patch.body).toBe(200);
    const me = await t.app.inject({ method: 'GET', url: '/users/me', headers: user.headers });
    expect(me.json().badges.map((badge: { id: string }) => badge.id)).toEqual([older.id]);
  });

  it('GET /resource-tags: the page and its total in one statement; a page past the end keeps the total', async () => {
    const { response, statements: count } = await counted('/resource-tags?limit=5');
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(body.tags).toHaveLength(5);
    expect(body.total).toBeGreaterThan(5);
    expect(body.meta).toEqual({ total: body.total, limit: 5, offset: 0 });
    expect(count).toBe(1);
    const all = await t.app.inject({ method: 'GET', url: '/resource-tags?limit=100' });
    expect(all.json().tags).toHaveLength(body.total);
    const past = await t.app.inject({ method: 'GET', url: '/resource-tags?offset=10000' });
    expect(past.statusCode, past.body).toBe(200);
    expect(past.json()).toMatchObject({ tags: [], total: body.total });
  });

  it('a revoked key is refused on the very next request (the lookup is prepared, never kept)', async () => {
    const user = await createUser(t.app);
    expect((await t.app.inject({ method: 'GET', url: '/users/me', headers: user.headers })).statusCode).toBe(
      200,
    );
    const keys = await t.app.inject({ method: 'GET', url: '/users/me/api-keys', headers: user.headers });
    const [key] = keys.json().apiKeys as Array<{ id: string }>;
    const revoke = await t.app.inject({
      method: 'DELETE',
      url: `/users/me/api-keys/${key!.id}`,
      headers: user.headers,
    });
    expect(revoke.statusCode, revoke.body).toBe(204);
    const after = await t.app.inject({ method: 'GET', url: '/users/me', headers: user.headers });
    expect(after.statusCode).toBe(401);
  });
});

/** Settings of an in-memory app, for the configuration checks below. */
const env = (extra: Record<string, string> = {}) => ({
  DATA_DIR: '/tmp/marketplace-database-settings-test',
  SECRET: 'a-secret-of-at-least-thirty-two-characters!',
  DATABASE_URL: ':memory:',
  ...extra,
});

describe('DATABASE_POOL_SIZE', () => {
  it('defaults to 4 connections per CPU, at least 4 and at most 20', () => {
    expect([1, 2, 3, 5, 8, 64].map((cpus) => defaultPoolSize(cpus))).toEqual([4, 8, 12, 20, 20, 20]);
    expect(loadConfig(env()).databasePoolSize).toBe(defaultPoolSize());
  });

  it('reads an explicit size and refuses sizes out of 1–1000 or not whole', () => {
    expect(loadConfig(env({ DATABASE_POOL_SIZE: '3' })).databasePoolSize).toBe(3);
    for (const bad of ['0', '1001', 'ten', '2.5', '-1']) {
      expect(() => loadConfig(env({ DATABASE_POOL_SIZE: bad })), bad).toThrow(ConfigError);
      expect(() => loadConfig(env({ DATABASE_POOL_SIZE: bad })), bad).toThrow(/DATABASE_POOL_SIZE/);
    }
  });

  it('sizes the PostgreSQL pool of the running app (SQLite has none)', async () => {
    const sized = await buildTestApp({ DATABASE_POOL_SIZE: '3' });
    try {
      const { database } = sized.app.context;
      if (database.dialect === 'postgres') {
        expect(database.pool?.options.max).toBe(3);
        // The search statements' pool (core/db/index-plan-pool.ts): half of it, at least two.
        expect(database.indexPlanPool?.options.max).toBe(2);
      } else {
        expect(database.pool).toBeUndefined();
        expect(database.indexPlanPool).toBeUndefined();
      }
      expect((await sized.app.inject({ method: 'GET', url: '/resource-tags' })).statusCode).toBe(200);
    } finally {
      await sized.close();
    }
  });
});

describe('DATABASE_WORK_MEM_MB', () => {
  it('defaults to 16 MB and refuses sizes out of 1–2048 or not whole', () => {
    expect(loadConfig(env()).databaseWorkMemMb).toBe(16);
    expect(loadConfig(env({ DATABASE_WORK_MEM_MB: '64' })).databaseWorkMemMb).toBe(64);
    for (const bad of ['0', '2049', '16MB', '2.5', '-1']) {
      expect(() => loadConfig(env({ DATABASE_WORK_MEM_MB: bad })), bad).toThrow(/DATABASE_WORK_MEM_MB/);
    }
  });

  it('is the work_mem of every PostgreSQL connection of the running app', async () => {
    const tuned = await buildTestApp({ DATABASE_WORK_MEM_MB: '24', DATABASE_POOL_SIZE: '2' });
    try {
      const { database } = tuned.app.context;
      if (database.dialect !== 'postgres') {
        expect(database.pool).toBeUndefined();
        return;
      }
      // Both connections of the pool at once: each was set when it connected, before its first query. The
      // URL's own server options (the test's schema, test/helpers/app.ts) are kept beside it.
      const shown = await Promise.all(
        [0, 1].map(() =>
          database.pool!.query<{ work_mem: string; search_path: string }>(
            `select pg_sleep(0.05), current_setting('work_mem') as work_mem,
              current_setting('search_path') as search_path`,
          ),
        ),
      );
      expect(shown.map((result) => result.rows[0]!.work_mem)).toEqual(['24MB', '24MB']);
      const schema = new URL(tuned.app.context.config.databaseUrl!).searchParams.get('options');
      expect(shown.map((result) => `-c search_path=${result.rows[0]!.search_path}`)).toEqual([
        schema,
        schema,
      ]);
      expect(database.pool!.totalCount).toBe(2);
      const planned = await database.indexPlanPool!.query<{ work_mem: string; search_path: string }>(
        `select current_setting('work_mem') as work_mem, current_setting('search_path') as search_path`,
      );
      expect(planned.rows[0]!.work_mem).toBe('24MB');
      expect(`-c search_path=${planned.rows[0]!.search_path}`).toBe(schema);
      expect((await tuned.app.inject({ method: 'GET', url: '/resources?search=anything' })).statusCode).toBe(
        200,
      );
    } finally {
      await tuned.close();
    }
  });

  it('keeps the server options of PGOPTIONS when the URL sets none', async () => {
    const base = process.env['TEST_DATABASE_URL'];
    if (base === undefined) return;
    const before = process.env['PGOPTIONS'];
    process.env['PGOPTIONS'] = '-c statement_timeout=4321';
    const database = openDatabase({
      databaseUrl: base,
      dataDir: '',
      sqliteSynchronous: 'FULL',
      databaseWorkMemMb: 40,
    });
    try {
      const shown = await database.pool!.query<{ work_mem: string; statement_timeout: string }>(
        `select current_setting('work_mem') as work_mem, current_setting('statement_timeout') as statement_timeout`,
      );
      expect(shown.rows[0]).toEqual({ work_mem: '40MB', statement_timeout: '4321ms' });
    } finally {
      if (before === undefined) delete process.env['PGOPTIONS'];
      else process.env['PGOPTIONS'] = before;
      await database.destroy();
    }
  });
});
