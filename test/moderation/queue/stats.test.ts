// GET /moderation/stats (spec/extensions.md §4): exact counts, medians and 90th percentiles against a history
// built through the API under a manual clock, the 7- and 30-day windows at their exact ends, and the one-minute
// cache.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { median, p90, summarize } from '../../../src/modules/moderation/queue/queue.service.js';
import { buildTestApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { createUser } from '../../helpers/factories.js';
import type { TestUser } from '../../helpers/factories.js';
import { bringTo, moderateOk, reportOf } from '../../reports/helpers.js';
import { createResource, moderate as moderateResource } from '../../resources/helpers.js';
import { createServer, moderate as moderateServer } from '../../servers/helpers.js';
import { act, versionIn } from '../../versions/helpers.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

interface KindStats {
  pending: number;
  reviewedLast7Days: number;
  medianReviewSeconds30d: number | null;
  p90ReviewSeconds30d: number | null;
}
type Stats = Record<'versions' | 'resources' | 'servers' | 'reports', KindStats>;

describe('review time summaries (pure)', () => {
  it('median is the middle value, or the mean of the two middle values', () => {
    expect(median([])).toBeNull();
    expect(median([5])).toBe(5);
    expect(median([1, 2, 3])).toBe(2);
    expect(median([1, 2, 3, 10])).toBe(2.5);
  });

  it('p90 is the nearest rank', () => {
    expect(p90([])).toBeNull();
    expect(p90([7])).toBe(7);
    expect(p90([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])).toBe(9);
    expect(p90([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11])).toBe(10);
  });

  it('the 7-day count includes a decision exactly 7 days old and not one a millisecond older', () => {
    const now = Date.parse('2026-06-10T00:00:00.000Z');
    const at = (ms: number) => new Date(ms).toISOString();
    const rows = [
      { entered_at: at(now - 7 * DAY - HOUR), decided_at: at(now - 7 * DAY) },
      { entered_at: at(now - 7 * DAY - HOUR), decided_at: at(now - 7 * DAY - 1) },
      { entered_at: null, decided_at: at(now - DAY) },
    ];
    expect(summarize(rows, now)).toEqual({
      reviewedLast7Days: 2,
      medianReviewSeconds30d: 3600,
      p90ReviewSeconds30d: 3600,
    });
  });
});

describe('GET /moderation/stats', () => {
  let t: TestApp;
  let owner: TestUser;
  let moderator: TestUser;
  /** A fixed start after the real time the accounts were made at. */
  let t0: number;
  const set = (ms: number) => t.clock.set(new Date(ms));

  async function stats(): Promise<Stats> {
    const response = await t.app.inject({ method: 'GET', url: '/moderation/stats' });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['cache-control']).toBe('public, max-age=60');
    return response.json() as Stats;
  }

  beforeAll(async () => {
    t = await buildTestApp();
    [owner, moderator] = await Promise.all([createUser(t.app), createUser(t.app, { role: 'MODERATOR' })]);
    t0 = Math.ceil((Date.now() + DAY) / DAY) * DAY;
  });

  // About 40 requests: a few seconds alone, more on a machine busy with other suites.
  beforeAll(async () => {
    // Resources. Reviews: R1 1 h, R2 3 h then (resubmitted at +5 h) 2 h, R3 4 h, R5 1 h; R5's later approval
    // from REJECTED is no review. R4 stays pending.
    set(t0);
    const [r1, r2, r3, , r5] = [
      await createResource(t.app, owner),
      await createResource(t.app, owner),
      await createResource(t.app, owner),
      await createResource(t.app, owner),
      await createResource(t.app, owner),
    ];
    set(t0 + HOUR);
    await moderateResource(t.app, moderator, r1!.id, 'APPROVE');
    await moderateResource(t.app, moderator, r5!.id, 'REJECT', 'No');
    set(t0 + 2 * HOUR);
    await moderateResource(t.app, moderator, r5!.id, 'APPROVE');
    set(t0 + 3 * HOUR);
    await moderateResource(t.app, moderator, r2!.id, 'REJECT', 'Fix it');
    set(t0 + 4 * HOUR);
    await moderateResource(t.app, moderator, r3!.id, 'SUSPEND', 'Spam');
    set(t0 + 5 * HOUR);
    const edit = await t.app.inject({
      method: 'PATCH',
      url: `/resources/${r2!.id}`,
      headers: owner.headers,
      payload: { name: 'Fixed' },
    });
    expect(edit.json()).toMatchObject({ status: 'PENDING' });
    set(t0 + 7 * HOUR);
    await moderateResource(t.app, moderator, r2!.id, 'APPROVE');

    // Versions of an approved resource. Reviews: V1 2 h; V2 1 h, then resubmitted at +10 h and approved 30 min
    // later; V3 stays pending.
    const host = r1!.id;
    set(t0);
    const actors = { editor: owner, moderator };
    const v1 = await versionIn(t.app, actors, host, 'PENDING');
    const v2 = await versionIn(t.app, actors, host, 'PENDING');
    await versionIn(t.app, actors, host, 'PENDING');
    set(t0 + HOUR);
    await act(t.app, moderator, host, v2.id, 'reject', { reason: 'Broken' });
    set(t0 + 2 * HOUR);
    await act(t.app, moderator, host, v1.id, 'approve');
    set(t0 + 10 * HOUR);
    await act(t.app, owner, host, v2.id, 'resubmit');
    set(t0 + 10 * HOUR + HOUR / 2);
    await act(t.app, moderator, host, v2.id, 'approve');

    // Servers. Reviews: S1 1 h; S2 2 h, then (owner edit at +3 h) suspended 6 h later. S3 stays pending.
    set(t0);
    const s1 = await createServer(t.app, owner);
    const s2 = await createServer(t.app, owner);
    await createServer(t.app, owner);
    set(t0 + HOUR);
    await moderateServer(t.app, moderator, s1.id, 'approve');
    set(t0 + 2 * HOUR);
    await moderateServer(t.app, moderator, s2.id, 'reject');
    set(t0 + 3 * HOUR);
    const serverEdit = await t.app.inject({
      method: 'PATCH',
      url: `/servers/${s2.id}`,
      headers: owner.headers,
      payload: { name: 'Fixed server' },
    });
    expect(serverEdit.json()).toMatchObject({ status: 'PENDING' });
    set(t0 + 9 * HOUR);
    await moderateServer(t.app, moderator, s2.id, 'suspend');

    // Reports. Reviews: P1 taken under review at +1 h (no decision) and resolved at +5 h; P2 dismissed at +1 h.
    // P3 stays PENDING and P4 UNDER_REVIEW: both are waiting.
    set(t0);
    const targets = await Promise.all([1, 2, 3, 4].map(() => createUser(t.app)));
    const [p1, p2, , p4] = [
      await reportOf(t.app, owner, targets[0]!),
      await reportOf(t.app, owner, targets[1]!),
      await reportOf(t.app, owner, targets[2]!),
      await reportOf(t.app, owner, targets[3]!),
    ];
    set(t0 + HOUR);
    await moderateOk(t.app, moderator, p1!, { action: 'TAKE_UNDER_REVIEW' });
    await moderateOk(t.app, moderator, p2!, { action: 'DISMISS' });
    await bringTo(t.app, moderator, p4!, 'UNDER_REVIEW');
    set(t0 + 5 * HOUR);
    await moderateOk(t.app, moderator, p1!, { action: 'RESOLVE' });
  }, 120_000);

  afterAll(async () => {
    await t.close();
  });

  it('counts, medians and 90th percentiles match the history exactly', async () => {
    set(t0 + DAY);
    expect(await stats()).toEqual({
      // [1, 1, 2, 3, 4] h
      resources: {
        pending: 1,
        reviewedLast7Days: 5,
        medianReviewSeconds30d: 7200,
        p90ReviewSeconds30d: 14400,
      },
      // [0.5, 1, 2] h
      versions: { pending: 1, reviewedLast7Days: 3, medianReviewSeconds30d: 3600, p90ReviewSeconds30d: 7200 },
      // [1, 2, 6] h
      servers: { pending: 1, reviewedLast7Days: 3, medianReviewSeconds30d: 7200, p90ReviewSeconds30d: 21600 },
      // [1, 5] h
      reports: {
        pending: 2,
        reviewedLast7Days: 2,
        medianReviewSeconds30d: 10800,
        p90ReviewSeconds30d: 18000,
      },
    });
  });

  it('the 7-day window keeps a decision exactly 7 days old and drops it after', async () => {
    // The first resource decisions (R1 approved, R5 rejected) were at t0 + 1 h.
    set(t0 + HOUR + 7 * DAY);
    expect((await stats()).resources.reviewedLast7Days).toBe(5);
    set(t0 + HOUR + 7 * DAY + 60_000);
    const later = await stats();
    expect(later.resources).toMatchObject({ reviewedLast7Days: 3, medianReviewSeconds30d: 7200 });
    // V2's rejection at t0 + 1 h leaves as well; V1 (+2 h) and V2's approval (+10.5 h) stay.
    expect(later.versions.reviewedLast7Days).toBe(2);
  });

  it('the 30-day window keeps a decision exactly 30 days old and drops it after', async () => {
    set(t0 + HOUR + 30 * DAY);
    expect((await stats()).resources).toEqual({
      pending: 1,
      reviewedLast7Days: 0,
      medianReviewSeconds30d: 7200,
      p90ReviewSeconds30d: 14400,
    });
    // R1 and R5 (1 h each) leave: [2, 3, 4] h.
    set(t0 + HOUR + 30 * DAY + 60_000);
    expect((await stats()).resources).toMatchObject({
      medianReviewSeconds30d: 10800,
      p90ReviewSeconds30d: 14400,
    });
    // Nothing decided in the last 30 days: no times.
    set(t0 + 11 * HOUR + 30 * DAY + 60_000);
    const empty = await stats();
    for (const kind of ['resources', 'versions', 'servers', 'reports'] as const) {
      expect(empty[kind]).toMatchObject({
        reviewedLast7Days: 0,
        medianReviewSeconds30d: null,
        p90ReviewSeconds30d: null,
      });
    }
    expect(empty.reports.pending).toBe(2);
  });

  it('is computed at most once a minute: a change shows once the minute has passed', async () => {
    const start = t0 + 40 * DAY;
    set(start);
    const before = await stats();
    await createResource(t.app, owner);
    set(start + 59_999);
    expect((await stats()).resources.pending).toBe(before.resources.pending);
    set(start + 60_000);
    expect((await stats()).resources.pending).toBe(before.resources.pending + 1);
  });

  it('answers with an ETag and 304 to If-None-Match while nothing changed', async () => {
    const first = await t.app.inject({ method: 'GET', url: '/moderation/stats' });
    const etag = first.headers['etag'];
    expect(typeof etag).toBe('string');
    const again = await t.app.inject({
      method: 'GET',
      url: '/moderation/stats',
      headers: { 'if-none-match': etag as string },
    });
    expect(again.statusCode).toBe(304);
  });
});
