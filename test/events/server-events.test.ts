// server.* events (spec/extensions.md §1.1): each create, edit, moderation, transfer, deletion and online flip
// through the HTTP API records exactly one event, in the transaction of the change, placed by the server as it
// is after the change.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createPersonas } from '../helpers/factories.js';
import type { Personas, TestUser } from '../helpers/factories.js';
import {
  catalogs,
  createApprovedServer,
  createServer,
  moderate,
  recomputeRanks,
  reportStatus,
} from '../servers/helpers.js';
import type { CatalogRef } from '../servers/helpers.js';
import { createCast, createStaffedTeam } from '../teams/helpers.js';
import type { TeamBody, TeamCast } from '../teams/helpers.js';
import { eventRows, withTableAway } from './helpers/event-rows.js';
import type { EventRows } from './helpers/event-rows.js';

let t: TestApp;
let p: Personas;
let cast: TeamCast;
let team: TeamBody;
let seeded: { tags: CatalogRef[]; categories: CatalogRef[] };
let recorded: EventRows;

beforeAll(async () => {
  t = await buildTestApp();
  p = await createPersonas(t.app);
  cast = await createCast(t.app);
  team = await createStaffedTeam(t.app, cast);
  seeded = await catalogs(t.app);
  recorded = eventRows(t.app);
});
afterAll(async () => t.close());

const now = () => t.clock.now().toISOString();

/** The placement columns of a server event as the server's owner and public flag decide them. */
const placedUnder = (
  serverId: string,
  owner: { userId?: string; teamId?: string },
  subjectPublic: boolean,
) => ({
  subject_kind: 'server',
  subject_id: serverId,
  resource_id: null,
  version_id: null,
  server_id: serverId,
  team_id: owner.teamId ?? null,
  user_id: owner.userId ?? null,
  audience: 'SUBJECT',
  audience_user_id: null,
  subject_public: subjectPublic,
});

async function patch(serverId: string, by: TestUser, payload: Record<string, unknown>) {
  const response = await t.app.inject({
    method: 'PATCH',
    url: `/servers/${serverId}`,
    headers: by.headers,
    payload,
  });
  expect(response.statusCode, response.body).toBe(200);
}

describe('server.created', () => {
  it('records the new PENDING server under its user owner, not public', async () => {
    t.clock.advance(60_000);
    const server = await createServer(t.app, p.user);
    expect(await recorded.only('server.created', server.id)).toMatchObject({
      created_at: now(),
      actor_id: p.user.id,
      actor_username: p.user.username,
      data: { name: server.name, slug: server.slug, status: 'PENDING' },
      ...placedUnder(server.id, { userId: p.user.id }, false),
    });
  });

  it('places a team-owned server under the team', async () => {
    const server = await createServer(t.app, cast.admin, { ownerType: 'TEAM', ownerId: team.id });
    expect(await recorded.only('server.created', server.id)).toMatchObject({
      actor_id: cast.admin.id,
      ...placedUnder(server.id, { teamId: team.id }, false),
    });
  });
});

describe('server.updated', () => {
  it('lists the API fields that changed, placed by the (public) APPROVED server', async () => {
    const server = await createApprovedServer(t.app, p.user, p.moderator, { tagIds: [seeded.tags[0]!.id] });
    t.clock.advance(60_000);
    await patch(server.id, p.user, {
      name: 'Renamed',
      port: server.port,
      ip: server.ip,
      tagIds: [seeded.tags[1]!.id],
      categoryIds: [],
    });
    expect(await recorded.only('server.updated', server.id)).toMatchObject({
      created_at: now(),
      actor_id: p.user.id,
      data: { name: 'Renamed', slug: server.slug, status: 'APPROVED', changed: ['name', 'tagIds'] },
      ...placedUnder(server.id, { userId: p.user.id }, true),
    });
  });

  it('records nothing, and writes nothing, for a PATCH whose values are those already stored', async () => {
    const server = await createServer(t.app, p.user, {
      shortDescription: 'Short',
      tagIds: [seeded.tags[2]!.id],
      categoryIds: [seeded.categories[0]!.id],
    });
    t.clock.advance(60_000);
    await patch(server.id, p.user, {
      name: server.name,
      shortDescription: 'Short',
      description: '',
      tagIds: [seeded.tags[2]!.id],
      categoryIds: [seeded.categories[0]!.id],
    });
    expect(await recorded.where({ type: 'server.updated', subjectId: server.id })).toEqual([]);
    const row = await t.app.context.database.db
      .selectFrom('servers')
      .select('updated_at')
      .where('id', '=', server.id)
      .executeTakeFirstOrThrow();
    expect(new Date(row.updated_at).toISOString()).toBe(server.updatedAt);
  });

  it('records the resubmission of a REJECTED server with its new PENDING status', async () => {
    const server = await createServer(t.app, p.user);
    await moderate(t.app, p.moderator, server.id, 'reject', { reason: 'Wrong address' });
    await patch(server.id, p.user, { ip: 'fixed.example.com' });
    expect(await recorded.only('server.updated', server.id)).toMatchObject({
      data: { status: 'PENDING', changed: ['ip'] },
      subject_public: false,
    });
  });
});

describe('server.moderated', () => {
  it('records each action with its statuses and reason, public only while APPROVED', async () => {
    const server = await createServer(t.app, p.user);
    t.clock.advance(60_000);
    await moderate(t.app, p.moderator, server.id, 'approve');
    await moderate(t.app, p.moderator, server.id, 'suspend', { reason: 'Griefing', notes: 'internal note' });
    await moderate(t.app, p.moderator, server.id, 'approve');
    await moderate(t.app, p.moderator, server.id, 'reject', { reason: 'Gone' });
    const events = await recorded.where({ type: 'server.moderated', subjectId: server.id });
    expect(events.map((event) => [event.data, event.subject_public])).toEqual([
      [{ action: 'APPROVE', fromStatus: 'PENDING', toStatus: 'APPROVED', reason: null }, true],
      [{ action: 'SUSPEND', fromStatus: 'APPROVED', toStatus: 'SUSPENDED', reason: 'Griefing' }, false],
      [{ action: 'APPROVE', fromStatus: 'SUSPENDED', toStatus: 'APPROVED', reason: null }, true],
      [{ action: 'REJECT', fromStatus: 'APPROVED', toStatus: 'REJECTED', reason: 'Gone' }, false],
    ]);
    expect(events[0]).toMatchObject({
      created_at: now(),
      actor_id: p.moderator.id,
      actor_username: p.moderator.username,
      ...placedUnder(server.id, { userId: p.user.id }, true),
    });
  });

  it('records nothing when the transaction fails after the event was written', async () => {
    const server = await createServer(t.app, p.user);
    // The history row is written after the event: its failure must take the event back.
    await withTableAway(t.app, 'server_moderation_events', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: `/servers/moderation/${server.id}/approve`,
        headers: p.moderator.headers,
        payload: {},
      });
      expect(response.statusCode).toBe(500);
    });
    const row = await t.app.context.database.db
      .selectFrom('servers')
      .select('status')
      .where('id', '=', server.id)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('PENDING');
    expect(await recorded.types({ serverId: server.id })).toEqual(['server.created']);
  });
});

describe('server.transferred', () => {
  it('records the old and the new owner, placed under the new owner', async () => {
    const server = await createApprovedServer(t.app, cast.admin, p.moderator);
    t.clock.advance(60_000);
    const response = await t.app.inject({
      method: 'POST',
      url: `/servers/${server.id}/transfer-ownership`,
      headers: cast.admin.headers,
      payload: { newOwnerId: team.id, ownerType: 'TEAM' },
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(await recorded.only('server.transferred', server.id)).toMatchObject({
      created_at: now(),
      actor_id: cast.admin.id,
      data: {
        from: { ownerType: 'USER', ownerId: cast.admin.id },
        to: { ownerType: 'TEAM', ownerId: team.id },
      },
      ...placedUnder(server.id, { teamId: team.id }, true),
    });
  });
});

describe('server.deleted', () => {
  it('records one event for the server and none for what goes with it', async () => {
    const server = await createApprovedServer(t.app, cast.owner, p.moderator, {
      ownerType: 'TEAM',
      ownerId: team.id,
      tagIds: [seeded.tags[3]!.id],
    });
    t.clock.advance(60_000);
    const response = await t.app.inject({
      method: 'DELETE',
      url: `/servers/${server.id}`,
      headers: cast.owner.headers,
    });
    expect(response.statusCode, response.body).toBe(204);
    expect(await recorded.only('server.deleted', server.id)).toMatchObject({
      created_at: now(),
      actor_id: cast.owner.id,
      data: { name: server.name, slug: server.slug, status: 'APPROVED' },
      ...placedUnder(server.id, { teamId: team.id }, true),
    });
    expect(await recorded.types({ serverId: server.id })).toEqual([
      'server.created',
      'server.moderated',
      'server.deleted',
    ]);
  });
});

describe('server.went_online and server.went_offline', () => {
  it('records each flip of a reported status, and nothing while it stays the same', async () => {
    const server = await createApprovedServer(t.app, p.user, p.moderator);
    t.clock.advance(60_000);
    await reportStatus(t.app, p.user, server.id, { online: true, onlinePlayers: 5, maxPlayers: 50 });
    expect(await recorded.only('server.went_online', server.id)).toMatchObject({
      created_at: now(),
      actor_id: p.user.id,
      data: { onlinePlayers: 5, maxPlayers: 50 },
      ...placedUnder(server.id, { userId: p.user.id }, true),
    });
    await reportStatus(t.app, p.user, server.id, { online: true, onlinePlayers: 9, maxPlayers: 50 });
    await reportStatus(t.app, p.user, server.id, { online: false, onlinePlayers: 0, maxPlayers: 50 });
    await reportStatus(t.app, p.user, server.id, { online: false, onlinePlayers: 0, maxPlayers: 50 });
    expect(await recorded.only('server.went_offline', server.id)).toMatchObject({
      actor_id: p.user.id,
      data: { cause: 'REPORTED' },
    });
    expect(await recorded.only('server.went_online', server.id)).toBeDefined();
  });

  it('records a server that stops reporting going offline, with no actor', async () => {
    const server = await createServer(t.app, p.user);
    await reportStatus(t.app, p.user, server.id, { online: true, onlinePlayers: 1, maxPlayers: 10 });
    // Dated when the 3 minutes ran out, not when the job noticed.
    const boundary = new Date(t.clock.now().getTime() + 3 * 60_000).toISOString();
    t.clock.advance(10 * 60_000 + 1);
    await recomputeRanks(t.app);
    expect(await recorded.only('server.went_offline', server.id)).toMatchObject({
      created_at: boundary,
      actor_id: null,
      actor_username: null,
      data: { cause: 'SILENT' },
      ...placedUnder(server.id, { userId: p.user.id }, false),
    });
    await recomputeRanks(t.app);
    expect(await recorded.where({ type: 'server.went_offline', subjectId: server.id })).toHaveLength(1);
  });
});
