import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS, ManualClock } from '../../src/core/clock.js';
import { openDatabase } from '../../src/core/db/database.js';
import type { Database } from '../../src/core/db/database.js';
import { readJobRuns } from '../../src/core/jobs/job-runs.repo.js';
import { createScheduler } from '../../src/core/jobs/scheduler.js';
import type { JobRun } from '../../src/core/jobs/scheduler.js';
import { buildTestApp, freshPostgresUrl, migrateSchema } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';

const HOUR_MS = 60 * 60 * 1000;

describe('job scheduler', () => {
  let t: TestApp;
  /** A second connection to the same database: what another process of the deployment would hold. */
  let other: Database;
  beforeAll(async () => {
    t = await buildTestApp();
    other = openDatabase(t.config);
  });
  afterAll(async () => {
    await other.destroy();
    await t.close();
  });

  const schedulerOn = (database: Database, clock: ManualClock) =>
    createScheduler({ database, logger: t.app.log, clock });
  /** A job run that holds its lock until `release`; `running` resolves once it started. */
  const blockingRun = () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const run = async () => {
      started();
      await held;
    };
    return { run, running, release };
  };
  const runsOf = async (name: string) =>
    (await readJobRuns(t.app.context.database.db)).find((row) => row.name === name);

  it('runs a registered job on demand and refuses unknown jobs', async () => {
    const scheduler = schedulerOn(t.app.context.database, t.clock);
    let runs = 0;
    scheduler.register({ name: 'count', intervalMs: 60_000, run: async () => void (runs += 1) });
    expect(scheduler.jobs()).toEqual(['count']);
    await expect(scheduler.runNow('count')).resolves.toBe(true);
    expect(runs).toBe(1);
    await expect(scheduler.runNow('missing')).rejects.toThrow(/Unknown job/);
  });

  it('lets one process at a time run a job (advisory lock on PostgreSQL, one process on SQLite)', async () => {
    const { database } = t.app.context;
    const first = schedulerOn(database, t.clock);
    const second = schedulerOn(other, t.clock);
    const { run, running, release } = blockingRun();
    let secondRuns = 0;
    first.register({ name: 'exclusive', intervalMs: 60_000, run });
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

  it("PostgreSQL: a deployment in another schema of the database is not held by this one's lock", async () => {
    if (t.app.context.database.dialect !== 'postgres') return;
    const elsewhere = await freshPostgresUrl(process.env['TEST_DATABASE_URL']!);
    await migrateSchema(elsewhere.url);
    const apart = openDatabase({ ...t.config, databaseUrl: elsewhere.url });
    try {
      const here = schedulerOn(t.app.context.database, t.clock);
      const there = schedulerOn(apart, t.clock);
      const same = schedulerOn(other, t.clock);
      const { run, running, release } = blockingRun();
      here.register({ name: 'shared-name', intervalMs: 60_000, run });
      let thereRuns = 0;
      there.register({ name: 'shared-name', intervalMs: 60_000, run: async () => void (thereRuns += 1) });
      same.register({ name: 'shared-name', intervalMs: 60_000, run: async () => undefined });
      const hereRun = here.runNow('shared-name');
      await running;
      await expect(there.runNow('shared-name')).resolves.toBe(true);
      expect(thereRuns).toBe(1);
      // Within the schema the lock still holds.
      await expect(same.runNow('shared-name')).resolves.toBe(false);
      release();
      await expect(hereRun).resolves.toBe(true);
    } finally {
      await apart.destroy();
      await elsewhere.drop();
    }
  });

  it('a job run at T is not due at T + interval − 1 ms and is due at T + interval', async () => {
    const clock = new ManualClock('2026-03-01T10:00:00.000Z');
    const scheduler = schedulerOn(t.app.context.database, clock);
    const ranAt: string[] = [];
    scheduler.register({
      name: 'hourly-due',
      intervalMs: HOUR_MS,
      run: async () => void ranAt.push(clock.now().toISOString()),
    });
    await expect(scheduler.runDue()).resolves.toEqual(['hourly-due']);
    clock.advance(HOUR_MS - 1);
    await expect(scheduler.runDue()).resolves.toEqual([]);
    clock.advance(1);
    await expect(scheduler.runDue()).resolves.toEqual(['hourly-due']);
    expect(ranAt).toEqual(['2026-03-01T10:00:00.000Z', '2026-03-01T11:00:00.000Z']);
    expect(await runsOf('hourly-due')).toMatchObject({
      last_started_at: '2026-03-01T11:00:00.000Z',
      last_finished_at: '2026-03-01T11:00:00.000Z',
      last_status: 'OK',
      last_error: null,
      run_count: 2,
      failure_count: 0,
    });
  });

  it('a fresh process runs what is due at start; one started right after it sees the job as not due', async () => {
    const clock = new ManualClock('2026-03-02T10:00:00.000Z');
    let runs = 0;
    const processWith = (database: Database) => {
      const scheduler = schedulerOn(database, clock);
      scheduler.register({ name: 'hourly-start', intervalMs: HOUR_MS, run: async () => void (runs += 1) });
      return scheduler;
    };
    // A short-lived process that ran the job an hour ago and exited.
    const earlier = processWith(t.app.context.database);
    await earlier.runDue();
    expect(runs).toBe(1);

    clock.advance(HOUR_MS);
    const first = processWith(t.app.context.database);
    await first.start();
    await first.stop();
    expect(runs).toBe(2);

    clock.advance(1000);
    const second = processWith(other);
    await second.start();
    await second.stop();
    expect(runs).toBe(2);
    expect(await runsOf('hourly-start')).toMatchObject({
      last_started_at: '2026-03-02T11:00:00.000Z',
      run_count: 2,
    });
  });

  it('runs a due job exactly once when two processes try it at the same moment', async () => {
    const clock = new ManualClock('2026-03-03T10:00:00.000Z');
    let runs = 0;
    const processes = [t.app.context.database, other].map((database) => {
      const scheduler = schedulerOn(database, clock);
      scheduler.register({ name: 'hourly-race', intervalMs: HOUR_MS, run: async () => void (runs += 1) });
      return scheduler;
    });
    const ran = await Promise.all(processes.map((scheduler) => scheduler.runDue()));
    expect(ran.flat()).toEqual(['hourly-race']);
    expect(runs).toBe(1);
    expect((await runsOf('hourly-race'))?.run_count).toBe(1);
  });

  it('records failures (status, error, counts), tells observers, and keeps running other jobs', async () => {
    const clock = new ManualClock('2026-03-04T10:00:00.000Z');
    const scheduler = schedulerOn(t.app.context.database, clock);
    const observed: JobRun[] = [];
    scheduler.observe((run) => observed.push(run));
    let fail = true;
    let healthyRuns = 0;
    scheduler.register({
      name: 'flaky',
      intervalMs: HOUR_MS,
      run: async () => {
        if (fail) throw new Error('upstream unavailable');
      },
    });
    scheduler.register({ name: 'healthy', intervalMs: HOUR_MS, run: async () => void (healthyRuns += 1) });

    await expect(scheduler.runDue()).resolves.toEqual(['flaky', 'healthy']);
    expect(healthyRuns).toBe(1);
    expect(await runsOf('flaky')).toMatchObject({
      last_status: 'FAILED',
      last_error: 'upstream unavailable',
      run_count: 1,
      failure_count: 1,
    });
    expect(observed.map(({ job, ok }) => ({ job, ok }))).toEqual([
      { job: 'flaky', ok: false },
      { job: 'healthy', ok: true },
    ]);
    expect(observed.every((run) => run.durationMs >= 0)).toBe(true);

    // An operator's forced run reports the failure to the caller and records it too.
    await expect(scheduler.runNow('flaky')).rejects.toThrow('upstream unavailable');
    expect((await runsOf('flaky'))?.failure_count).toBe(2);

    fail = false;
    clock.advance(HOUR_MS);
    await scheduler.runDue();
    expect(await runsOf('flaky')).toMatchObject({
      last_status: 'OK',
      last_error: null,
      run_count: 3,
      failure_count: 2,
      last_finished_at: '2026-03-04T11:00:00.000Z',
    });
  });

  it("the app's scheduler runs every registered job at start and records it", async () => {
    const { scheduler, database } = t.app.context;
    await scheduler.start();
    await scheduler.stop();
    const recorded = await readJobRuns(database.db);
    for (const name of scheduler.jobs()) {
      expect(recorded.find((row) => row.name === name)).toMatchObject({ last_status: 'OK', run_count: 1 });
    }
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
