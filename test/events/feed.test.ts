// GET /events (spec/extensions.md §1.1) through the real app: the cursor (oldest first after `after`, nextCursor),
// limits, the type and subject filters, the 1,000-row scan budget, the settle window, the event object, pings
// never listed, the OpenAPI entry, and the outbox: an event exists only if its transaction committed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordEvent } from '../../src/core/events/record.js';
import type { NewEvent } from '../../src/core/events/record.js';
import { newId } from '../../src/core/ids.js';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import type { TestUser } from '../helpers/factories.js';
import { loadOpenApi } from '../helpers/openapi.js';
import { startReceiver } from '../helpers/webhook-receiver.js';
import type { Receiver } from '../helpers/webhook-receiver.js';
import { createResource, moderate } from '../resources/helpers.js';
import { createServer } from '../servers/helpers.js';
import { addMember, createTeam } from '../teams/helpers.js';
import { createVersion, uploadFile } from '../versions/helpers.js';
import { newestEventId, readAllEvents, readEvents, requestEvents } from './helpers/feed.js';
import type { EventBody } from './helpers/feed.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let t: TestApp;
let owner: TestUser;
let stranger: TestUser;
let moderator: TestUser;
let admin: TestUser;
let receiver: Receiver;

beforeAll(async () => {
  t = await buildTestApp({ OUTBOUND_ALLOW_PRIVATE: 'true', EVENT_FEED_SETTLE_MS: '0' });
  [owner, stranger] = await Promise.all([createUser(t.app), createUser(t.app)]);
  moderator = await createUser(t.app, { role: 'MODERATOR' });
  admin = await createUser(t.app, { role: 'ADMIN' });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});

const db = () => t.app.context.database.db;

/** A public event about a user (as a follow records it), written straight into the log. */
function publicUserEvent(userId: string, overrides: Partial<NewEvent> = {}): NewEvent {
  return {
    type: 'user.followed',
    at: t.clock.now().toISOString(),
    actorId: null,
    subjectId: userId,
    data: { followerId: newId() },
    placement: { userId, subjectPublic: true },
    ...overrides,
  };
}

async function recordPublicEvents(count: number, userId = owner.id): Promise<string[]> {
  return db()
    .transaction()
    .execute(async (trx) => {
      const ids: string[] = [];
      for (let i = 0; i < count; i += 1) ids.push(await recordEvent(trx, publicUserEvent(userId)));
      return ids;
    });
}

const idsOf = (events: EventBody[]) => events.map((event) => event.id);
const typesOf = (events: EventBody[]) => events.map((event) => event.type);

describe('the cursor', () => {
  it('lists events oldest first after `after`, and nextCursor is the last id returned', async () => {
    const mark = await newestEventId(t.app);
    const ids = await recordPublicEvents(3);
    const first = await readEvents(t.app, null, { after: mark, limit: 2 });
    expect(idsOf(first.events)).toEqual(ids.slice(0, 2));
    expect(first.nextCursor).toBe(ids[1]);
    const second = await readEvents(t.app, null, { after: first.nextCursor!, limit: 2 });
    expect(idsOf(second.events)).toEqual([ids[2]]);
    expect(second.nextCursor).toBe(ids[2]);
  });

  it('gives back the given `after` when nothing is new, and null when there was no `after` and nothing', async () => {
    const mark = (await newestEventId(t.app))!;
    expect(await readEvents(t.app, null, { after: mark })).toEqual({ events: [], nextCursor: mark });
    // An invisible event after the mark changes nothing for the public: the cursor stays where it was.
    const hidden = await createResource(t.app, owner);
    expect(await readEvents(t.app, null, { after: mark })).toEqual({ events: [], nextCursor: mark });
    expect(await readEvents(t.app, null, { resourceId: hidden.id })).toEqual({
      events: [],
      nextCursor: null,
    });
    expect(await readEvents(t.app, null, { userId: newId() })).toEqual({ events: [], nextCursor: null });
  });

  it('starts at the beginning of the log without `after`', async () => {
    const page = await readEvents(t.app, admin, { limit: 1 });
    const oldest = await db()
      .selectFrom('events')
      .select('id')
      .orderBy('id')
      .limit(1)
      .executeTakeFirstOrThrow();
    expect(idsOf(page.events)).toEqual([oldest.id]);
  });

  it('rejects an `after` that is not an event id', async () => {
    for (const after of ['yesterday', '123', 'x'.repeat(36)]) {
      const response = await requestEvents(t.app, null, { after });
      expect(response.statusCode, after).toBe(400);
      expect(response.json()).toMatchObject({ statusCode: 400 });
    }
  });
});

describe('limit', () => {
  it('defaults to 50, allows up to 100 and refuses 0 or more than 100', async () => {
    const mark = await newestEventId(t.app);
    const ids = await recordPublicEvents(120);
    expect(idsOf((await readEvents(t.app, null, { after: mark })).events)).toEqual(ids.slice(0, 50));
    expect(idsOf((await readEvents(t.app, null, { after: mark, limit: 100 })).events)).toEqual(
      ids.slice(0, 100),
    );
    expect(idsOf((await readEvents(t.app, null, { after: mark, limit: 7 })).events)).toEqual(ids.slice(0, 7));
    for (const limit of [0, 101, -1]) {
      expect((await requestEvents(t.app, null, { after: mark, limit })).statusCode, String(limit)).toBe(400);
    }
  });
});

describe('the types filter', () => {
  it('takes repeated and comma-separated types, and refuses unknown types and the ping', async () => {
    const mark = await newestEventId(t.app);
    const resource = await createResource(t.app, owner);
    const version = await createVersion(t.app, owner, resource.id);
    await uploadFile(t.app, owner, resource.id, version.id);
    const all = await readAllEvents(t.app, owner, { after: mark });
    expect(typesOf(all)).toEqual(['resource.created', 'version.created', 'file.uploaded']);

    const repeated = await readEvents(t.app, owner, {
      after: mark,
      types: ['resource.created', 'file.uploaded'],
    });
    expect(typesOf(repeated.events)).toEqual(['resource.created', 'file.uploaded']);
    const commas = await readEvents(t.app, owner, { after: mark, types: 'file.uploaded,version.created' });
    expect(typesOf(commas.events)).toEqual(['version.created', 'file.uploaded']);

    for (const types of ['resource.exploded', 'webhook.ping', 'resource.created,nope']) {
      const response = await requestEvents(t.app, owner, { after: mark, types });
      expect(response.statusCode, types).toBe(400);
    }
    // An empty or blank list is no filter (it used to be IN () on PostgreSQL: a 500 the fuzzer found).
    for (const types of ['', ' ', ',']) {
      const response = await requestEvents(t.app, owner, { after: mark, types });
      expect(response.statusCode, JSON.stringify(types)).toBe(200);
      expect(typesOf((response.json() as { events: EventBody[] }).events)).toEqual(typesOf(all));
    }
  });
});

describe('the subject filters', () => {
  it('lists the events whose subject is or belongs to the resource, server, team or user', async () => {
    const member = await createUser(t.app);
    const team = await createTeam(t.app, owner);
    await addMember(t.app, team.id, owner, member, 'MEMBER');
    const mine = await createResource(t.app, owner);
    const version = await createVersion(t.app, owner, mine.id);
    const file = await uploadFile(t.app, owner, mine.id, version.id);
    const teams = await createResource(t.app, owner, { ownerType: 'TEAM', ownerId: team.id });
    const teamVersion = await createVersion(t.app, member, teams.id);
    const server = await createServer(t.app, owner);
    const teamServer = await createServer(t.app, owner, { ownerType: 'TEAM', ownerId: team.id });
    const follow = await t.app.inject({
      method: 'POST',
      url: `/users/${owner.id}/follow`,
      headers: stranger.headers,
    });
    expect(follow.statusCode, follow.body).toBeLessThan(300);

    const subjects = (events: EventBody[]) => events.map((event) => `${event.type} ${event.subject.id}`);
    // A version's and its files' events are under its resource.
    expect(subjects(await readAllEvents(t.app, owner, { resourceId: mine.id }))).toEqual([
      `resource.created ${mine.id}`,
      `version.created ${version.id}`,
      `file.uploaded ${file.id}`,
    ]);
    expect(subjects(await readAllEvents(t.app, owner, { serverId: server.id }))).toEqual([
      `server.created ${server.id}`,
    ]);
    // The team's own events, and those of what it owns.
    expect(subjects(await readAllEvents(t.app, member, { teamId: team.id }))).toEqual([
      `team.member_added ${team.id}`,
      `team.invitation_created ${team.id}`,
      `team.invitation_responded ${team.id}`,
      `team.member_added ${team.id}`,
      `resource.created ${teams.id}`,
      `version.created ${teamVersion.id}`,
      `server.created ${teamServer.id}`,
    ]);
    // The user's own things and the events about the user, not the team's.
    expect(subjects(await readAllEvents(t.app, owner, { userId: owner.id }))).toEqual(
      expect.arrayContaining([
        `resource.created ${mine.id}`,
        `version.created ${version.id}`,
        `file.uploaded ${file.id}`,
        `server.created ${server.id}`,
        `user.followed ${owner.id}`,
      ]),
    );
    const ownersEvents = subjects(await readAllEvents(t.app, admin, { userId: owner.id }));
    expect(ownersEvents.filter((entry) => entry.includes(teams.id) || entry.includes(team.id))).toEqual([]);

    // A filter narrows what the caller may see; it never widens it.
    expect(await readAllEvents(t.app, null, { resourceId: mine.id })).toEqual([]);
    expect(await readAllEvents(t.app, stranger, { teamId: team.id, types: 'resource.created' })).toEqual([]);
    expect(subjects(await readAllEvents(t.app, null, { userId: owner.id }))).toEqual(
      expect.arrayContaining([`user.followed ${owner.id}`]),
    );
    expect(
      subjects(await readAllEvents(t.app, null, { userId: owner.id })).every((s) => !s.includes(mine.id)),
    ).toBe(true);
  });
});

describe('the scan budget', () => {
  it('stops after 1,000 rows the caller may not see with fewer events than asked and a cursor that moves on', async () => {
    const hidden = await createResource(t.app, owner);
    const mark = (await newestEventId(t.app))!;
    const [invisible, visible] = await db()
      .transaction()
      .execute(async (trx) => {
        const ids: string[] = [];
        for (let i = 0; i < 1005; i += 1) {
          ids.push(
            await recordEvent(trx, {
              type: 'resource.updated',
              at: t.clock.now().toISOString(),
              actorId: null,
              subjectId: hidden.id,
              data: { changed: ['name'] },
              placement: { resourceId: hidden.id, userId: owner.id, subjectPublic: false },
            }),
          );
        }
        return [ids, await recordEvent(trx, publicUserEvent(stranger.id))] as const;
      });

    const first = await readEvents(t.app, null, { after: mark, limit: 50 });
    expect(first.events).toEqual([]);
    // Exactly the budget was examined: the cursor sits on the 1,000th hidden event.
    expect(first.nextCursor).toBe(invisible[999]);
    const second = await readEvents(t.app, null, { after: first.nextCursor!, limit: 50 });
    expect(idsOf(second.events)).toEqual([visible]);
    expect(second.nextCursor).toBe(visible);

    // The owner sees the hidden ones: a full page from the same place.
    const owners = await readEvents(t.app, owner, { after: mark, limit: 100 });
    expect(idsOf(owners.events)).toEqual(invisible.slice(0, 100));
    expect(owners.nextCursor).toBe(invisible[99]);
  });
});

/** Moves an event's id back in time by `ms` (its UUIDv7 timestamp), keeping the rest of the id. */
async function ageEventId(app: TestApp, id: string, ms: number): Promise<string> {
  const hex = id.replaceAll('-', '');
  const moved = (parseInt(hex.slice(0, 12), 16) - ms).toString(16).padStart(12, '0') + hex.slice(12);
  const aged = [
    moved.slice(0, 8),
    moved.slice(8, 12),
    moved.slice(12, 16),
    moved.slice(16, 20),
    moved.slice(20),
  ];
  await app.app.context.database.db
    .updateTable('events')
    .set({ id: aged.join('-') })
    .where('id', '=', id)
    .execute();
  return aged.join('-');
}

describe('the settle window', () => {
  it('holds back events younger than EVENT_FEED_SETTLE_MS, and the cursor never passes them', async () => {
    const settled = await buildTestApp({ EVENT_FEED_SETTLE_MS: '60000' });
    try {
      const { db: settledDb } = settled.app.context.database;
      const user = await createUser(settled.app);
      const mark = await newestEventId(settled.app);
      const [older, fresh] = await settledDb
        .transaction()
        .execute(async (trx) => [
          await recordEvent(trx, { ...publicUserEvent(user.id), at: settled.clock.now().toISOString() }),
          await recordEvent(trx, { ...publicUserEvent(user.id), at: settled.clock.now().toISOString() }),
        ]);
      const page = await readEvents(settled.app, null, { after: mark });
      expect(page.events).toEqual([]);
      expect(page.nextCursor).toBe(mark ?? null);

      // An id two minutes old is past the window; the one of "now" stays held back, after the cursor.
      const aged = await ageEventId(settled, older!, 120_000);
      const listed = await readEvents(settled.app, null);
      expect(idsOf(listed.events)).toContain(aged);
      expect(idsOf(listed.events)).not.toContain(fresh);
      expect(listed.nextCursor! < fresh!).toBe(true);
    } finally {
      await settled.close();
    }
  });

  it('defaults to 1 s on PostgreSQL and to none on SQLite', async () => {
    const plain = await buildTestApp();
    try {
      const user = await createUser(plain.app);
      const mark = await newestEventId(plain.app);
      const [recorded] = await recordEventsIn(plain, [publicUserEvent(user.id)]);
      // Its id put ten seconds ahead: well inside a one-second window however slow this machine is.
      const id = await ageEventId(plain, recorded!, -10_000);
      const page = await readEvents(plain.app, null, mark === undefined ? {} : { after: mark });
      if (plain.app.context.database.dialect === 'postgres') {
        expect(page.events).toEqual([]);
        // Once its id is a few seconds old, it is listed.
        const aged = await ageEventId(plain, id, 15_000);
        const later = await readEvents(plain.app, null, mark === undefined ? {} : { after: mark });
        expect(idsOf(later.events)).toEqual([aged]);
      } else {
        expect(idsOf(page.events)).toEqual([id]);
      }
    } finally {
      await plain.close();
    }
  });
});

async function recordEventsIn(app: TestApp, events: NewEvent[]): Promise<string[]> {
  return app.app.context.database.db.transaction().execute(async (trx) => {
    const ids: string[] = [];
    for (const event of events) ids.push(await recordEvent(trx, event));
    return ids;
  });
}

describe('the event object', () => {
  it('has id, type, createdAt, actor {id, username}, subject {kind, id} and data', async () => {
    const mark = await newestEventId(t.app);
    const resource = await createResource(t.app, owner);
    t.clock.advance(60_000);
    await moderate(t.app, moderator, resource.id, 'APPROVE');
    const [event] = (await readEvents(t.app, null, { after: mark, types: 'resource.moderated' })).events;
    expect(Object.keys(event!).sort()).toEqual(['actor', 'createdAt', 'data', 'id', 'subject', 'type']);
    expect(event).toEqual({
      id: expect.stringMatching(UUID) as string,
      type: 'resource.moderated',
      createdAt: t.clock.now().toISOString(),
      actor: { id: moderator.id, username: moderator.username },
      subject: { kind: 'resource', id: resource.id },
      data: { action: 'APPROVE', fromStatus: 'PENDING', toStatus: 'APPROVED', reason: null },
    });
  });

  it('has a null actor for changes nobody made', async () => {
    const mark = await newestEventId(t.app);
    const [id] = await recordPublicEvents(1);
    const [event] = (await readEvents(t.app, null, { after: mark })).events;
    expect(event).toMatchObject({ id, actor: null, subject: { kind: 'user', id: owner.id } });
  });
});

describe('webhook pings', () => {
  it('are never listed, not even to the webhook creator or an admin', async () => {
    const mark = await newestEventId(t.app);
    const created = await t.app.inject({
      method: 'POST',
      url: '/webhooks',
      headers: owner.headers,
      payload: { url: receiver.url, events: ['*'], scope: { kind: 'USER' } },
    });
    expect(created.statusCode, created.body).toBe(201);
    const { id } = created.json() as { id: string };
    const ping = await t.app.inject({ method: 'POST', url: `/webhooks/${id}/ping`, headers: owner.headers });
    expect(ping.statusCode, ping.body).toBe(202);
    const pings = await db().selectFrom('events').select('id').where('type', '=', 'webhook.ping').execute();
    expect(pings.length).toBeGreaterThan(0);
    for (const reader of [owner, admin, null]) {
      expect(typesOf(await readAllEvents(t.app, reader, { after: mark }))).not.toContain('webhook.ping');
    }
  });
});

describe('the outbox', () => {
  it('keeps no event of a transaction that failed after recording it (both databases)', async () => {
    const count = async () =>
      Number(
        (
          await db()
            .selectFrom('events')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await count();
    const mark = await newestEventId(t.app);
    let recorded: string | undefined;
    await expect(
      db()
        .transaction()
        .execute(async (trx) => {
          recorded = await recordEvent(trx, publicUserEvent(owner.id));
          // The change after the event fails: a duplicate primary key, as a lost race would.
          await recordEvent(trx, publicUserEvent(owner.id));
          await trx
            .insertInto('events')
            .values({
              id: recorded,
              type: 'user.followed',
              created_at: t.clock.now().toISOString(),
              actor_id: null,
              actor_username: null,
              subject_kind: 'user',
              subject_id: owner.id,
              data: '{}',
              resource_id: null,
              version_id: null,
              server_id: null,
              team_id: null,
              user_id: owner.id,
              audience: 'SUBJECT',
              audience_user_id: null,
              subject_public: true,
              dispatched_at: null,
            })
            .execute();
        }),
    ).rejects.toThrow();
    expect(recorded).toMatch(UUID);
    expect(await count()).toBe(before);
    expect(await db().selectFrom('events').select('id').where('id', '=', recorded!).execute()).toEqual([]);
    expect(await readEvents(t.app, admin, mark === undefined ? {} : { after: mark })).toMatchObject({
      events: [],
    });
  });
});

describe('OpenAPI', () => {
  it('documents GET /events with its query and the event list', async () => {
    const document = await loadOpenApi(t.app);
    const operation = document.paths['/events']?.['get'] as
      (Record<string, unknown> & { parameters?: Array<{ name: string; in: string }> }) | undefined;
    expect(operation).toBeDefined();
    expect(operation!['operationId']).toBe('listEvents');
    expect(
      operation!.parameters
        ?.filter((p) => p.in === 'query')
        .map((p) => p.name)
        .sort(),
    ).toEqual(['after', 'limit', 'resourceId', 'serverId', 'teamId', 'types', 'userId'].sort());
    expect(Object.keys(operation!['responses'] as object)).toEqual(expect.arrayContaining(['200', '400']));
  });
});
