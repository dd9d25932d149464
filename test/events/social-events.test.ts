// report.*, badge.* and user.followed events (spec/extensions.md §1.1) recorded through the HTTP API. Report
// events are placed under their reporter alone; badge and follow events under the user they are about.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createPersonas, createUser } from '../helpers/factories.js';
import type { Personas, TestUser } from '../helpers/factories.js';
import { awardOk, createBadge, revoke } from '../badges/helpers.js';
import { fileResourceReport, insertResource, moderateOk, reportOf } from '../reports/helpers.js';
import { eventRows } from './helpers/event-rows.js';
import type { EventRows } from './helpers/event-rows.js';

let t: TestApp;
let p: Personas;
let recorded: EventRows;

beforeAll(async () => {
  t = await buildTestApp();
  p = await createPersonas(t.app);
  recorded = eventRows(t.app);
});
afterAll(async () => t.close());

const now = () => t.clock.now().toISOString();

const noPlacementBut = (placement: Record<string, unknown>) => ({
  resource_id: null,
  version_id: null,
  server_id: null,
  team_id: null,
  user_id: null,
  ...placement,
});

describe('report.created', () => {
  it('records a user report under its reporter only, never under the reported user', async () => {
    const [reporter, reported] = await Promise.all([createUser(t.app), createUser(t.app)]);
    t.clock.advance(60_000);
    const reportId = await reportOf(t.app, reporter, reported, {
      reason: 'HARASSMENT',
      description: 'private',
    });
    const events = await recorded.where({ subjectId: reportId });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'report.created',
      created_at: now(),
      actor_id: reporter.id,
      actor_username: reporter.username,
      subject_kind: 'report',
      data: { targetType: 'USER', resourceId: null, reportedUserId: reported.id, reason: 'HARASSMENT' },
      ...noPlacementBut({ user_id: reporter.id }),
      audience: 'REPORT',
      audience_user_id: reporter.id,
      subject_public: false,
    });
    expect(Object.keys(events[0]!.data).sort()).toEqual([
      'reason',
      'reportedUserId',
      'resourceId',
      'targetType',
    ]);
    expect(await recorded.where({ userId: reported.id })).toEqual([]);
  });

  it('records a resource report without placing it under the resource', async () => {
    const [reporter, author] = await Promise.all([createUser(t.app), createUser(t.app)]);
    const resource = await insertResource(t.app, { type: 'USER', id: author.id });
    const response = await fileResourceReport(t.app, reporter, resource.id, { reason: 'MALICIOUS' });
    expect(response.statusCode, response.body).toBe(201);
    const reportId = (response.json() as { id: string }).id;
    const [event, ...others] = await recorded.where({ subjectId: reportId });
    expect(others).toEqual([]);
    expect(event).toMatchObject({
      type: 'report.created',
      data: { targetType: 'RESOURCE', resourceId: resource.id, reportedUserId: null, reason: 'MALICIOUS' },
      ...noPlacementBut({ user_id: reporter.id }),
      audience_user_id: reporter.id,
    });
    expect(await recorded.where({ userId: author.id })).toEqual([]);
  });
});

describe('report.updated', () => {
  it('records each moderator action with the statuses it moved between', async () => {
    const [reporter, reported] = await Promise.all([createUser(t.app), createUser(t.app)]);
    const reportId = await reportOf(t.app, reporter, reported);
    t.clock.advance(60_000);
    await moderateOk(t.app, p.moderator, reportId, { action: 'TAKE_UNDER_REVIEW' });
    await moderateOk(t.app, p.moderator, reportId, { action: 'DISMISS', resolution: 'Not spam' });
    const events = await recorded.where({ subjectId: reportId, type: 'report.updated' });
    expect(events.map((event) => event.data)).toEqual([
      { fromStatus: 'PENDING', toStatus: 'UNDER_REVIEW' },
      { fromStatus: 'UNDER_REVIEW', toStatus: 'DISMISSED' },
    ]);
    expect(events[0]).toMatchObject({
      created_at: now(),
      actor_id: p.moderator.id,
      subject_kind: 'report',
      ...noPlacementBut({ user_id: reporter.id }),
      audience: 'REPORT',
      audience_user_id: reporter.id,
      subject_public: false,
    });
  });

  it('records nothing for an action the status machine refuses (409)', async () => {
    const [reporter, reported] = await Promise.all([createUser(t.app), createUser(t.app)]);
    const reportId = await reportOf(t.app, reporter, reported);
    await moderateOk(t.app, p.moderator, reportId, { action: 'RESOLVE' });
    const refused = await t.app.inject({
      method: 'PATCH',
      url: `/reports/moderation/${reportId}`,
      headers: p.moderator.headers,
      payload: { action: 'DISMISS' },
    });
    expect(refused.statusCode).toBe(409);
    expect(await recorded.where({ subjectId: reportId, type: 'report.updated' })).toHaveLength(1);
  });
});

describe('badge.awarded and badge.revoked', () => {
  it('records an award and a revocation about the user, with the badge id and slug', async () => {
    const [badge, holder] = await Promise.all([createBadge(t.app, p.admin), createUser(t.app)]);
    t.clock.advance(60_000);
    await awardOk(t.app, p.moderator, badge.id, holder.id, 'For testing');
    const [awarded] = await recorded.where({ subjectId: holder.id, type: 'badge.awarded' });
    expect(await recorded.where({ subjectId: holder.id, type: 'badge.awarded' })).toHaveLength(1);
    expect(awarded).toMatchObject({
      created_at: now(),
      actor_id: p.moderator.id,
      subject_kind: 'user',
      data: { badgeId: badge.id, badgeSlug: badge.slug },
      ...noPlacementBut({ user_id: holder.id }),
      audience: 'SUBJECT',
      audience_user_id: null,
      subject_public: true,
    });
    t.clock.advance(60_000);
    expect((await revoke(t.app, p.admin, badge.id, holder.id)).statusCode).toBe(200);
    const revoked = await recorded.where({ subjectId: holder.id, type: 'badge.revoked' });
    expect(revoked).toHaveLength(1);
    expect(revoked[0]).toMatchObject({
      created_at: now(),
      actor_id: p.admin.id,
      data: { badgeId: badge.id, badgeSlug: badge.slug },
      ...noPlacementBut({ user_id: holder.id }),
      subject_public: true,
    });
  });

  it('records nothing for a refused award or revocation', async () => {
    const [badge, holder] = await Promise.all([createBadge(t.app, p.admin), createUser(t.app)]);
    await awardOk(t.app, p.moderator, badge.id, holder.id);
    const again = await t.app.inject({
      method: 'POST',
      url: '/badges/award',
      headers: p.moderator.headers,
      payload: { badgeId: badge.id, userId: holder.id },
    });
    expect(again.statusCode).toBe(409);
    expect((await revoke(t.app, p.admin, badge.id, p.stranger.id)).statusCode).toBe(404);
    expect(await recorded.types({ subjectId: holder.id })).toEqual(['badge.awarded']);
    expect(await recorded.where({ subjectId: p.stranger.id, type: 'badge.revoked' })).toEqual([]);
  });
});

describe('user.followed', () => {
  function follow(by: TestUser, userId: string, method: 'POST' | 'DELETE' = 'POST') {
    return t.app.inject({ method, url: `/users/${userId}/follow`, headers: by.headers });
  }

  it('records a new follow about the followed user; following again and unfollowing record nothing', async () => {
    const [follower, followed] = await Promise.all([createUser(t.app), createUser(t.app)]);
    t.clock.advance(60_000);
    expect((await follow(follower, followed.id)).statusCode).toBe(200);
    const at = now();
    t.clock.advance(60_000);
    expect((await follow(follower, followed.id)).statusCode).toBe(200);
    expect((await follow(follower, followed.id, 'DELETE')).statusCode).toBe(200);
    const events = await recorded.where({ subjectId: followed.id });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'user.followed',
      created_at: at,
      actor_id: follower.id,
      actor_username: follower.username,
      subject_kind: 'user',
      data: { followerId: follower.id },
      ...noPlacementBut({ user_id: followed.id }),
      audience: 'SUBJECT',
      audience_user_id: null,
      subject_public: true,
    });
    expect(await recorded.where({ subjectId: follower.id })).toEqual([]);
  });
});
