// resource.* events (spec/extensions.md §1.1): each create, edit, image change, moderation and deletion through
// the HTTP API records exactly one event, in the transaction of the change, placed where its subject belongs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { multipart } from '../helpers/http.js';
import { pngImage } from '../fixtures/images.js';
import {
  createResource,
  createResourceCast,
  moderate,
  readCatalogs,
  resourceFor,
} from '../resources/helpers.js';
import type { Catalogs, ResourceCast } from '../resources/helpers.js';
import { createVersion, uploadFile } from '../versions/helpers.js';
import { eventRows, withTableAway } from './helpers/event-rows.js';
import type { EventRows } from './helpers/event-rows.js';

let t: TestApp;
let cast: ResourceCast;
let catalogs: Catalogs;
let recorded: EventRows;

beforeAll(async () => {
  t = await buildTestApp();
  cast = await createResourceCast(t.app);
  catalogs = await readCatalogs(t.app);
  recorded = eventRows(t.app);
});
afterAll(async () => t.close());

const now = () => t.clock.now().toISOString();

async function patch(id: string, payload: Record<string, unknown>, headers = cast.owner.headers) {
  const response = await t.app.inject({ method: 'PATCH', url: `/resources/${id}`, headers, payload });
  expect(response.statusCode, response.body).toBe(200);
}

describe('resource.created', () => {
  it('records the new PENDING resource, placed under its user owner and not public', async () => {
    t.clock.advance(60_000);
    const resource = await createResource(t.app, cast.owner, { type: 'PLUGIN' });
    const event = await recorded.only('resource.created', resource.id);
    expect(event).toMatchObject({
      created_at: now(),
      actor_id: cast.owner.id,
      actor_username: cast.owner.username,
      subject_kind: 'resource',
      data: { name: resource.name, slug: resource.slug, type: 'PLUGIN', status: 'PENDING' },
      resource_id: resource.id,
      version_id: null,
      server_id: null,
      team_id: null,
      user_id: cast.owner.id,
      audience: 'SUBJECT',
      audience_user_id: null,
      subject_public: false,
      dispatched_at: null,
    });
  });

  it('places a team resource under its team', async () => {
    const resource = await createResource(t.app, cast.teamAdmin, {
      ownerType: 'TEAM',
      ownerId: cast.team.id,
    });
    const event = await recorded.only('resource.created', resource.id);
    expect(event).toMatchObject({ actor_id: cast.teamAdmin.id, team_id: cast.team.id, user_id: null });
  });

  it('records nothing when the creation fails (taken slug)', async () => {
    const resource = await createResource(t.app, cast.owner);
    const before = await recorded.count();
    const response = await t.app.inject({
      method: 'POST',
      url: '/resources',
      headers: cast.owner.headers,
      payload: { name: 'Again', slug: resource.slug, shortDescription: 'Same slug', type: 'MOD' },
    });
    expect(response.statusCode).toBe(409);
    expect(await recorded.count()).toBe(before);
  });
});

describe('resource.updated', () => {
  it('lists the API fields that changed, with the resource as it is after the edit', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const [tag] = catalogs.tags;
    t.clock.advance(60_000);
    await patch(
      resource.id,
      { name: 'Renamed', shortDescription: resource.shortDescription, tagIds: [tag!.id] },
      cast.contributor.headers,
    );
    const event = await recorded.only('resource.updated', resource.id);
    expect(event).toMatchObject({
      created_at: now(),
      actor_id: cast.contributor.id,
      subject_kind: 'resource',
      data: {
        name: 'Renamed',
        slug: resource.slug,
        type: 'MOD',
        status: 'APPROVED',
        changed: ['name', 'tags'],
      },
      resource_id: resource.id,
      user_id: cast.owner.id,
      subject_public: true,
    });
  });

  it('records nothing for a PATCH that changes nothing, including the same IDs in another order', async () => {
    const [first, second] = catalogs.gameVersions;
    const resource = await createResource(t.app, cast.owner, {
      description: 'Same text',
      gameVersionIds: [first!.id, second!.id],
    });
    const before = await recorded.count();
    await patch(resource.id, {});
    await patch(resource.id, {
      name: resource.name,
      description: 'Same text',
      gameVersionIds: [second!.id, first!.id],
    });
    expect(await recorded.count()).toBe(before);
    await patch(resource.id, { description: 'New text', gameVersionIds: [first!.id] });
    expect((await recorded.only('resource.updated', resource.id)).data['changed']).toEqual([
      'description',
      'gameVersions',
    ]);
  });

  it('counts the return of a REJECTED resource to PENDING as a change of status', async () => {
    const resource = await resourceFor(t.app, cast, 'TEAM', 'REJECTED');
    await patch(resource.id, {}, cast.teamOwner.headers);
    const event = await recorded.only('resource.updated', resource.id);
    expect(event).toMatchObject({
      data: { status: 'PENDING', changed: ['status'] },
      team_id: cast.team.id,
      user_id: null,
      subject_public: false,
    });
  });

  it('records an icon set and an icon removed, but not the removal of an icon that is not there', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const icon = await multipart('icon', { data: await pngImage(64, 64), name: 'icon.png' });
    const set = await t.app.inject({
      method: 'POST',
      url: `/resources/${resource.id}/icon`,
      headers: { ...cast.owner.headers, ...icon.headers },
      payload: icon.payload,
    });
    expect(set.statusCode, set.body).toBe(200);
    expect((await recorded.only('resource.updated', resource.id)).data['changed']).toEqual(['iconUrl']);
    for (const expected of [2, 2]) {
      const removed = await t.app.inject({
        method: 'DELETE',
        url: `/resources/${resource.id}/icon`,
        headers: cast.owner.headers,
      });
      expect(removed.statusCode, removed.body).toBe(200);
      expect(await recorded.where({ type: 'resource.updated', subjectId: resource.id })).toHaveLength(
        expected,
      );
    }
  });

  it('records nothing and changes nothing when the event cannot be written (one transaction)', async () => {
    const resource = await createResource(t.app, cast.owner);
    await withTableAway(t.app, 'events', async () => {
      const response = await t.app.inject({
        method: 'PATCH',
        url: `/resources/${resource.id}`,
        headers: cast.owner.headers,
        payload: { name: 'Never stored' },
      });
      expect(response.statusCode).toBe(500);
    });
    const stored = await t.app.context.database.db
      .selectFrom('resources')
      .select('name')
      .where('id', '=', resource.id)
      .executeTakeFirstOrThrow();
    expect(stored.name).toBe(resource.name);
    expect(await recorded.where({ type: 'resource.updated', subjectId: resource.id })).toHaveLength(0);
  });
});

describe('resource.moderated', () => {
  it('records each moderation with its action, statuses and reason, placed by the new status', async () => {
    const resource = await createResource(t.app, cast.owner);
    t.clock.advance(60_000);
    await moderate(t.app, cast.moderator, resource.id, 'APPROVE', 'Looks good');
    const [approved] = await recorded.where({ type: 'resource.moderated', subjectId: resource.id });
    expect(approved).toMatchObject({
      created_at: now(),
      actor_id: cast.moderator.id,
      actor_username: cast.moderator.username,
      subject_kind: 'resource',
      data: { action: 'APPROVE', fromStatus: 'PENDING', toStatus: 'APPROVED', reason: 'Looks good' },
      resource_id: resource.id,
      user_id: cast.owner.id,
      subject_public: true,
    });
    await moderate(t.app, cast.moderator, resource.id, 'SUSPEND');
    const events = await recorded.where({ type: 'resource.moderated', subjectId: resource.id });
    expect(events).toHaveLength(2);
    expect(events[1]).toMatchObject({
      data: { action: 'SUSPEND', fromStatus: 'APPROVED', toStatus: 'SUSPENDED', reason: null },
      subject_public: false,
    });
  });

  it('records nothing for a refused transition', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const before = await recorded.count();
    const response = await t.app.inject({
      method: 'PATCH',
      url: `/resources/moderation/${resource.id}/moderate`,
      headers: cast.moderator.headers,
      payload: { action: 'UNSUSPEND' },
    });
    expect(response.statusCode).toBe(409);
    expect(await recorded.count()).toBe(before);
  });
});

describe('resource.deleted', () => {
  it('records one event for the resource and none for the versions and files that go with it', async () => {
    const resource = await resourceFor(t.app, cast, 'TEAM', 'APPROVED');
    const version = await createVersion(t.app, cast.teamOwner, resource.id);
    await uploadFile(t.app, cast.teamOwner, resource.id, version.id);
    t.clock.advance(60_000);
    const response = await t.app.inject({
      method: 'DELETE',
      url: `/resources/${resource.id}`,
      headers: cast.teamOwner.headers,
    });
    expect(response.statusCode, response.body).toBe(204);
    const event = await recorded.only('resource.deleted', resource.id);
    expect(event).toMatchObject({
      actor_id: cast.teamOwner.id,
      subject_kind: 'resource',
      data: { name: resource.name, slug: resource.slug, type: 'MOD', status: 'APPROVED' },
      resource_id: resource.id,
      team_id: cast.team.id,
      user_id: null,
      subject_public: true,
      created_at: now(),
    });
    const children = await recorded.types({
      resourceId: resource.id,
      type: ['version.deleted', 'file.deleted'],
    });
    expect(children).toEqual([]);
  });
});
