// The change signal and the caches kept under it (core/db/pg-change-signal.ts, core/db/change-cache.ts,
// core/http/page-cache.ts): a caller is answered only by a fence that started after it asked; concurrent misses
// of one key share one production; list pages read their version only after a change. The two-process coherence
// on PostgreSQL is in change-signal.pg.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { createChangeCache } from '../../src/core/db/change-cache.js';
import { createFenceSignal } from '../../src/core/db/pg-change-signal.js';
import { createDirectoryCache } from '../../src/core/http/page-cache.js';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import type { TestUser } from '../helpers/factories.js';
import { quietly, selectsOf } from './change-signal-helpers.js';

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets every queued promise reaction run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A fence whose queries the test answers one by one. */
function controlledFence() {
  const queries: Array<Deferred<string>> = [];
  const changes = createFenceSignal(() => {
    const query = deferred<string>();
    queries.push(query);
    return query.promise;
  });
  return { changes, queries };
}

describe('the fence (createFenceSignal)', () => {
  it('answers a caller only with a fence that started after it asked, one fence at a time, shared', async () => {
    const { changes, queries } = controlledFence();
    const first = changes();
    expect(queries).toHaveLength(1);
    // These arrive while the first fence runs: they wait for the next one, which is not started yet.
    const second = changes();
    const third = changes();
    expect(queries).toHaveLength(1);
    let secondDone = false;
    void second.then(() => (secondDone = true));
    queries[0]!.resolve('10:12:10');
    expect(await first).toBe(0);
    await settle();
    expect(secondDone).toBe(false);
    expect(queries).toHaveLength(2);
    queries[1]!.resolve('10:12:10');
    expect(await second).toBe(0);
    expect(await third).toBe(0);
    // Nothing running: the next caller starts its own fence at once.
    const fourth = changes();
    expect(queries).toHaveLength(3);
    queries[2]!.resolve('11:13:11');
    expect(await fourth).toBe(1);
  });

  it('moves the generation when the marker differs, and only then', async () => {
    const { changes, queries } = controlledFence();
    const markers = ['5:9:5,7', '5:9:5,7', '5:10:5,7', '5:10:5,7', '7:10:7'];
    const seen: number[] = [];
    for (const marker of markers) {
      const generation = changes();
      queries.at(-1)!.resolve(marker);
      seen.push(await generation);
    }
    expect(seen).toEqual([0, 0, 1, 1, 2]);
  });

  it('rejects the callers of a failed fence, counts the gap as a change and recovers by itself', async () => {
    const { changes, queries } = controlledFence();
    const before = changes();
    queries[0]!.resolve('1:2:');
    expect(await before).toBe(0);
    const during = changes();
    const waiting = changes();
    queries[1]!.reject(new Error('Connection terminated unexpectedly'));
    await expect(during).rejects.toThrow('Connection terminated');
    await settle();
    // The queued caller gets the next fence, not the failed one's error.
    queries[2]!.resolve('1:2:');
    expect(await waiting).toBe(1);
    const after = changes();
    queries[3]!.resolve('1:2:');
    expect(await after).toBe(1);
  });

  it('hands a failure of the next fence to the callers waiting for it', async () => {
    const { changes, queries } = controlledFence();
    const running = changes();
    const queued = [changes(), changes()];
    queries[0]!.resolve('1:2:');
    await running;
    await settle();
    queries[1]!.reject(new Error('timeout exceeded when trying to connect'));
    for (const caller of queued) await expect(caller).rejects.toThrow('timeout exceeded');
    expect(queries).toHaveLength(2);
  });
});

describe('concurrent misses (createChangeCache)', () => {
  it('share one production per key and version; a newer version does not take an older production', async () => {
    let version = 1;
    const cache = createChangeCache<string>({ changes: () => version });
    const productions: Array<Deferred<string>> = [];
    const produce = () => {
      const production = deferred<string>();
      productions.push(production);
      return production.promise;
    };
    const burst = [cache.get('k', produce), cache.get('k', produce), cache.get('k', produce)];
    const other = cache.get('other', produce);
    expect(productions).toHaveLength(2);
    version = 2;
    const newer = cache.get('k', produce);
    expect(productions).toHaveLength(3);
    productions[0]!.resolve('v1');
    productions[1]!.resolve('other');
    productions[2]!.resolve('v2');
    expect(await Promise.all(burst)).toEqual(['v1', 'v1', 'v1']);
    expect(await other).toBe('other');
    expect(await newer).toBe('v2');
    // The newer entry stays, whichever production finished last.
    expect(await cache.get('k', produce)).toBe('v2');
    expect(productions).toHaveLength(3);
  });

  it('hands a failed production to every caller waiting for it and keeps nothing', async () => {
    const cache = createChangeCache<string>({ changes: () => 1 });
    let attempts = 0;
    const failing = async () => {
      attempts += 1;
      await settle();
      throw new Error('boom');
    };
    const callers = [cache.get('k', failing), cache.get('k', failing)];
    for (const caller of callers) await expect(caller).rejects.toThrow('boom');
    expect(attempts).toBe(1);
    expect(await cache.get('k', async () => 'fine')).toBe('fine');
  });

  it('waits for an asynchronous signal and keeps the value while it resolves to the same number', async () => {
    let version = 3;
    const cache = createChangeCache<number>({ changes: async () => version });
    let produced = 0;
    const produce = async () => (produced += 1);
    expect(await cache.get('k', produce)).toBe(1);
    expect(await cache.get('k', produce)).toBe(1);
    version = 4;
    expect(await cache.get('k', produce)).toBe(2);
  });
});

describe('list pages under the change signal (createDirectoryCache)', () => {
  function setup() {
    const clock = new ManualClock();
    let generation = 0;
    let version = 1;
    let versionReads = 0;
    let renders = 0;
    const cache = createDirectoryCache({
      clock,
      changes: () => generation,
      readVersion: async () => {
        versionReads += 1;
        return version;
      },
      ttlMs: 5000,
    });
    const render = (body: string) => async () => {
      renders += 1;
      await settle();
      return body;
    };
    return {
      clock,
      cache,
      render,
      commit: (listed: boolean) => {
        generation += 1;
        if (listed) version += 1;
      },
      counts: () => ({ versionReads, renders }),
    };
  }

  it('reads the version only after a change, and renders again only when it moved', async () => {
    const s = setup();
    await s.cache.page('a', s.render('one'));
    await s.cache.page('a', s.render('two'));
    await s.cache.page('b', s.render('b'));
    expect(s.counts()).toEqual({ versionReads: 1, renders: 2 });
    // A commit the lists do not show: the version is read again, the page stays.
    s.commit(false);
    expect((await s.cache.page('a', s.render('three'))).body).toBe('one');
    expect(s.counts()).toEqual({ versionReads: 2, renders: 2 });
    s.commit(true);
    expect((await s.cache.page('a', s.render('four'))).body).toBe('four');
    expect(s.counts()).toEqual({ versionReads: 3, renders: 3 });
  });

  it('renders a page once for concurrent misses of one version, and not for a newer version', async () => {
    const s = setup();
    const burst = await Promise.all(Array.from({ length: 5 }, () => s.cache.page('a', s.render('one'))));
    expect(new Set(burst.map((page) => page.body))).toEqual(new Set(['one']));
    expect(s.counts().renders).toBe(1);
    s.commit(true);
    const [older, newer] = await Promise.all([
      s.cache.page('a', s.render('two')),
      (async () => {
        s.commit(true);
        return s.cache.page('a', s.render('three'));
      })(),
    ]);
    expect(older.body).toBe('two');
    expect(newer.body).toBe('three');
    expect((await s.cache.page('a', s.render('four'))).body).toBe('three');
  });

  it('does not share a rendering that started longer ago than the time a page is kept', async () => {
    const s = setup();
    let release!: () => void;
    const slow = s.cache.page('a', async () => {
      await new Promise<void>((resolve) => (release = resolve));
      return 'slow';
    });
    await settle();
    s.clock.advance(5000);
    const fresh = s.cache.page('a', s.render('fresh'));
    release();
    expect((await slow).body).toBe('slow');
    expect((await fresh).body).toBe('fresh');
  });
});

describe('through the app', () => {
  let t: TestApp;
  let user: TestUser;

  beforeAll(async () => {
    t = await buildTestApp({ METRICS: 'on' });
    user = await createUser(t.app);
  });
  afterAll(async () => t.close());

  const keptCost = () => (t.app.context.database.dialect === 'postgres' ? 1 : 0);
  const profile = () => t.app.inject({ method: 'GET', url: `/users/${user.id}` });

  async function editBio(bio: string): Promise<void> {
    const patch = await t.app.inject({
      method: 'PATCH',
      url: '/users/me',
      headers: user.headers,
      payload: { bio },
    });
    expect(patch.statusCode, patch.body).toBe(200);
  }

  it('offers a change signal on SQLite files and PostgreSQL', () => {
    expect(t.app.context.database.changes).toBeDefined();
  });

  it('serves a kept anonymous answer with no query but the fence', async () => {
    await profile();
    // Primed inside the quiet window: the measured read finds what the priming read kept.
    const cost = await quietly(t, async () => {
      await profile();
      return selectsOf(t, profile);
    });
    expect(cost).toBe(keptCost());
  });

  it('renders once for a burst of anonymous reads right after a change', async () => {
    const one = await quietly(
      t,
      () => selectsOf(t, profile),
      () => editBio('before the single read'),
    );
    expect(one).toBeGreaterThan(keptCost());
    let bodies: string[] = [];
    const burst = await quietly(
      t,
      () =>
        selectsOf(t, async () => {
          bodies = (await Promise.all(Array.from({ length: 8 }, profile))).map((answer) => answer.body);
        }),
      () => editBio('before the burst'),
    );
    expect(new Set(bodies).size).toBe(1);
    expect(JSON.parse(bodies[0]!).bio).toBe('before the burst');
    // One rendering; on PostgreSQL the burst may straddle two fences.
    expect(burst).toBeLessThanOrEqual(one + keptCost());
  });

  it('serves a kept list page without reading the catalogue version while nothing changed', async () => {
    const page = () => t.app.inject({ method: 'GET', url: '/resources' });
    expect((await page()).statusCode).toBe(200);
    const cost = await quietly(t, async () => {
      await page();
      return selectsOf(t, page);
    });
    expect(cost).toBe(keptCost());
    const servers = () => t.app.inject({ method: 'GET', url: '/servers' });
    expect((await servers()).statusCode).toBe(200);
    const serversCost = await quietly(t, async () => {
      await servers();
      return selectsOf(t, servers);
    });
    expect(serversCost).toBe(keptCost());
  });
});
