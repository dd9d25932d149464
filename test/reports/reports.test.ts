// User reports from the reporter's side: filing, the one-open-report rule, reading, listing and cancelling.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createPersonas, createUser } from '../helpers/factories.js';
import type { Personas, TestUser } from '../helpers/factories.js';
import { expectError } from '../helpers/http.js';
import { bringTo, expectReportCounters, fileUserReport, getReport, moderateOk, reportOf } from './helpers.js';
import type { ReportBody } from './helpers.js';

const USER_REASONS = ['HARASSMENT', 'SPAM', 'INAPPROPRIATE_CONTENT', 'IMPERSONATION', 'CHEATING', 'OTHER'];

let t: TestApp;
let p: Personas;

beforeAll(async () => {
  t = await buildTestApp();
  p = await createPersonas(t.app);
});
afterAll(async () => t.close());
afterEach(async () => expectReportCounters(t.app));

const cancel = (by: TestUser | null, reportId: string) =>
  t.app.inject({ method: 'DELETE', url: `/reports/${reportId}`, headers: by?.headers ?? {} });
const myReports = (by: TestUser, query = '') =>
  t.app.inject({ method: 'GET', url: `/reports/me${query}`, headers: by.headers });

describe('POST /reports/users/:userId', () => {
  it('files a PENDING report and answers the interface shape', async () => {
    const [reporter, target] = await Promise.all([createUser(t.app), createUser(t.app)]);
    const response = await fileUserReport(t.app, reporter, target.id, {
      reason: 'HARASSMENT',
      description: 'Insults in chat',
      evidence: 'https://img.example/screenshot.png',
    });
    expect(response.statusCode, response.body).toBe(201);
    const body = response.json() as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(
      ['createdAt', 'id', 'reason', 'reportedUserId', 'reporterId', 'status'].sort(),
    );
    expect(body).toMatchObject({
      reporterId: reporter.id,
      reportedUserId: target.id,
      reason: 'HARASSMENT',
      status: 'PENDING',
      createdAt: t.clock.now().toISOString(),
    });
    const stored = await getReport(t.app, reporter, body['id'] as string);
    expect(stored).toMatchObject({
      targetType: 'USER',
      description: 'Insults in chat',
      evidence: 'https://img.example/screenshot.png',
      resourceId: null,
      resourceType: null,
      resolution: null,
      moderatorNotes: null,
      moderatedBy: null,
      moderatedAt: null,
    });
  });

  it.each(USER_REASONS)('accepts the reason %s', async (reason) => {
    const [reporter, target] = await Promise.all([createUser(t.app), createUser(t.app)]);
    const response = await fileUserReport(t.app, reporter, target.id, { reason, description: 'details' });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json().reason).toBe(reason);
  });

  it.each(['MALICIOUS', 'REUPLOADED_WORK', 'spam', ''])('rejects the reason "%s" (400)', async (reason) => {
    expectError(await fileUserReport(t.app, p.user, p.stranger.id, { reason }), 400, 'INVALID_REQUEST');
  });

  it('needs a reason (400)', async () => {
    expectError(await fileUserReport(t.app, p.user, p.stranger.id, { description: 'x' }), 400);
  });

  it.each([{}, { description: '' }, { description: '   ' }])(
    'refuses OTHER without a description (%j) with 400',
    async (extra) => {
      const target = await createUser(t.app);
      const body = expectError(
        await fileUserReport(t.app, p.user, target.id, { reason: 'OTHER', ...extra }),
        400,
        'INVALID_REQUEST',
      );
      expect(JSON.stringify(body.details)).toContain('description');
    },
  );

  it('refuses a report about yourself with 400 SELF_REPORT', async () => {
    expectError(await fileUserReport(t.app, p.user, p.user.id), 400, 'SELF_REPORT');
  });

  it('answers 404 for an unknown user', async () => {
    expectError(
      await fileUserReport(t.app, p.user, '0190aaaa-0000-7000-8000-000000000000'),
      404,
      'NOT_FOUND',
    );
  });

  it('answers 404 for a banned user', async () => {
    const target = await createUser(t.app);
    const ban = await t.app.inject({
      method: 'PATCH',
      url: `/admin/users/${target.id}`,
      headers: p.admin.headers,
      payload: { status: 'BANNED' },
    });
    expect(ban.statusCode).toBe(200);
    expectError(await fileUserReport(t.app, p.user, target.id), 404);
  });

  it('answers 401 without credentials', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: `/reports/users/${p.user.id}`,
      payload: { reason: 'SPAM' },
    });
    expectError(response, 401, 'UNAUTHORIZED');
  });

  it('drops unknown body fields instead of applying them', async () => {
    const target = await createUser(t.app);
    const response = await fileUserReport(t.app, p.user, target.id, {
      reason: 'SPAM',
      status: 'RESOLVED',
      moderatorNotes: 'forged',
    });
    expect(response.statusCode).toBe(201);
    const stored = await getReport(t.app, p.user, response.json().id);
    expect(stored.status).toBe('PENDING');
    expect(stored.moderatorNotes).toBeNull();
  });
});

describe('one open report per reporter and target', () => {
  it.each(['PENDING', 'UNDER_REVIEW'] as const)(
    'a second report while the first is %s is 409',
    async (status) => {
      const [reporter, target] = await Promise.all([createUser(t.app), createUser(t.app)]);
      const first = await reportOf(t.app, reporter, target);
      await bringTo(t.app, p.moderator, first, status);
      expectError(
        await fileUserReport(t.app, reporter, target.id, { reason: 'CHEATING' }),
        409,
        'REPORT_ALREADY_OPEN',
      );
    },
  );

  it.each(['RESOLVED', 'DISMISSED'] as const)(
    'a new report is allowed once the first is %s',
    async (status) => {
      const [reporter, target] = await Promise.all([createUser(t.app), createUser(t.app)]);
      const first = await reportOf(t.app, reporter, target);
      await bringTo(t.app, p.moderator, first, status);
      expect((await fileUserReport(t.app, reporter, target.id)).statusCode).toBe(201);
    },
  );

  it('a new report is allowed after cancelling the first', async () => {
    const [reporter, target] = await Promise.all([createUser(t.app), createUser(t.app)]);
    const first = await reportOf(t.app, reporter, target);
    expect((await cancel(reporter, first)).statusCode).toBe(200);
    expect((await fileUserReport(t.app, reporter, target.id)).statusCode).toBe(201);
  });

  it('other reporters may report the same user at the same time', async () => {
    const target = await createUser(t.app);
    const reporters = await Promise.all([createUser(t.app), createUser(t.app), createUser(t.app)]);
    for (const reporter of reporters)
      expect((await fileUserReport(t.app, reporter, target.id)).statusCode).toBe(201);
  });

  it('10 identical reports sent at once: exactly one is filed, nine get 409', async () => {
    const [reporter, target] = await Promise.all([createUser(t.app), createUser(t.app)]);
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => fileUserReport(t.app, reporter, target.id)),
    );
    const statuses = responses.map((response) => response.statusCode).sort();
    expect(statuses).toEqual([201, ...Array<number>(9).fill(409)]);
    for (const response of responses.filter((r) => r.statusCode === 409)) {
      expectError(response, 409, 'REPORT_ALREADY_OPEN');
    }
    const rows = await t.app.context.database.db
      .selectFrom('reports')
      .select('id')
      .where('reporter_id', '=', reporter.id)
      .execute();
    expect(rows).toHaveLength(1);
  });
});

describe('GET /reports/me', () => {
  it('lists only your reports, newest first, with total and meta', async () => {
    const reporter = await createUser(t.app);
    const targets = await Promise.all([createUser(t.app), createUser(t.app), createUser(t.app)]);
    const ids: string[] = [];
    for (const target of targets) {
      ids.push(await reportOf(t.app, reporter, target));
      t.clock.advance(1000);
    }
    await reportOf(t.app, p.stranger, targets[0]!);
    const response = await myReports(reporter);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json() as { reports: ReportBody[]; total: number; meta: Record<string, number> };
    expect(body.reports.map((report) => report.id)).toEqual([...ids].reverse());
    expect(body.total).toBe(3);
    expect(body.meta).toEqual({ total: 3, limit: 20, offset: 0 });
    expect(body.reports.every((report) => report.reporterId === reporter.id)).toBe(true);
  });

  it('pages with limit and offset', async () => {
    const reporter = await createUser(t.app);
    const targets = await Promise.all([createUser(t.app), createUser(t.app), createUser(t.app)]);
    const ids: string[] = [];
    for (const target of targets) {
      ids.push(await reportOf(t.app, reporter, target));
      t.clock.advance(1000);
    }
    const body = (await myReports(reporter, '?limit=1&offset=1')).json();
    expect(body.reports.map((report: ReportBody) => report.id)).toEqual([ids[1]]);
    expect(body.meta).toEqual({ total: 3, limit: 1, offset: 1 });
  });

  it('is empty for someone who never reported', async () => {
    const quiet = await createUser(t.app);
    expect((await myReports(quiet)).json()).toEqual({
      reports: [],
      total: 0,
      meta: { total: 0, limit: 20, offset: 0 },
    });
  });

  it('refuses limit above 100 (400) and anonymous callers (401)', async () => {
    expectError(await myReports(p.user, '?limit=101'), 400);
    expectError(await t.app.inject({ method: 'GET', url: '/reports/me' }), 401);
  });
});

describe('GET /reports/:reportId', () => {
  it('shows the reporter the moderator notes and resolution', async () => {
    const [reporter, target] = await Promise.all([createUser(t.app), createUser(t.app)]);
    const id = await reportOf(t.app, reporter, target);
    await moderateOk(t.app, p.moderator, id, {
      action: 'RESOLVE',
      resolution: 'Warned the user',
      moderatorNotes: 'Chat logs confirm it',
    });
    const report = await getReport(t.app, reporter, id);
    expect(report).toMatchObject({
      status: 'RESOLVED',
      resolution: 'Warned the user',
      moderatorNotes: 'Chat logs confirm it',
      moderatedBy: p.moderator.id,
      moderatedAt: t.clock.now().toISOString(),
    });
  });

  it.each(['moderator', 'admin', 'superAdmin'] as const)('shows any report to a %s', async (persona) => {
    const id = await reportOf(t.app, await createUser(t.app), await createUser(t.app));
    expect((await getReport(t.app, p[persona], id)).id).toBe(id);
  });

  it('hides a report from other users (404), the reported user included', async () => {
    const [reporter, target] = await Promise.all([createUser(t.app), createUser(t.app)]);
    const id = await reportOf(t.app, reporter, target);
    for (const other of [p.stranger, target]) {
      expectError(await t.app.inject({ method: 'GET', url: `/reports/${id}`, headers: other.headers }), 404);
    }
  });

  it('answers 404 for an unknown report and 401 without credentials', async () => {
    expectError(
      await t.app.inject({
        method: 'GET',
        url: '/reports/0190aaaa-0000-7000-8000-000000000000',
        headers: p.user.headers,
      }),
      404,
    );
    const id = await reportOf(t.app, await createUser(t.app), await createUser(t.app));
    expectError(await t.app.inject({ method: 'GET', url: `/reports/${id}` }), 401);
  });
});

describe('DELETE /reports/:reportId', () => {
  it('lets the reporter cancel a PENDING report: it is gone afterwards', async () => {
    const [reporter, target] = await Promise.all([createUser(t.app), createUser(t.app)]);
    const id = await reportOf(t.app, reporter, target);
    const response = await cancel(reporter, id);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ message: 'Report cancelled' });
    expectError(await t.app.inject({ method: 'GET', url: `/reports/${id}`, headers: reporter.headers }), 404);
    expectError(await cancel(reporter, id), 404);
  });

  it.each(['UNDER_REVIEW', 'RESOLVED', 'DISMISSED'] as const)(
    'refuses to cancel a %s report (409)',
    async (status) => {
      const [reporter, target] = await Promise.all([createUser(t.app), createUser(t.app)]);
      const id = await reportOf(t.app, reporter, target);
      await bringTo(t.app, p.moderator, id, status);
      expectError(await cancel(reporter, id), 409, 'INVALID_STATUS_TRANSITION');
      expect((await getReport(t.app, reporter, id)).status).toBe(status);
    },
  );

  it('answers 404 to other users and 403 to moderators who did not file it', async () => {
    const [reporter, target] = await Promise.all([createUser(t.app), createUser(t.app)]);
    const id = await reportOf(t.app, reporter, target);
    expectError(await cancel(p.stranger, id), 404);
    expectError(await cancel(target, id), 404);
    expectError(await cancel(p.moderator, id), 403);
    expectError(await cancel(p.admin, id), 403);
    expectError(await cancel(null, id), 401);
    expect((await getReport(t.app, reporter, id)).status).toBe('PENDING');
  });
});
