// Report moderation: every status × action through the HTTP API, the queue, the detail with history, the body
// rules of a decision, conflicts of interest, concurrent decisions and permanent deletion.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createPersonas, createUser } from '../helpers/factories.js';
import type { Personas, TestUser } from '../helpers/factories.js';
import { expectError } from '../helpers/http.js';
import { bringTo, expectReportCounters, getReport, moderate, moderateOk, reportOf } from './helpers.js';
import type { ReportBody, ReportStatusName } from './helpers.js';

let t: TestApp;
let p: Personas;

beforeAll(async () => {
  t = await buildTestApp();
  p = await createPersonas(t.app);
});
afterAll(async () => t.close());
afterEach(async () => expectReportCounters(t.app));

interface HistoryEntry {
  action: string;
  fromStatus: string;
  toStatus: string;
  note: string | null;
  userAction: string | null;
  moderator: { id: string; username: string } | null;
  createdAt: string;
}
interface Detail extends ReportBody {
  userAction: string | null;
  suspensionDays: number | null;
  reporter: { id: string; username: string; displayName: string | null; image: string };
  reportedUser: {
    id: string;
    username: string;
    displayName: string | null;
    image: string;
    role: string;
    status: string;
    previousReports: number;
  } | null;
  resource: unknown;
  history: HistoryEntry[];
}

const detail = (by: TestUser, id: string) =>
  t.app.inject({ method: 'GET', url: `/reports/moderation/${id}`, headers: by.headers });
const queue = (by: TestUser, query = '') =>
  t.app.inject({ method: 'GET', url: `/reports/moderation/all${query}`, headers: by.headers });
const purge = (by: TestUser, id: string) =>
  t.app.inject({ method: 'DELETE', url: `/reports/moderation/${id}`, headers: by.headers });

async function freshReport(): Promise<{ id: string; reporter: TestUser; target: TestUser }> {
  const [reporter, target] = await Promise.all([createUser(t.app), createUser(t.app)]);
  return { id: await reportOf(t.app, reporter, target), reporter, target };
}

const STATUSES: ReportStatusName[] = ['PENDING', 'UNDER_REVIEW', 'RESOLVED', 'DISMISSED'];
const ACTIONS = ['TAKE_UNDER_REVIEW', 'RESOLVE', 'DISMISS'] as const;
const EXPECTED: Record<ReportStatusName, Record<(typeof ACTIONS)[number], ReportStatusName | 409>> = {
  PENDING: { TAKE_UNDER_REVIEW: 'UNDER_REVIEW', RESOLVE: 'RESOLVED', DISMISS: 'DISMISSED' },
  UNDER_REVIEW: { TAKE_UNDER_REVIEW: 409, RESOLVE: 'RESOLVED', DISMISS: 'DISMISSED' },
  RESOLVED: { TAKE_UNDER_REVIEW: 409, RESOLVE: 409, DISMISS: 409 },
  DISMISSED: { TAKE_UNDER_REVIEW: 409, RESOLVE: 409, DISMISS: 409 },
};
const TABLE = STATUSES.flatMap((from) =>
  ACTIONS.map((action) => [from, action, EXPECTED[from][action]] as const),
);

describe('PATCH /reports/moderation/:reportId transitions', () => {
  it.each(TABLE)('%s + %s → %s', async (from, action, expected) => {
    const { id, reporter } = await freshReport();
    await bringTo(t.app, p.moderator, id, from);
    t.clock.advance(60_000);
    const response = await moderate(t.app, p.admin, id, { action });
    if (expected === 409) {
      expectError(response, 409, 'INVALID_STATUS_TRANSITION');
      expect((await getReport(t.app, reporter, id)).status).toBe(from);
      const history = ((await detail(p.moderator, id)).json() as Detail).history;
      expect(history).toHaveLength(from === 'PENDING' ? 0 : 1);
      return;
    }
    expect(response.statusCode, response.body).toBe(200);
    const at = t.clock.now().toISOString();
    expect(response.json()).toEqual({
      message: expect.any(String),
      report: {
        id,
        status: expected,
        resolution: null,
        moderatedBy: p.admin.id,
        moderatedAt: at,
        userAction: null,
      },
    });
    const stored = await getReport(t.app, reporter, id);
    expect(stored).toMatchObject({
      status: expected,
      moderatedBy: p.admin.id,
      moderatedAt: at,
      updatedAt: at,
    });
    const history = ((await detail(p.moderator, id)).json() as Detail).history;
    expect(history.at(-1)).toEqual({
      action,
      fromStatus: from,
      toStatus: expected,
      note: null,
      userAction: null,
      moderator: { id: p.admin.id, username: p.admin.username },
      createdAt: at,
    });
  });

  it('records resolution and notes; an empty moderatorNotes clears the notes', async () => {
    const { id, reporter } = await freshReport();
    await moderateOk(t.app, p.moderator, id, {
      action: 'TAKE_UNDER_REVIEW',
      moderatorNotes: 'Looking at logs',
    });
    expect((await getReport(t.app, reporter, id)).moderatorNotes).toBe('Looking at logs');
    const result = await moderateOk(t.app, p.moderator, id, {
      action: 'DISMISS',
      resolution: 'Nothing against the rules',
      moderatorNotes: '',
    });
    expect(result.report.resolution).toBe('Nothing against the rules');
    const stored = await getReport(t.app, reporter, id);
    expect(stored).toMatchObject({ resolution: 'Nothing against the rules', moderatorNotes: null });
    const history = ((await detail(p.moderator, id)).json() as Detail).history;
    expect(history.map((entry) => [entry.action, entry.note])).toEqual([
      ['TAKE_UNDER_REVIEW', 'Looking at logs'],
      ['DISMISS', null],
    ]);
  });

  it.each([
    [{ action: 'TAKE_UNDER_REVIEW', userAction: 'WARNING' }, 'userAction'],
    [{ action: 'DISMISS', userAction: 'NONE' }, 'userAction'],
    [{ action: 'RESOLVE', suspensionDays: 3 }, 'suspensionDays'],
    [{ action: 'RESOLVE', userAction: 'BAN', suspensionDays: 3 }, 'suspensionDays'],
    [{ action: 'TAKE_UNDER_REVIEW', resolution: 'done' }, 'resolution'],
    [{ action: 'RESOLVE', userAction: 'SUSPENSION', suspensionDays: 0 }, 'suspensionDays'],
    [{ action: 'RESOLVE', userAction: 'SUSPENSION', suspensionDays: 366 }, 'suspensionDays'],
    [{ action: 'RESOLVE', userAction: 'SUSPENSION', suspensionDays: 1.5 }, 'suspensionDays'],
    [{ action: 'ESCALATE' }, 'action'],
    [{ action: 'RESOLVE', userAction: 'DELETE' }, 'userAction'],
    [{}, 'action'],
  ])('refuses %j with 400 naming %s; the report does not move', async (payload, field) => {
    const { id, reporter } = await freshReport();
    const body = expectError(await moderate(t.app, p.moderator, id, payload), 400, 'INVALID_REQUEST');
    expect(JSON.stringify(body.details)).toContain(field);
    expect((await getReport(t.app, reporter, id)).status).toBe('PENDING');
  });

  it('answers 404 for an unknown report', async () => {
    expectError(
      await moderate(t.app, p.moderator, '0190aaaa-0000-7000-8000-000000000000', { action: 'RESOLVE' }),
      404,
    );
  });

  it('refuses a moderator acting on a report they filed, or one about them (403)', async () => {
    const other = await createUser(t.app);
    const filedByModerator = await reportOf(t.app, p.moderator, other);
    expectError(await moderate(t.app, p.moderator, filedByModerator, { action: 'DISMISS' }), 403);
    const aboutModerator = await reportOf(t.app, other, p.moderator);
    expectError(await moderate(t.app, p.moderator, aboutModerator, { action: 'DISMISS' }), 403);
    // Another moderator may decide both.
    await moderateOk(t.app, p.admin, filedByModerator, { action: 'DISMISS' });
    await moderateOk(t.app, p.admin, aboutModerator, { action: 'DISMISS' });
  });

  it('two moderators deciding at the same moment: one wins, the other gets 409', async () => {
    const { id, reporter } = await freshReport();
    const [first, second] = await Promise.all([
      moderate(t.app, p.moderator, id, { action: 'RESOLVE' }),
      moderate(t.app, p.admin, id, { action: 'DISMISS' }),
    ]);
    expect([first.statusCode, second.statusCode].sort()).toEqual([200, 409]);
    const winner = first.statusCode === 200 ? 'RESOLVED' : 'DISMISSED';
    expect((await getReport(t.app, reporter, id)).status).toBe(winner);
    expect(((await detail(p.moderator, id)).json() as Detail).history).toHaveLength(1);
  });
});

describe('GET /reports/moderation/all', () => {
  it('filters by status; total is the number of reports in that status', async () => {
    const ids: Record<ReportStatusName, string> = {
      PENDING: (await freshReport()).id,
      UNDER_REVIEW: (await freshReport()).id,
      RESOLVED: (await freshReport()).id,
      DISMISSED: (await freshReport()).id,
    };
    for (const status of STATUSES) await bringTo(t.app, p.moderator, ids[status], status);
    const { db } = t.app.context.database;
    for (const status of STATUSES) {
      const response = await queue(p.moderator, `?status=${status}&limit=100`);
      expect(response.statusCode, response.body).toBe(200);
      const body = response.json() as { reports: Detail[]; total: number; meta: Record<string, number> };
      const inStatus = await db.selectFrom('reports').select('id').where('status', '=', status).execute();
      expect(body.total).toBe(inStatus.length);
      expect(body.meta).toEqual({ total: inStatus.length, limit: 100, offset: 0 });
      expect(body.reports.every((report) => report.status === status)).toBe(true);
      expect(body.reports.map((report) => report.id)).toContain(ids[status]);
    }
    const all = (await queue(p.moderator, '?limit=100')).json() as { total: number };
    const everything = await db.selectFrom('reports').select('id').execute();
    expect(all.total).toBe(everything.length);
  });

  it('lists newest first by default, oldest first on request, with reporter and reported user', async () => {
    const first = await freshReport();
    t.clock.advance(1000);
    const second = await freshReport();
    const newest = (await queue(p.moderator, '?status=PENDING&limit=100')).json() as { reports: Detail[] };
    const order = newest.reports.map((report) => report.id);
    expect(order.indexOf(second.id)).toBeLessThan(order.indexOf(first.id));
    const oldest = (await queue(p.moderator, '?status=PENDING&order=oldest&limit=100')).json() as {
      reports: Detail[];
    };
    const reversed = oldest.reports.map((report) => report.id);
    expect(reversed.indexOf(first.id)).toBeLessThan(reversed.indexOf(second.id));
    const item = newest.reports.find((report) => report.id === second.id)!;
    expect(item.reporter).toEqual({
      id: second.reporter.id,
      username: second.reporter.username,
      displayName: null,
      image: expect.stringContaining('http'),
    });
    expect(item.reportedUser).toMatchObject({ id: second.target.id, username: second.target.username });
    expect(item.resource).toBeNull();
  });

  it('pages with limit and offset, refuses limit above 100 and unknown statuses', async () => {
    await freshReport();
    await freshReport();
    const page = (await queue(p.moderator, '?limit=1&offset=1')).json() as {
      reports: Detail[];
      meta: object;
    };
    expect(page.reports).toHaveLength(1);
    expect(page.meta).toMatchObject({ limit: 1, offset: 1 });
    expectError(await queue(p.moderator, '?limit=101'), 400);
    expectError(await queue(p.moderator, '?status=OPEN'), 400);
  });
});

describe('GET /reports/moderation/:reportId', () => {
  it('shows reporter, reported user with previousReports and the history', async () => {
    const target = await createUser(t.app);
    const [a, b, c] = await Promise.all([createUser(t.app), createUser(t.app), createUser(t.app)]);
    const earlier = await reportOf(t.app, a, target);
    await moderateOk(t.app, p.moderator, earlier, { action: 'DISMISS' });
    await reportOf(t.app, b, target);
    await reportOf(t.app, target, c); // by the target: not against them
    const id = await reportOf(t.app, c, target, { reason: 'CHEATING', evidence: 'replay.mp4' });
    await moderateOk(t.app, p.moderator, id, { action: 'TAKE_UNDER_REVIEW', moderatorNotes: 'checking' });
    t.clock.advance(5000);
    await moderateOk(t.app, p.admin, id, {
      action: 'RESOLVE',
      resolution: 'Cheats confirmed',
      userAction: 'WARNING',
    });

    const response = await detail(p.moderator, id);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json() as Detail;
    expect(body).toMatchObject({
      id,
      reason: 'CHEATING',
      evidence: 'replay.mp4',
      status: 'RESOLVED',
      resolution: 'Cheats confirmed',
      userAction: 'WARNING',
      suspensionDays: null,
      moderatedBy: p.admin.id,
      resource: null,
    });
    expect(body.reporter).toMatchObject({ id: c.id, username: c.username });
    expect(body.reportedUser).toMatchObject({
      id: target.id,
      username: target.username,
      role: 'USER',
      status: 'ACTIVE',
      previousReports: 2,
    });
    expect(
      body.history.map((entry) => [entry.action, entry.fromStatus, entry.toStatus, entry.moderator?.id]),
    ).toEqual([
      ['TAKE_UNDER_REVIEW', 'PENDING', 'UNDER_REVIEW', p.moderator.id],
      ['RESOLVE', 'UNDER_REVIEW', 'RESOLVED', p.admin.id],
    ]);
    expect(body.history[1]!.userAction).toBe('WARNING');
    expect(body.history[0]!.note).toBe('checking');
  });

  it('answers 404 for an unknown report', async () => {
    expectError(await detail(p.moderator, '0190aaaa-0000-7000-8000-000000000000'), 404);
  });
});

describe('DELETE /reports/moderation/:reportId', () => {
  it.each(['admin', 'superAdmin'] as const)(
    'lets a %s delete a report and its history for good',
    async (persona) => {
      const { id, reporter } = await freshReport();
      await moderateOk(t.app, p.moderator, id, { action: 'TAKE_UNDER_REVIEW' });
      const response = await purge(p[persona], id);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual({ message: 'Report deleted permanently' });
      expectError(await detail(p.moderator, id), 404);
      expectError(
        await t.app.inject({ method: 'GET', url: `/reports/${id}`, headers: reporter.headers }),
        404,
      );
      const events = await t.app.context.database.db
        .selectFrom('report_events')
        .select('id')
        .where('report_id', '=', id)
        .execute();
      expect(events).toEqual([]);
      expectError(await purge(p[persona], id), 404);
    },
  );

  it('refuses moderators and users (403) and anonymous callers (401)', async () => {
    const { id, reporter } = await freshReport();
    expectError(await purge(p.moderator, id), 403);
    expectError(await purge(p.user, id), 403);
    expectError(await purge(reporter, id), 403);
    expectError(await t.app.inject({ method: 'DELETE', url: `/reports/moderation/${id}` }), 401);
    expect((await getReport(t.app, reporter, id)).status).toBe('PENDING');
  });

  it('refuses an admin deleting a report about them or filed by them (403)', async () => {
    const other = await createUser(t.app);
    const aboutAdmin = await reportOf(t.app, other, p.admin);
    expectError(await purge(p.admin, aboutAdmin), 403);
    const byAdmin = await reportOf(t.app, p.admin, other);
    expectError(await purge(p.admin, byAdmin), 403);
    expect((await purge(p.superAdmin, aboutAdmin)).statusCode).toBe(200);
  });
});
