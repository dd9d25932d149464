// The version permission table (interface "Authentication" 4) per persona, on user- and team-owned resources:
// owner side and contributors manage; moderators approve and reject (not on their own resources) and see
// everything; the public sees APPROVED (and ARCHIVED) versions of APPROVED resources only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { expectError, multipart } from '../helpers/http.js';
import {
  addContributor,
  createResourceCast,
  headersOf,
  RESOURCE_PERSONAS,
  resourceFor,
} from '../resources/helpers.js';
import type { ResourceCast, ResourcePersona } from '../resources/helpers.js';
import { createUser } from '../helpers/factories.js';
import {
  act,
  createVersion,
  gameVersionIds,
  readVersion,
  versionIn,
  versionsUrl,
  versionUrl,
} from './helpers.js';

let t: TestApp;
let cast: ResourceCast;
let gameVersions: string[];

beforeAll(async () => {
  t = await buildTestApp();
  cast = await createResourceCast(t.app);
  gameVersions = await gameVersionIds(t.app);
});
afterAll(async () => t.close());

const EDITORS: ReadonlySet<ResourcePersona> = new Set([
  'owner',
  'teamOwner',
  'teamAdmin',
  'teamModerator',
  'teamMember',
  'contributor',
  'maintainer',
]);
const isModerator = (persona: ResourcePersona): boolean => persona === 'moderator' || persona === 'admin';

/** Whether the persona is on the owner side of a resource of this kind (owner rights or contributor). */
const editorOf = (kind: 'USER' | 'TEAM', persona: ResourcePersona): boolean =>
  EDITORS.has(persona) && (kind === 'USER' ? !persona.startsWith('team') : persona !== 'owner');

const cases = (['USER', 'TEAM'] as const).flatMap((kind) => RESOURCE_PERSONAS.map((p) => [kind, p] as const));

describe('create, update and delete (owner side and contributors only)', () => {
  it.each(cases)('%s resource, %s', async (kind, persona) => {
    const resource = await resourceFor(t.app, cast, kind, 'APPROVED');
    const editor = kind === 'USER' ? cast.owner : cast.teamOwner;
    const headers = headersOf(cast, persona);
    const create = await t.app.inject({
      method: 'POST',
      url: versionsUrl(resource.id),
      headers,
      payload: { versionNumber: '9.9.9', channel: 'RELEASE', compatibleGameVersionIds: [gameVersions[0]] },
    });
    const version = await createVersion(t.app, editor, resource.id);
    const update = await t.app.inject({
      method: 'PATCH',
      url: versionUrl(resource.id, version.id),
      headers,
      payload: { name: 'x' },
    });
    const form = await multipart('file', { data: Buffer.from('abc'), name: 'a.txt' });
    const upload = await t.app.inject({
      method: 'POST',
      url: `${versionUrl(resource.id, version.id)}/files`,
      headers: { ...headers, ...form.headers },
      payload: form.payload,
    });
    const remove = await t.app.inject({
      method: 'DELETE',
      url: versionUrl(resource.id, version.id),
      headers,
    });
    const responses = [create, update, upload, remove];
    if (persona === 'anonymous') {
      for (const response of responses) expectError(response, 401);
    } else if (editorOf(kind, persona)) {
      expect(responses.map((r) => r.statusCode)).toEqual([201, 200, 201, 200]);
    } else if (isModerator(persona)) {
      // Moderators and admins see the draft but do not manage it.
      for (const response of responses) expectError(response, 403);
    } else {
      // A stranger may see the resource (APPROVED) but not someone else's draft: create 403, the draft 404.
      expectError(create, 403);
      for (const response of [update, upload, remove]) expectError(response, 404);
    }
  });
});

describe('submit, set-latest and archive (owner side and contributors only)', () => {
  it.each(cases)('%s resource, %s', async (kind, persona) => {
    const resource = await resourceFor(t.app, cast, kind, 'APPROVED');
    const editor = kind === 'USER' ? cast.owner : cast.teamOwner;
    const actors = { editor, moderator: cast.moderator };
    const headers = headersOf(cast, persona);
    const draft = await versionIn(t.app, actors, resource.id, 'DRAFT');
    const approved = await versionIn(t.app, actors, resource.id, 'APPROVED');
    const submit = await t.app.inject({
      method: 'POST',
      url: `${versionUrl(resource.id, draft.id)}/submit`,
      headers,
    });
    const latest = await t.app.inject({
      method: 'PATCH',
      url: `${versionUrl(resource.id, approved.id)}/set-latest`,
      headers,
    });
    const archive = await t.app.inject({
      method: 'POST',
      url: `${versionUrl(resource.id, approved.id)}/archive`,
      headers,
    });
    if (persona === 'anonymous') {
      for (const response of [submit, latest, archive]) expectError(response, 401);
    } else if (editorOf(kind, persona)) {
      expect([submit, latest, archive].map((r) => r.statusCode)).toEqual([200, 200, 200]);
    } else if (isModerator(persona)) {
      for (const response of [submit, latest, archive]) expectError(response, 403);
    } else {
      expectError(submit, 404);
      expectError(latest, 403);
      expectError(archive, 403);
    }
  });
});

describe('approve and reject (MODERATOR+, never on their own resources)', () => {
  it.each(cases)('%s resource, %s', async (kind, persona) => {
    const resource = await resourceFor(t.app, cast, kind, 'APPROVED');
    const editor = kind === 'USER' ? cast.owner : cast.teamOwner;
    const actors = { editor, moderator: cast.moderator };
    const headers = headersOf(cast, persona);
    const one = await versionIn(t.app, actors, resource.id, 'PENDING');
    const two = await versionIn(t.app, actors, resource.id, 'PENDING');
    const approve = await t.app.inject({
      method: 'POST',
      url: `${versionUrl(resource.id, one.id)}/approve`,
      headers,
    });
    const reject = await t.app.inject({
      method: 'POST',
      url: `${versionUrl(resource.id, two.id)}/reject`,
      headers,
      payload: { reason: 'no' },
    });
    if (persona === 'anonymous') {
      for (const response of [approve, reject]) expectError(response, 401);
    } else if (persona === 'moderator' || persona === 'admin') {
      expect([approve.statusCode, reject.statusCode]).toEqual([200, 200]);
    } else {
      for (const response of [approve, reject]) expectError(response, 403);
    }
  });

  it('a moderator cannot approve a version of a resource they own or contribute to (403)', async () => {
    const moderatorOwner = await createUser(t.app, { role: 'MODERATOR' });
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    await addContributor(t.app, cast.owner, resource.id, moderatorOwner, 'CONTRIBUTOR');
    const version = await versionIn(
      t.app,
      { editor: moderatorOwner, moderator: cast.moderator },
      resource.id,
      'PENDING',
    );
    const response = await t.app.inject({
      method: 'POST',
      url: `${versionUrl(resource.id, version.id)}/approve`,
      headers: moderatorOwner.headers,
    });
    expectError(response, 403);
    expect((await readVersion(t.app, cast.owner, resource.id, version.id)).status).toBe('PENDING');
    await act(t.app, cast.admin, resource.id, version.id, 'approve');
  });
});

describe('visibility: the public sees APPROVED (and ARCHIVED) versions of APPROVED resources', () => {
  const statuses = ['DRAFT', 'PENDING', 'APPROVED', 'REJECTED', 'ARCHIVED'] as const;

  it.each(cases)('%s resource, %s', async (kind, persona) => {
    const resource = await resourceFor(t.app, cast, kind, 'APPROVED');
    const editor = kind === 'USER' ? cast.owner : cast.teamOwner;
    const actors = { editor, moderator: cast.moderator };
    const versions = new Map<string, string>();
    for (const status of statuses)
      versions.set(status, (await versionIn(t.app, actors, resource.id, status)).id);
    const headers = headersOf(cast, persona);
    const seesAll = editorOf(kind, persona) || persona === 'moderator' || persona === 'admin';
    const list = await t.app.inject({ method: 'GET', url: versionsUrl(resource.id), headers });
    expect(list.statusCode).toBe(200);
    const listed = new Set((list.json() as Array<{ status: string }>).map((v) => v.status));
    expect([...listed].sort()).toEqual(seesAll ? [...statuses].sort() : ['APPROVED', 'ARCHIVED']);
    for (const status of statuses) {
      const id = versions.get(status)!;
      const one = await t.app.inject({ method: 'GET', url: versionUrl(resource.id, id), headers });
      const download = await t.app.inject({
        method: 'GET',
        url: `${versionUrl(resource.id, id)}/download`,
        headers,
      });
      if (seesAll || status === 'APPROVED' || status === 'ARCHIVED') {
        expect(one.statusCode, `${status} ${one.body}`).toBe(200);
        expect(download.statusCode, `${status} ${download.body}`).toBe(302);
      } else {
        expectError(one, 404);
        expectError(download, 404);
      }
    }
  });

  it.each(['PENDING', 'REJECTED', 'SUSPENDED'] as const)(
    'nothing of a %s resource is visible to the public (404), all of it to its owner side',
    async (status) => {
      const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
      const version = await versionIn(
        t.app,
        { editor: cast.owner, moderator: cast.moderator },
        resource.id,
        'APPROVED',
      );
      const moderated = await t.app.inject({
        method: 'PATCH',
        url: `/resources/moderation/${resource.id}/moderate`,
        headers: cast.moderator.headers,
        payload: { action: status === 'PENDING' ? 'REJECT' : status === 'REJECTED' ? 'REJECT' : 'SUSPEND' },
      });
      expect(moderated.statusCode).toBe(200);
      for (const headers of [{}, cast.stranger.headers]) {
        expectError(await t.app.inject({ method: 'GET', url: versionsUrl(resource.id), headers }), 404);
        expectError(
          await t.app.inject({ method: 'GET', url: versionUrl(resource.id, version.id), headers }),
          404,
        );
        expectError(
          await t.app.inject({
            method: 'GET',
            url: `${versionUrl(resource.id, version.id)}/download`,
            headers,
          }),
          404,
        );
      }
      for (const user of [cast.owner, cast.contributor, cast.moderator]) {
        const list = await t.app.inject({
          method: 'GET',
          url: versionsUrl(resource.id),
          headers: user.headers,
        });
        expect(list.statusCode).toBe(200);
        expect((list.json() as unknown[]).length).toBe(1);
      }
    },
  );
});
