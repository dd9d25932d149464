// version.* and file.* events (spec/extensions.md §1.1): each version transition, set-latest and automatic
// latest choice, and file upload and deletion through the HTTP API records exactly one event, in the transaction
// of the change, placed under the version's resource and its owner.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createResourceCast, resourceFor } from '../resources/helpers.js';
import type { ResourceCast } from '../resources/helpers.js';
import { act, createVersion, readVersion, uploadFile, versionIn, versionUrl } from '../versions/helpers.js';
import { eventRows, withTableAway } from './helpers/event-rows.js';
import type { EventRows } from './helpers/event-rows.js';

let t: TestApp;
let cast: ResourceCast;
let recorded: EventRows;

beforeAll(async () => {
  t = await buildTestApp();
  cast = await createResourceCast(t.app);
  recorded = eventRows(t.app);
});
afterAll(async () => t.close());

/** The types recorded about a resource's versions and files since the mark `afterId`, oldest first. */
async function typesSince(resourceId: string, afterId: string) {
  const types = await recorded.types({ resourceId, afterId });
  return types.filter((type) => !type.startsWith('resource.'));
}

const now = () => t.clock.now().toISOString();
const actors = () => ({ editor: cast.owner, moderator: cast.moderator });

describe('version.created and file.uploaded', () => {
  it('records the new DRAFT version and each uploaded file with its sha256, not public', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    t.clock.advance(60_000);
    const version = await createVersion(t.app, cast.contributor, resource.id, { channel: 'BETA' });
    expect(await recorded.only('version.created', version.id)).toMatchObject({
      created_at: now(),
      actor_id: cast.contributor.id,
      actor_username: cast.contributor.username,
      subject_kind: 'version',
      data: { resourceId: resource.id, versionNumber: version.versionNumber, channel: 'BETA' },
      resource_id: resource.id,
      version_id: version.id,
      server_id: null,
      team_id: null,
      user_id: cast.owner.id,
      audience: 'SUBJECT',
      audience_user_id: null,
      subject_public: false,
    });

    const content = Buffer.from('a plugin\n');
    t.clock.advance(1_000);
    const file = await uploadFile(t.app, cast.owner, resource.id, version.id, {
      data: content,
      name: 'p.jar',
    });
    expect(await recorded.only('file.uploaded', file.id)).toMatchObject({
      created_at: now(),
      actor_id: cast.owner.id,
      subject_kind: 'file',
      data: {
        versionId: version.id,
        resourceId: resource.id,
        fileName: 'p.jar',
        sha256: createHash('sha256').update(content).digest('hex'),
      },
      resource_id: resource.id,
      version_id: version.id,
      user_id: cast.owner.id,
      subject_public: false,
    });
  });

  it('places the events of a team resource under its team', async () => {
    const resource = await resourceFor(t.app, cast, 'TEAM');
    const version = await createVersion(t.app, cast.teamAdmin, resource.id);
    expect(await recorded.only('version.created', version.id)).toMatchObject({
      team_id: cast.team.id,
      user_id: null,
    });
  });
});

describe('status moves', () => {
  it('records submit, reject (with its reason), resubmit and approve, then the automatic latest choice', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const version = await versionIn(t.app, actors(), resource.id, 'DRAFT');
    const data = { resourceId: resource.id, versionNumber: version.versionNumber, channel: 'RELEASE' };

    t.clock.advance(60_000);
    await act(t.app, cast.owner, resource.id, version.id, 'submit', { submissionNote: 'please' });
    expect(await recorded.only('version.submitted', version.id)).toMatchObject({
      created_at: now(),
      actor_id: cast.owner.id,
      data,
      subject_public: false,
    });
    expect((await recorded.only('version.submitted', version.id)).data).not.toHaveProperty('reason');

    await act(t.app, cast.moderator, resource.id, version.id, 'reject', { reason: 'Missing license' });
    expect(await recorded.only('version.rejected', version.id)).toMatchObject({
      actor_id: cast.moderator.id,
      data: { ...data, reason: 'Missing license' },
      subject_public: false,
    });

    await act(t.app, cast.maintainer, resource.id, version.id, 'resubmit');
    const submitted = await recorded.where({ type: 'version.submitted', subjectId: version.id });
    expect(submitted).toHaveLength(2);
    expect(submitted[1]).toMatchObject({ actor_id: cast.maintainer.id, data });

    const before = await recorded.lastId();
    t.clock.advance(60_000);
    await act(t.app, cast.moderator, resource.id, version.id, 'approve');
    expect(await typesSince(resource.id, before)).toEqual(['version.approved', 'version.latest_changed']);
    expect(await recorded.only('version.approved', version.id)).toMatchObject({
      created_at: now(),
      actor_id: cast.moderator.id,
      subject_kind: 'version',
      data,
      version_id: version.id,
      subject_public: true,
    });
    expect(await recorded.only('version.latest_changed', version.id)).toMatchObject({
      created_at: now(),
      actor_id: cast.moderator.id,
      subject_kind: 'version',
      data: { ...data, previousLatestVersionId: null },
      version_id: version.id,
      subject_public: true,
    });
  });

  it('keeps an approved version of a PENDING resource private', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'PENDING');
    const version = await versionIn(t.app, actors(), resource.id, 'APPROVED');
    expect(await recorded.only('version.approved', version.id)).toMatchObject({ subject_public: false });
  });

  it('records no latest change when an approved version does not become latest', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    await versionIn(t.app, actors(), resource.id, 'APPROVED');
    const second = await versionIn(t.app, actors(), resource.id, 'APPROVED');
    expect((await readVersion(t.app, cast.owner, resource.id, second.id)).isLatest).toBe(false);
    expect(await recorded.where({ type: 'version.latest_changed', subjectId: second.id })).toHaveLength(0);
  });

  it('records set-latest with the previous latest version, and nothing when it already is latest', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const first = await versionIn(t.app, actors(), resource.id, 'APPROVED');
    const second = await versionIn(t.app, actors(), resource.id, 'APPROVED');
    t.clock.advance(60_000);
    for (let i = 0; i < 2; i++) {
      const response = await t.app.inject({
        method: 'PATCH',
        url: `${versionUrl(resource.id, second.id)}/set-latest`,
        headers: cast.maintainer.headers,
      });
      expect(response.statusCode, response.body).toBe(200);
    }
    expect(await recorded.only('version.latest_changed', second.id)).toMatchObject({
      created_at: now(),
      actor_id: cast.maintainer.id,
      data: {
        resourceId: resource.id,
        versionNumber: second.versionNumber,
        channel: 'RELEASE',
        previousLatestVersionId: first.id,
      },
      version_id: second.id,
      subject_public: true,
    });
  });

  it('records archiving the latest version, and that the resource has no latest version any more', async () => {
    const resource = await resourceFor(t.app, cast, 'TEAM', 'APPROVED');
    const version = await versionIn(
      t.app,
      { editor: cast.teamOwner, moderator: cast.moderator },
      resource.id,
      'APPROVED',
    );
    const before = await recorded.lastId();
    t.clock.advance(60_000);
    await act(t.app, cast.teamAdmin, resource.id, version.id, 'archive');
    expect(await typesSince(resource.id, before)).toEqual(['version.archived', 'version.latest_changed']);
    const data = { resourceId: resource.id, versionNumber: version.versionNumber, channel: 'RELEASE' };
    expect(await recorded.only('version.archived', version.id)).toMatchObject({
      created_at: now(),
      actor_id: cast.teamAdmin.id,
      data,
      team_id: cast.team.id,
      subject_public: true,
    });
    const latest = await recorded.where({ type: 'version.latest_changed', subjectId: version.id });
    expect(latest).toHaveLength(2);
    expect(latest[1]).toMatchObject({
      created_at: now(),
      data: {
        resourceId: resource.id,
        versionNumber: null,
        channel: null,
        previousLatestVersionId: version.id,
      },
      version_id: version.id,
    });
  });

  it('records nothing and moves nothing when the transaction fails after the event was written', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const version = await versionIn(t.app, actors(), resource.id, 'PENDING');
    const before = await recorded.lastId();
    // The history row is written after the events: its failure must take them back.
    await withTableAway(t.app, 'version_moderation_events', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: `${versionUrl(resource.id, version.id)}/approve`,
        headers: cast.moderator.headers,
      });
      expect(response.statusCode).toBe(500);
    });
    expect((await readVersion(t.app, cast.owner, resource.id, version.id)).status).toBe('PENDING');
    expect(await typesSince(resource.id, before)).toEqual([]);
  });
});

describe('deletions', () => {
  it('records a deleted version, and no file.deleted for the files that go with it', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const version = await versionIn(t.app, actors(), resource.id, 'DRAFT');
    const before = await recorded.lastId();
    t.clock.advance(60_000);
    const response = await t.app.inject({
      method: 'DELETE',
      url: versionUrl(resource.id, version.id),
      headers: cast.contributor.headers,
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(await typesSince(resource.id, before)).toEqual(['version.deleted']);
    expect(await recorded.only('version.deleted', version.id)).toMatchObject({
      created_at: now(),
      actor_id: cast.contributor.id,
      data: { resourceId: resource.id, versionNumber: version.versionNumber, channel: 'RELEASE' },
      version_id: version.id,
      subject_public: false,
    });
  });

  it('records a deleted file with its version, resource, name and sha256', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const version = await versionIn(t.app, actors(), resource.id, 'APPROVED', [
      { data: Buffer.from('one\n'), name: 'one.txt' },
      { data: Buffer.from('two\n'), name: 'two.txt' },
    ]);
    const file = version.files.find((row) => row.fileName === 'two.txt')!;
    t.clock.advance(60_000);
    const response = await t.app.inject({
      method: 'DELETE',
      url: `${versionUrl(resource.id, version.id)}/files/${file.id}`,
      headers: cast.owner.headers,
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(await recorded.only('file.deleted', file.id)).toMatchObject({
      created_at: now(),
      actor_id: cast.owner.id,
      subject_kind: 'file',
      data: {
        versionId: version.id,
        resourceId: resource.id,
        fileName: 'two.txt',
        sha256: file.hashes.sha256,
      },
      resource_id: resource.id,
      version_id: version.id,
      user_id: cast.owner.id,
      subject_public: true,
    });
  });

  it('records nothing for a refused deletion (the last file of an APPROVED version)', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const version = await versionIn(t.app, actors(), resource.id, 'APPROVED');
    const before = await recorded.lastId();
    const response = await t.app.inject({
      method: 'DELETE',
      url: `${versionUrl(resource.id, version.id)}/files/${version.files[0]!.id}`,
      headers: cast.owner.headers,
    });
    expect(response.statusCode).toBe(409);
    expect(await typesSince(resource.id, before)).toEqual([]);
  });
});
