// The acceptance test of events and webhooks (spec/extensions.md §1.1–1.2): a webhook never delivers, and
// GET /events never shows, an event its reader could not see. One scenario produces every event type a route
// records today; every persona then reads the whole log through /events, and every persona with an account
// receives, through real webhooks on 127.0.0.1, what its widest scopes carry. The expectations come from a
// plain statement of the rules below, over a model of the world the scenario keeps (walk-scenario.ts), never
// from the code under test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUBSCRIBABLE_EVENT_TYPES } from '../../src/core/events/catalogue.js';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { startReceiver } from '../helpers/webhook-receiver.js';
import type { Receiver } from '../helpers/webhook-receiver.js';
import { readAllEvents } from './helpers/feed.js';
import type { EventBody } from './helpers/feed.js';
import { PERSONAS, createPersonasAndTeam, produceEvents } from './helpers/walk-scenario.js';
import type { AccountPersona, Gone, Owner, Persona, World } from './helpers/walk-scenario.js';
import type { DeliveryOutcome } from '../../src/modules/webhooks/delivery/worker.js';

/**
 * Types no route records yet (votes: §3), or that need a peer this walk does not start (file.infected needs clamd;
 * test/versions/scanning/ shows it to moderators only). Remove an entry when the walk produces it.
 */
const NOT_PRODUCED_YET = ['server.voted', 'file.infected'];

let t: TestApp;
let world: World;
/** Every event of the scenario, as the log holds it, oldest first. */
let universe: EventBody[];
const receivers = new Map<AccountPersona, Receiver>();
let outcomes: DeliveryOutcome[];

const ACCOUNT_PERSONAS = PERSONAS.filter((name): name is AccountPersona => name !== 'anonymous');

beforeAll(async () => {
  t = await buildTestApp({ OUTBOUND_ALLOW_PRIVATE: 'true', EVENT_FEED_SETTLE_MS: '0' });
  world = await createPersonasAndTeam(t.app);
  // The webhooks exist before the events they carry: USER for everyone, TEAM for the team's OWNER and ADMIN,
  // PLATFORM for the admin. One receiver per persona, one path per scope.
  for (const name of ACCOUNT_PERSONAS) {
    const receiver = await startReceiver(`/${name}`);
    receivers.set(name, receiver);
    const scopes: Array<{ path: string; scope: Record<string, string> }> = [
      { path: 'user', scope: { kind: 'USER' } },
    ];
    if (name === 'admin') scopes.push({ path: 'platform', scope: { kind: 'PLATFORM' } });
    if (name === 'teamOwner' || name === 'teamAdmin') {
      scopes.push({ path: 'team', scope: { kind: 'TEAM', id: world.teamId } });
    }
    for (const { path, scope } of scopes) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/webhooks',
        headers: world.users[name].headers,
        payload: { url: `${receiver.url}/${path}`, events: ['*'], scope },
      });
      expect(response.statusCode, `${name} ${path}: ${response.body}`).toBe(201);
    }
  }
  await produceEvents(t.app, world);
  const rows = await t.app.context.database.db
    .selectFrom('events')
    .select(['id', 'type', 'subject_kind', 'subject_id', 'data'])
    .where('type', '!=', 'webhook.ping')
    .orderBy('id')
    .execute();
  universe = rows.map((row) => ({
    id: row.id,
    type: row.type,
    createdAt: '',
    actor: null,
    subject: { kind: row.subject_kind, id: row.subject_id },
    data: JSON.parse(row.data) as Record<string, unknown>,
  }));
  outcomes = await t.app.webhookWorker.drain();
}, 180_000);

afterAll(async () => {
  for (const receiver of receivers.values()) await receiver.close();
  await t?.close();
});

// ---- The rules, stated plainly (spec/extensions.md §1.1) ----

const STAFF: ReadonlySet<Persona> = new Set(['moderator', 'admin']);
const PUBLIC_VERSION: ReadonlySet<string> = new Set(['APPROVED', 'ARCHIVED']);

const userOf = (persona: Persona) => (persona === 'anonymous' ? null : world.users[persona]);

function teamRoleOf(persona: Persona, teamId: string) {
  const user = userOf(persona);
  return user === null ? undefined : world.teams.get(teamId)?.get(user.id);
}

function isOwner(persona: Persona, owner: Owner): boolean {
  const user = userOf(persona);
  if (user === null) return false;
  return 'userId' in owner ? owner.userId === user.id : teamRoleOf(persona, owner.teamId) !== undefined;
}

const recordedPublic = (gone: Gone, eventId: string) =>
  gone.publicFrom !== null && eventId >= gone.publicFrom;

/** Resource, version and file events: public while the resource (and version) are; else the owner side. */
function canSeeResourceEvent(persona: Persona, event: EventBody): boolean {
  const resourceId =
    event.subject.kind === 'resource' ? event.subject.id : (event.data['resourceId'] as string);
  const versionId =
    event.subject.kind === 'version'
      ? event.subject.id
      : event.subject.kind === 'file'
        ? (event.data['versionId'] as string)
        : null;
  const resource = world.resources.get(resourceId);
  if (resource === undefined) throw new Error(`The model lacks resource ${resourceId} of ${event.type}`);
  let isPublic: boolean;
  if (resource.gone !== undefined) isPublic = recordedPublic(resource.gone, event.id);
  else if (resource.status !== 'APPROVED') isPublic = false;
  else if (versionId === null) isPublic = true;
  else {
    const version = world.versions.get(versionId);
    if (version === undefined) throw new Error(`The model lacks version ${versionId} of ${event.type}`);
    isPublic =
      version.gone !== undefined
        ? recordedPublic(version.gone, event.id)
        : PUBLIC_VERSION.has(version.status);
  }
  const user = userOf(persona);
  // Contributors go with a deleted resource; its recorded owner side stays.
  const contributes = resource.gone === undefined && user !== null && resource.contributors.has(user.id);
  return isPublic || isOwner(persona, resource.owner) || contributes;
}

function canSeeServerEvent(persona: Persona, event: EventBody): boolean {
  const server = world.servers.get(event.subject.id);
  if (server === undefined) throw new Error(`The model lacks server ${event.subject.id}`);
  if (server.gone !== undefined) {
    const recordedOwner = ownerAt(server.owners, event.id);
    return recordedPublic(server.gone, event.id) || isOwner(persona, recordedOwner);
  }
  return server.status === 'APPROVED' || isOwner(persona, server.owners.at(-1)!.owner);
}

const ownerAt = (owners: Array<{ from: string; owner: Owner }>, eventId: string): Owner =>
  owners.filter((entry) => entry.from <= eventId).at(-1)!.owner;

/**
 * moderation.message_posted: those who read the thread — the owner side (a resource's contributors too) —
 * never the public, even of an APPROVED subject; an internal message's event only moderators (checked by caller).
 */
function canReadThread(persona: Persona, event: EventBody): boolean {
  const serverId = event.data['serverId'] as string | undefined;
  if (serverId !== undefined) {
    const server = world.servers.get(serverId)!;
    const owner = server.gone !== undefined ? ownerAt(server.owners, event.id) : server.owners.at(-1)!.owner;
    return isOwner(persona, owner);
  }
  const resource = world.resources.get(event.data['resourceId'] as string)!;
  const user = userOf(persona);
  const contributes = resource.gone === undefined && user !== null && resource.contributors.has(user.id);
  return isOwner(persona, resource.owner) || contributes;
}

/** The owner of a thread message's subject when it was posted. */
function threadOwner(event: EventBody): Owner {
  const serverId = event.data['serverId'] as string | undefined;
  if (serverId !== undefined) return ownerAt(world.servers.get(serverId)!.owners, event.id);
  return world.resources.get(event.data['resourceId'] as string)!.owner;
}

/** The independent statement of who may read an event. */
function expectedVisible(persona: Persona, event: EventBody): boolean {
  const staff = STAFF.has(persona);
  const family = event.type.split('.')[0]!;
  if (event.type.startsWith('team.invitation_')) {
    // The team's OWNER and ADMIN, the invitee, and platform admins (who run PLATFORM webhooks).
    const role = teamRoleOf(persona, event.subject.id);
    return (
      persona === 'admin' ||
      role === 'OWNER' ||
      role === 'ADMIN' ||
      userOf(persona)?.id === event.data['inviteeId']
    );
  }
  switch (family) {
    case 'report':
      // The reporter and moderators: never the reported user.
      return staff || world.reporters.get(event.subject.id) === userOf(persona)?.id;
    case 'team':
    case 'badge':
    case 'user':
      // Teams and users are public.
      return true;
    case 'resource':
    case 'version':
    case 'file':
      return staff || canSeeResourceEvent(persona, event);
    case 'server':
      return staff || canSeeServerEvent(persona, event);
    case 'moderation':
      return staff || (event.data['internal'] !== true && canReadThread(persona, event));
    default:
      throw new Error(`No rule for ${event.type}`);
  }
}

/** Events of the persona's own subjects (a USER webhook's scope), by who owned what when it happened. */
function ownedByUser(persona: AccountPersona, event: EventBody): boolean {
  const userId = world.users[persona].id;
  const family = event.type.split('.')[0]!;
  if (event.type.startsWith('team.invitation_')) return event.data['inviteeId'] === userId;
  switch (family) {
    case 'report':
      return world.reporters.get(event.subject.id) === userId;
    case 'badge':
    case 'user':
      return event.subject.id === userId;
    case 'team':
      return false;
    case 'server': {
      const owner = ownerAt(world.servers.get(event.subject.id)!.owners, event.id);
      return 'userId' in owner && owner.userId === userId;
    }
    case 'moderation': {
      const owner = threadOwner(event);
      return 'userId' in owner && owner.userId === userId;
    }
    default: {
      const resourceId =
        event.subject.kind === 'resource' ? event.subject.id : (event.data['resourceId'] as string);
      const owner = world.resources.get(resourceId)!.owner;
      return 'userId' in owner && owner.userId === userId;
    }
  }
}

/** Events of the team and of what it owned when they happened (a TEAM webhook's scope). */
function ownedByTeam(teamId: string, event: EventBody): boolean {
  const family = event.type.split('.')[0]!;
  const isTeam = (owner: Owner) => 'teamId' in owner && owner.teamId === teamId;
  switch (family) {
    case 'team':
      return event.subject.id === teamId;
    case 'server':
      return isTeam(ownerAt(world.servers.get(event.subject.id)!.owners, event.id));
    case 'moderation':
      return isTeam(threadOwner(event));
    case 'resource':
    case 'version':
    case 'file': {
      const resourceId =
        event.subject.kind === 'resource' ? event.subject.id : (event.data['resourceId'] as string);
      return isTeam(world.resources.get(resourceId)!.owner);
    }
    default:
      return false;
  }
}

const expectedFor = (persona: Persona) =>
  universe.filter((event) => expectedVisible(persona, event)).map((event) => `${event.type} ${event.id}`);
const labelled = (events: EventBody[]) => events.map((event) => `${event.type} ${event.id}`);

/** What a persona's receiver got on one scope's path, as event objects. */
function delivered(persona: AccountPersona, path: string): EventBody[] {
  return receivers
    .get(persona)!
    .received.filter((request) => request.path === `/${persona}/${path}`)
    .map((request) => JSON.parse(request.body) as EventBody);
}

// ---- The walk ----

describe('the scenario', () => {
  it('produces every subscribable event type except those no route records yet', () => {
    const produced = new Set(universe.map((event) => event.type));
    const missing = SUBSCRIBABLE_EVENT_TYPES.filter(
      (type) => !produced.has(type) && !NOT_PRODUCED_YET.includes(type),
    );
    expect(missing, 'types neither produced nor listed in NOT_PRODUCED_YET').toEqual([]);
    // An exception that a route now records must leave the list (and be walked).
    expect(NOT_PRODUCED_YET.filter((type) => produced.has(type))).toEqual([]);
    expect(NOT_PRODUCED_YET.every((type) => SUBSCRIBABLE_EVENT_TYPES.includes(type as never))).toBe(true);
  });

  it('is a walk with teeth: every persona is refused something, and the public most of all', () => {
    for (const persona of PERSONAS.filter((name) => name !== 'admin')) {
      expect(expectedFor(persona).length, persona).toBeLessThan(universe.length);
    }
    expect(expectedFor('admin')).toHaveLength(universe.length);
    // Among them, the three examples.
    const hidden = (persona: Persona, type: string) =>
      universe.some((event) => event.type === type && !expectedVisible(persona, event));
    expect(hidden('anonymous', 'version.approved'), "a rejected resource's version").toBe(true);
    expect(hidden('reportedUser', 'report.created'), 'a report, to the reported user').toBe(true);
    expect(hidden('teamMember', 'team.invitation_created'), 'an invitation, to other members').toBe(true);
    // And the threads': an internal message, to the owner side; an ordinary one, to the public.
    expect(hidden('teamOwner', 'moderation.message_posted'), 'an internal thread message').toBe(true);
    const threadEvents = universe.filter((event) => event.type === 'moderation.message_posted');
    expect(
      threadEvents.some((event) => event.data['internal'] === true && expectedVisible('admin', event)),
    ).toBe(true);
    expect(threadEvents.every((event) => !expectedVisible('anonymous', event))).toBe(true);
  });
});

describe('GET /events', () => {
  it.each(PERSONAS)('shows %s exactly the events they may see', async (persona) => {
    const events = await readAllEvents(t.app, userOf(persona));
    expect(labelled(events)).toEqual(expectedFor(persona));
  });
});

describe('webhooks', () => {
  it('sent every delivery it did not drop as hidden, and dropped some', () => {
    const results = new Set(outcomes.map((outcome) => outcome.result));
    expect([...results].sort()).toEqual(['hidden', 'succeeded']);
  });

  it.each(ACCOUNT_PERSONAS)('deliver to %s only what they may see', (persona) => {
    const visible = new Set(expectedFor(persona));
    const all = receivers.get(persona)!.received.map((request) => JSON.parse(request.body) as EventBody);
    expect(labelled(all).filter((entry) => !visible.has(entry))).toEqual([]);
  });

  it.each(ACCOUNT_PERSONAS)(
    "deliver to %s's USER webhook exactly the events of their own subjects they may see",
    (persona) => {
      const expected = universe.filter(
        (event) => ownedByUser(persona, event) && expectedVisible(persona, event),
      );
      expect(labelled(delivered(persona, 'user'))).toEqual(labelled(expected));
    },
  );

  it.each(['teamOwner', 'teamAdmin'] as const)(
    "deliver to %s's TEAM webhook every event of the team and of what it owns, but internal thread messages",
    (persona) => {
      const owned = universe.filter((event) => ownedByTeam(world.teamId, event));
      const expected = owned.filter((event) => event.data['internal'] !== true);
      expect(owned.length, 'the team resource has an internal thread message').toBeGreaterThan(
        expected.length,
      );
      expect(expected.every((event) => expectedVisible(persona, event))).toBe(true);
      expect(labelled(delivered(persona, 'team'))).toEqual(labelled(expected));
    },
  );

  it("deliver everything to the admin's PLATFORM webhook", () => {
    expect(labelled(delivered('admin', 'platform'))).toEqual(labelled(universe));
  });
});
