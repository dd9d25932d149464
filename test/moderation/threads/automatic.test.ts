// Automatic thread messages (spec/extensions.md §4): every resource, version and server moderation action that
// carries a reason or notes posts into the subject's thread, in its transaction, with its moderator as author:
// the reason as an ordinary message, the notes (moderator-only until now) as an internal one. Without either,
// nothing is posted. Each message records one moderation.message_posted event.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { createUser } from '../../helpers/factories.js';
import type { TestUser } from '../../helpers/factories.js';
import { createResource, moderate as moderateResource } from '../../resources/helpers.js';
import { createServer, moderate as moderateServer } from '../../servers/helpers.js';
import { act, versionIn } from '../../versions/helpers.js';
import { readThread } from './helpers.js';
import type { MessageBody, ThreadOf } from './helpers.js';

let t: TestApp;
let owner: TestUser;
let moderator: TestUser;

beforeAll(async () => {
  t = await buildTestApp();
  owner = await createUser(t.app);
  moderator = await createUser(t.app, { role: 'MODERATOR' });
});
afterAll(async () => t?.close());

const byModerator = () => ({ id: moderator.id, username: moderator.username, role: 'MODERATOR' });

/** The thread as the moderator and as the owner see it. */
async function threadOf(of: ThreadOf): Promise<{ all: MessageBody[]; owners: MessageBody[] }> {
  const [all, owners] = await Promise.all([readThread(t.app, of, moderator), readThread(t.app, of, owner)]);
  return { all: all.messages, owners: owners.messages };
}

async function messageEvents(subjectIds: string[]) {
  return t.app.context.database.db
    .selectFrom('events')
    .select(['subject_kind', 'subject_id', 'audience', 'data', 'actor_id'])
    .where('type', '=', 'moderation.message_posted')
    .where('subject_id', 'in', subjectIds)
    .orderBy('id')
    .execute();
}

describe('resource moderation', () => {
  it('APPROVE, REJECT, SUSPEND and UNSUSPEND post their reason; without one nothing is posted', async () => {
    const resource = await createResource(t.app, owner);
    const of: ThreadOf = { kind: 'resources', id: resource.id };
    await moderateResource(t.app, moderator, resource.id, 'REJECT');
    await moderateResource(t.app, moderator, resource.id, 'APPROVE', '');
    expect((await threadOf(of)).all).toEqual([]);
    await moderateResource(t.app, moderator, resource.id, 'REJECT', 'Missing <script>x</script>license');
    await moderateResource(t.app, moderator, resource.id, 'APPROVE', 'License added, thanks');
    await moderateResource(t.app, moderator, resource.id, 'SUSPEND', 'Malware reported');
    await moderateResource(t.app, moderator, resource.id, 'UNSUSPEND', 'False positive');
    const { all, owners } = await threadOf(of);
    expect(owners).toEqual(all);
    expect(all.map((message) => message.body)).toEqual([
      '**Rejected**. Reason:\n\nMissing license',
      '**Approved**. Reason:\n\nLicense added, thanks',
      '**Suspended**. Reason:\n\nMalware reported',
      '**Unsuspended**. Reason:\n\nFalse positive',
    ]);
    for (const message of all) {
      expect(message).toMatchObject({
        author: byModerator(),
        automatic: true,
        internal: false,
        versionId: null,
      });
    }
    const events = await messageEvents([resource.id]);
    expect(events).toHaveLength(4);
    for (const [index, event] of events.entries()) {
      expect(event).toMatchObject({ subject_kind: 'resource', audience: 'THREAD', actor_id: moderator.id });
      expect(JSON.parse(event.data)).toEqual({
        messageId: all[index]!.id,
        resourceId: resource.id,
        versionId: null,
        internal: false,
        automatic: true,
        body: all[index]!.body,
      });
    }
  });

  it('a refused action (409) posts nothing', async () => {
    const resource = await createResource(t.app, owner);
    const response = await t.app.inject({
      method: 'PATCH',
      url: `/resources/moderation/${resource.id}/moderate`,
      headers: moderator.headers,
      payload: { action: 'UNSUSPEND', reason: 'not suspended' },
    });
    expect(response.statusCode).toBe(409);
    expect((await threadOf({ kind: 'resources', id: resource.id })).all).toEqual([]);
  });
});

describe('version moderation', () => {
  it('a rejection posts its reason about the version; an approval (no reason) posts nothing', async () => {
    const resource = await createResource(t.app, owner);
    await moderateResource(t.app, moderator, resource.id, 'APPROVE');
    const actors = { editor: owner, moderator };
    const approved = await versionIn(t.app, actors, resource.id, 'APPROVED');
    const rejected = await versionIn(t.app, actors, resource.id, 'PENDING');
    await act(t.app, moderator, resource.id, rejected.id, 'reject', { reason: 'Crashes on start' });
    const { all, owners } = await threadOf({ kind: 'resources', id: resource.id });
    expect(owners).toEqual(all);
    expect(all).toEqual([
      {
        id: expect.any(String),
        author: byModerator(),
        body: `**Rejected** (version ${rejected.versionNumber}). Reason:\n\nCrashes on start`,
        versionId: rejected.id,
        internal: false,
        automatic: true,
        createdAt: expect.any(String),
      },
    ]);
    const events = await messageEvents([rejected.id, approved.id, resource.id]);
    expect(events.map((event) => [event.subject_kind, event.subject_id])).toEqual([['version', rejected.id]]);
  });
});

describe('server moderation', () => {
  it('the reason is an ordinary message, the notes an internal one; neither: nothing', async () => {
    const server = await createServer(t.app, owner);
    const of: ThreadOf = { kind: 'servers', id: server.id };
    await moderateServer(t.app, moderator, server.id, 'approve', {});
    await moderateServer(t.app, moderator, server.id, 'suspend', { reason: 'Down for weeks', notes: '' });
    await moderateServer(t.app, moderator, server.id, 'approve', {
      notes: 'Owner fixed it, checked by hand',
    });
    await moderateServer(t.app, moderator, server.id, 'suspend', {
      reason: 'Vote farming',
      notes: 'Same IP',
    });
    const { all, owners } = await threadOf(of);
    expect(all.map((message) => [message.internal, message.body])).toEqual([
      [false, '**Suspended**. Reason:\n\nDown for weeks'],
      [true, '**Approved**. Moderator notes:\n\nOwner fixed it, checked by hand'],
      [false, '**Suspended**. Reason:\n\nVote farming'],
      [true, '**Suspended**. Moderator notes:\n\nSame IP'],
    ]);
    expect(owners).toEqual(all.filter((message) => !message.internal));
    for (const message of all) expect(message).toMatchObject({ author: byModerator(), automatic: true });
    const events = await messageEvents([server.id]);
    expect(events.map((event) => [event.subject_kind, event.audience])).toEqual([
      ['server', 'THREAD'],
      ['server', 'MODERATORS'],
      ['server', 'THREAD'],
      ['server', 'MODERATORS'],
    ]);
  });

  it('a rejection with reason and notes posts both, in the same transaction as the status change', async () => {
    const server = await createServer(t.app, owner);
    await moderateServer(t.app, moderator, server.id, 'reject', { reason: 'No rules page', notes: 'Spam?' });
    const { all } = await threadOf({ kind: 'servers', id: server.id });
    expect(all.map((message) => [message.internal, message.createdAt])).toEqual([
      [false, all[0]!.createdAt],
      [true, all[0]!.createdAt],
    ]);
    const history = await t.app.inject({
      method: 'GET',
      url: `/servers/moderation/${server.id}/history`,
      headers: moderator.headers,
    });
    expect((history.json() as { history: Array<{ createdAt: string }> }).history.at(-1)!.createdAt).toBe(
      all[0]!.createdAt,
    );
  });
});
