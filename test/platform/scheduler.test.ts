import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS } from '../../src/core/clock.js';
import { createScheduler } from '../../src/core/jobs/scheduler.js';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';

describe('job scheduler', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => t.close());

  it('runs a registered job on demand and refuses unknown jobs', async () => {
    const scheduler = createScheduler({ database: t.app.context.database, logger: t.app.log });
    let runs = 0;
    scheduler.register({ name: 'count', intervalMs: 60_000, run: async () => void (runs += 1) });
    expect(scheduler.jobs()).toEqual(['count']);
    await expect(scheduler.runNow('count')).resolves.toBe(true);
    expect(runs).toBe(1);
    await expect(scheduler.runNow('missing')).rejects.toThrow(/Unknown job/);
  });

  it('lets one process at a time run a job (advisory lock on PostgreSQL, one process on SQLite)', async () => {
    const { database } = t.app.context;
    const first = createScheduler({ database, logger: t.app.log });
    const second = createScheduler({ database, logger: t.app.log });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    let secondRuns = 0;
    first.register({
      name: 'exclusive',
      intervalMs: 60_000,
      run: async () => {
        started();
        await held;
      },
    });
    second.register({ name: 'exclusive', intervalMs: 60_000, run: async () => void (secondRuns += 1) });

    const firstRun = first.runNow('exclusive');
    await running;
    if (database.dialect === 'postgres') {
      // The second "process" sees the lock taken and skips this tick.
      await expect(second.runNow('exclusive')).resolves.toBe(false);
      expect(secondRuns).toBe(0);
    }
    release();
    await expect(firstRun).resolves.toBe(true);
    await expect(second.runNow('exclusive')).resolves.toBe(true);
    expect(secondRuns).toBe(1);
  });

  it('purges expired sessions with the purge-expired-sessions job', async () => {
    const user = await createUser(t.app);
    const login = await t.app.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { login: user.username, password: user.password },
    });
    expect(login.statusCode).toBe(200);
    const sessions = () =>
      t.app.context.database.db.selectFrom('sessions').select('id').where('user_id', '=', user.id).execute();
    await t.app.context.scheduler.runNow('purge-expired-sessions');
    expect(await sessions()).toHaveLength(1);
    t.clock.advance(31 * DAY_MS);
    await t.app.context.scheduler.runNow('purge-expired-sessions');
    expect(await sessions()).toHaveLength(0);
  });
});
