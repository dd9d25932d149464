// GET /resources/:resourceId/versions/:versionId/suggestions (spec/extensions.md §2.3): what the primary file's
// manifest suggests, matched to resources the caller may see; owner side and contributors only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { expectError } from '../../helpers/http.js';
import {
  createResource,
  createResourceCast,
  headersOf,
  moderate,
  readCatalogs,
  resourceFor,
} from '../../resources/helpers.js';
import type { ResourceCast, ResourcePersona } from '../../resources/helpers.js';
import { act, createVersion, uploadFile, versionUrl } from '../helpers.js';
import { hytaleManifest, pluginJar } from './zip-builder.js';

let t: TestApp;
let cast: ResourceCast;
let gameVersionName: string;
let gameVersionId: string;

beforeAll(async () => {
  t = await buildTestApp();
  cast = await createResourceCast(t.app);
  const [gameVersion] = (await readCatalogs(t.app)).gameVersions;
  gameVersionName = gameVersion!.name;
  gameVersionId = gameVersion!.id;
});
afterAll(async () => t.close());

const suggestionsUrl = (resourceId: string, versionId: string) =>
  `${versionUrl(resourceId, versionId)}/suggestions`;

async function suggestions(resourceId: string, versionId: string, headers: Record<string, string>) {
  return t.app.inject({ method: 'GET', url: suggestionsUrl(resourceId, versionId), headers });
}

/** An APPROVED resource with a name and slug other manifests can point at. */
async function approvedTarget(name: string, slug: string) {
  const resource = await createResource(t.app, cast.stranger, { name, slug });
  return moderate(t.app, cast.moderator, resource.id, 'APPROVE');
}

describe('suggestions from the manifest', () => {
  it('suggests the version number, matched dependencies and the game version', async () => {
    const unique = `${process.pid}${Date.now().toString(36)}`;
    const bySlug = await approvedTarget(`Some Title ${unique}`, `core-lib-${unique}`);
    const byName = await approvedTarget(`Fancy Mod ${unique}`, `fancy-${unique}`);
    const hidden = await createResource(t.app, cast.stranger, {
      name: `Hidden ${unique}`,
      slug: `hidden-${unique}`,
    });
    const own = await resourceFor(t.app, cast, 'USER', 'APPROVED', { slug: `own-${unique}` });
    const version = await createVersion(t.app, cast.owner, own.id);
    const manifest = hytaleManifest({
      Version: '4.5.6',
      ServerVersion: gameVersionName,
      Dependencies: {
        [`Example:Core-Lib-${unique}`]: '>=1.0',
        [`fancy mod ${unique}`]: '*',
        [`Group:hidden-${unique}`]: '1.0',
        [`own-${unique}`]: '*',
        'Nobody:Unknown': '*',
      },
      OptionalDependencies: { [`Other:core-lib-${unique}`]: '2.0' },
    });
    await uploadFile(t.app, cast.owner, own.id, version.id, { data: pluginJar(manifest), name: 'p.jar' });

    const response = await suggestions(own.id, version.id, cast.owner.headers);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({
      versionNumber: '4.5.6',
      dependencies: [
        {
          externalName: `Example:Core-Lib-${unique}`,
          resourceId: bySlug.id,
          type: 'REQUIRED',
          versionRange: '>=1.0',
        },
        { externalName: `fancy mod ${unique}`, resourceId: byName.id, type: 'REQUIRED', versionRange: '*' },
        // PENDING resource of another user: invisible to the caller, so not suggested.
        { externalName: `Group:hidden-${unique}`, type: 'REQUIRED', versionRange: '1.0' },
        // A version never depends on its own resource.
        { externalName: `own-${unique}`, type: 'REQUIRED', versionRange: '*' },
        { externalName: 'Nobody:Unknown', type: 'REQUIRED', versionRange: '*' },
        {
          externalName: `Other:core-lib-${unique}`,
          resourceId: bySlug.id,
          type: 'OPTIONAL',
          versionRange: '2.0',
        },
      ],
      gameVersions: [{ id: gameVersionId, name: gameVersionName }],
    });

    // The hidden resource's owner sees it, so it is suggested to them on their own version.
    const theirs = await createResource(t.app, cast.stranger, { slug: `theirs-${unique}` });
    const theirVersion = await createVersion(t.app, cast.stranger, theirs.id);
    await uploadFile(t.app, cast.stranger, theirs.id, theirVersion.id, {
      data: pluginJar(hytaleManifest({ Dependencies: { [`Group:hidden-${unique}`]: '1.0' } })),
      name: 'p.jar',
    });
    const forOwner = (await suggestions(theirs.id, theirVersion.id, cast.stranger.headers)).json() as {
      dependencies: Array<{ resourceId?: string }>;
    };
    expect(forOwner.dependencies[0]!.resourceId).toBe(hidden.id);
  });

  it('a range or unknown ServerVersion names no game version', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    for (const serverVersion of ['>=0.0.1', `>=${gameVersionName}`, 'no-such-version', '*']) {
      const version = await createVersion(t.app, cast.owner, resource.id);
      const data = pluginJar(hytaleManifest({ ServerVersion: serverVersion }));
      await uploadFile(t.app, cast.owner, resource.id, version.id, { data, name: 'p.jar' });
      const body = (await suggestions(resource.id, version.id, cast.owner.headers)).json() as {
        gameVersions: unknown[];
      };
      expect(body.gameVersions, serverVersion).toEqual([]);
    }
  });

  it('follows the primary file and is empty without a manifest or without files', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const version = await createVersion(t.app, cast.owner, resource.id);
    const empty = { versionNumber: null, dependencies: [], gameVersions: [] };
    expect((await suggestions(resource.id, version.id, cast.owner.headers)).json()).toEqual(empty);

    await uploadFile(t.app, cast.owner, resource.id, version.id, {
      data: Buffer.from('text'),
      name: 'a.txt',
    });
    const jar = await uploadFile(t.app, cast.owner, resource.id, version.id, {
      data: pluginJar(),
      name: 'p.jar',
    });
    expect((await suggestions(resource.id, version.id, cast.owner.headers)).json()).toEqual(empty);

    const primary = await t.app.inject({
      method: 'PATCH',
      url: `${versionUrl(resource.id, version.id)}/files/primary`,
      headers: cast.owner.headers,
      payload: { fileId: jar.id },
    });
    expect(primary.statusCode, primary.body).toBe(200);
    const body = (await suggestions(resource.id, version.id, cast.owner.headers)).json() as {
      versionNumber: string;
    };
    expect(body.versionNumber).toBe('1.2.3');
  });
});

describe('who may ask', () => {
  it.each<[ResourcePersona, number]>([
    ['owner', 200],
    ['contributor', 200],
    ['maintainer', 200],
    ['stranger', 403],
    ['moderator', 403],
    ['anonymous', 401],
  ])('on an APPROVED version, %s gets %i', async (persona, status) => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const version = await createVersion(t.app, cast.owner, resource.id);
    await uploadFile(t.app, cast.owner, resource.id, version.id, { data: pluginJar(), name: 'p.jar' });
    await act(t.app, cast.owner, resource.id, version.id, 'submit');
    await act(t.app, cast.moderator, resource.id, version.id, 'approve');
    const response = await suggestions(resource.id, version.id, headersOf(cast, persona));
    if (status === 200) expect(response.statusCode, response.body).toBe(200);
    else expectError(response, status);
  });

  it.each<[ResourcePersona, number]>([
    ['teamOwner', 200],
    ['teamMember', 200],
    ['stranger', 404],
    ['anonymous', 401],
  ])('on a DRAFT version of a team resource, %s gets %i', async (persona, status) => {
    const resource = await resourceFor(t.app, cast, 'TEAM', 'APPROVED');
    const version = await createVersion(t.app, cast.teamOwner, resource.id);
    const response = await suggestions(resource.id, version.id, headersOf(cast, persona));
    if (status === 200) expect(response.statusCode, response.body).toBe(200);
    else expectError(response, status);
  });

  it('a version of another resource, an unknown id or a garbage id is 404 or 400, never 5xx', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const other = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const version = await createVersion(t.app, cast.owner, other.id);
    expectError(await suggestions(resource.id, version.id, cast.owner.headers), 404, 'NOT_FOUND');
    expectError(
      await suggestions(resource.id, '0192f7a0-0000-7000-8000-000000000000', cast.owner.headers),
      404,
    );
    for (const garbage of ['%00', 'x'.repeat(65), '%F0%9F%92%A5', "'%20or%201=1"]) {
      const response = await t.app.inject({
        method: 'GET',
        url: `/resources/${resource.id}/versions/${garbage}/suggestions`,
        headers: cast.owner.headers,
      });
      expect([400, 404], `${garbage}: ${response.body}`).toContain(response.statusCode);
    }
  });
});
