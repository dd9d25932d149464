// Internal thread messages never reach the owner side (spec/extensions.md §4), through any route: the thread
// itself, GET /events, webhooks created by the owner side (delivered for real), and the Atom feeds, which show
// no thread at all. Ordinary messages reach exactly those who read the thread. Moderators get everything.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { createUser } from '../../helpers/factories.js';
import type { TestUser } from '../../helpers/factories.js';
import { startReceiver } from '../../helpers/webhook-receiver.js';
import type { Receiver } from '../../helpers/webhook-receiver.js';
import { readAllEvents } from '../../events/helpers/feed.js';
import { readFeed } from '../../feeds/helpers.js';
import { addContributor, createResource, moderate as moderateResource } from '../../resources/helpers.js';
import { createServer, moderate as moderateServer } from '../../servers/helpers.js';
import { addMember, createTeam } from '../../teams/helpers.js';
import { versionIn } from '../../versions/helpers.js';
import { post, readThread } from './helpers.js';

let t: TestApp;
let owner: TestUser;
let contributor: TestUser;
let teamMember: TestUser;
let stranger: TestUser;
let moderator: TestUser;
let admin: TestUser;
let ownerHook: Receiver;
let teamHook: Receiver;
let platformHook: Receiver;
let resourceId: string;
let serverId: string;

const SECRET = 'INTERNAL-NOTE-7f3a';
const SECRET_NOTES = 'INTERNAL-NOTES-91bc';
const SHARED = 'VISIBLE-REPLY-4d2e';
const REASON = 'VISIBLE-REASON-0aa1';

async function webhook(as: TestUser, receiver: Receiver, scope: Record<string, string>) {
  const response = await t.app.inject({
    method: 'POST',
    url: '/webhooks',
    headers: as.headers,
    payload: { url: receiver.url, events: ['*'], scope },
  });
  expect(response.statusCode, response.body).toBe(201);
}

const bodies = (receiver: Receiver) => receiver.received.map((request) => request.body).join('\n');

beforeAll(async () => {
  t = await buildTestApp({ OUTBOUND_ALLOW_PRIVATE: 'true', EVENT_FEED_SETTLE_MS: '0' });
  [owner, contributor, teamMember, stranger] = await Promise.all([
    createUser(t.app),
    createUser(t.app),
    createUser(t.app),
    createUser(t.app),
  ]);
  moderator = await createUser(t.app, { role: 'MODERATOR' });
  admin = await createUser(t.app, { role: 'ADMIN' });
  [ownerHook, teamHook, platformHook] = await Promise.all([
    startReceiver('/owner'),
    startReceiver('/team'),
    startReceiver('/platform'),
  ]);
  const team = await createTeam(t.app, owner);
  await addMember(t.app, team.id, owner, teamMember, 'MEMBER');
  await webhook(owner, ownerHook, { kind: 'USER' });
  await webhook(owner, teamHook, { kind: 'TEAM', id: team.id });
  await webhook(admin, platformHook, { kind: 'PLATFORM' });

  // A public resource with a public version (so its feeds have entries), a contributor, and a team server.
  const resource = await createResource(t.app, owner);
  resourceId = resource.id;
  await addContributor(t.app, owner, resourceId, contributor, 'CONTRIBUTOR');
  await moderateResource(t.app, moderator, resourceId, 'APPROVE');
  await versionIn(t.app, { editor: owner, moderator }, resourceId, 'APPROVED');
  serverId = (await createServer(t.app, owner, { ownerType: 'TEAM', ownerId: team.id })).id;

  const onResource = { kind: 'resources', id: resourceId } as const;
  await post(t.app, onResource, moderator, { body: SECRET, internal: true });
  await post(t.app, onResource, moderator, { body: SHARED });
  await moderateServer(t.app, moderator, serverId, 'reject', { reason: REASON, notes: SECRET_NOTES });
  await t.app.webhookWorker.drain();
});
afterAll(async () => {
  await Promise.all([ownerHook, teamHook, platformHook].map((receiver) => receiver?.close()));
  await t?.close();
});

const messageEvents = async (as: TestUser | null) =>
  (await readAllEvents(t.app, as, { types: ['moderation.message_posted'] })).map((event) => ({
    subject: event.subject,
    body: event.data['body'],
    internal: event.data['internal'],
  }));

describe('GET /events', () => {
  it('the owner side sees the ordinary messages’ events only; moderators see the internal ones too', async () => {
    const ordinary = [
      { subject: { kind: 'resource', id: resourceId }, body: SHARED, internal: false },
      {
        subject: { kind: 'server', id: serverId },
        body: `**Rejected**. Reason:\n\n${REASON}`,
        internal: false,
      },
    ];
    const internal = [
      { subject: { kind: 'resource', id: resourceId }, body: SECRET, internal: true },
      {
        subject: { kind: 'server', id: serverId },
        body: `**Rejected**. Moderator notes:\n\n${SECRET_NOTES}`,
        internal: true,
      },
    ];
    expect(await messageEvents(owner)).toEqual(ordinary);
    expect(await messageEvents(contributor)).toEqual([ordinary[0]]);
    expect(await messageEvents(teamMember)).toEqual([ordinary[1]]);
    // The resource is public, its thread is not.
    expect(await messageEvents(stranger)).toEqual([]);
    expect(await messageEvents(null)).toEqual([]);
    for (const reader of [moderator, admin]) {
      const seen = await messageEvents(reader);
      expect(seen).toHaveLength(4);
      expect(seen).toEqual(expect.arrayContaining([...ordinary, ...internal]));
    }
    // Filtered by subject, the owner still gets no internal event.
    const filtered = await readAllEvents(t.app, owner, { resourceId });
    expect(JSON.stringify(filtered)).not.toContain(SECRET);
    expect(JSON.stringify(filtered)).toContain(SHARED);
  });
});

describe('webhooks', () => {
  it('the owner side’s webhooks never carry an internal message; a platform webhook carries both', async () => {
    for (const receiver of [ownerHook, teamHook]) {
      expect(bodies(receiver)).not.toContain(SECRET);
      expect(bodies(receiver)).not.toContain(SECRET_NOTES);
    }
    expect(bodies(ownerHook)).toContain(SHARED);
    // The server is the team's: its events reach the TEAM webhook, not the owner's USER one.
    expect(bodies(ownerHook)).not.toContain(REASON);
    expect(bodies(teamHook)).toContain(REASON);
    for (const text of [SECRET, SECRET_NOTES, SHARED, REASON]) expect(bodies(platformHook)).toContain(text);
    // Nothing was left waiting to be sent later either.
    const pending = await t.app.context.database.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('status', '=', 'PENDING')
      .execute();
    expect(pending).toEqual([]);
  });
});

describe('the thread and the feeds', () => {
  it('the thread hides the internal message from the owner side', async () => {
    const of = { kind: 'resources', id: resourceId } as const;
    expect((await readThread(t.app, of, owner)).messages.map((message) => message.body)).toEqual([SHARED]);
    expect((await readThread(t.app, of, contributor)).total).toBe(1);
    const server = { kind: 'servers', id: serverId } as const;
    expect((await readThread(t.app, server, teamMember)).messages.map((message) => message.internal)).toEqual(
      [false],
    );
  });

  it('no feed shows any thread message', async () => {
    for (const url of [
      `/resources/${resourceId}/feed.atom`,
      `/users/${owner.id}/feed.atom`,
      '/resources/feed.atom',
    ]) {
      const { feed, response } = await readFeed(t.app, url);
      expect(feed.items.length, url).toBeGreaterThan(0);
      for (const text of [SECRET, SECRET_NOTES, SHARED, REASON])
        expect(response.body, url).not.toContain(text);
    }
  });
});
