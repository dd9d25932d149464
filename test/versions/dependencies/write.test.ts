// Declaring dependencies on create and PATCH (spec/extensions.md §2.2): each target kind, validation, visibility
// of targets, the 50 limit, PATCH rules, and how the version object and the versions list show them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { expectError } from '../../helpers/http.js';
import { createResource, createResourceCast, moderate } from '../../resources/helpers.js';
import type { ResourceCast } from '../../resources/helpers.js';
import { act, createVersion, gameVersionIds, readVersion, uploadFile, versionsUrl } from '../helpers.js';
import { approvedResource, getJson, patchDependencies, release } from './helpers.js';
import type { VersionWithDependencies } from './helpers.js';

let t: TestApp;
let cast: ResourceCast;
let gameVersion: string;

beforeAll(async () => {
  t = await buildTestApp();
  cast = await createResourceCast(t.app);
  [gameVersion] = (await gameVersionIds(t.app)) as [string];
});
afterAll(async () => t.close());

async function create(resourceId: string, dependencies: unknown, user = cast.owner) {
  return t.app.inject({
    method: 'POST',
    url: versionsUrl(resourceId),
    headers: user.headers,
    payload: {
      versionNumber: `9.${Math.random().toString(36).slice(2, 8)}`,
      channel: 'RELEASE',
      compatibleGameVersionIds: [gameVersion],
      dependencies,
    },
  });
}

describe('declaring dependencies', () => {
  it('stores each target kind in order and shows them on the version, the list and to the public', async () => {
    const mine = await approvedResource(t, cast);
    const library = await approvedResource(t, cast, cast.stranger);
    const pinned = await approvedResource(t, cast, cast.stranger);
    const pinnedVersion = await release(t, cast, pinned.id, [], cast.stranger);
    const response = await create(mine.id, [
      { type: 'REQUIRED', resourceId: library.id, minVersion: '1.2.0' },
      { type: 'OPTIONAL', versionId: pinnedVersion.id },
      { type: 'INCOMPATIBLE', externalName: 'OtherLoader', externalUrl: 'https://example.org/loader' },
      { type: 'EMBEDDED', externalName: 'Bundled lib' },
    ]);
    expect(response.statusCode, response.body).toBe(201);
    const created = response.json() as VersionWithDependencies;
    expect(created.dependencies).toEqual([
      {
        id: expect.any(String),
        type: 'REQUIRED',
        resourceId: library.id,
        versionId: null,
        externalName: null,
        externalUrl: null,
        minVersion: '1.2.0',
        resource: expect.objectContaining({ id: library.id, slug: library.slug, name: library.name }),
      },
      expect.objectContaining({
        type: 'OPTIONAL',
        resourceId: null,
        versionId: pinnedVersion.id,
        resource: expect.objectContaining({ id: pinned.id, slug: pinned.slug }),
      }),
      expect.objectContaining({
        type: 'INCOMPATIBLE',
        externalName: 'OtherLoader',
        externalUrl: 'https://example.org/loader',
        resource: null,
      }),
      expect.objectContaining({
        type: 'EMBEDDED',
        externalName: 'Bundled lib',
        externalUrl: null,
        resource: null,
      }),
    ]);
    const read = (await readVersion(t.app, cast.owner, mine.id, created.id)) as VersionWithDependencies;
    expect(read.dependencies).toEqual(created.dependencies);
    const list = (
      await t.app.inject({ method: 'GET', url: versionsUrl(mine.id), headers: cast.owner.headers })
    ).json() as VersionWithDependencies[];
    expect(list.find((item) => item.id === created.id)?.dependencies).toEqual(created.dependencies);
    // Once released, anyone sees the same list.
    await uploadFile(t.app, cast.owner, mine.id, created.id);
    await act(t.app, cast.owner, mine.id, created.id, 'submit');
    await act(t.app, cast.moderator, mine.id, created.id, 'approve');
    const asPublic = await getJson<VersionWithDependencies>(t, `${versionsUrl(mine.id)}/${created.id}`);
    expect(asPublic.dependencies).toEqual(created.dependencies);
  });

  it('shows every version of a list with its own dependencies, and [] when there are none', async () => {
    const mine = await approvedResource(t, cast);
    const targets = await Promise.all([approvedResource(t, cast), approvedResource(t, cast)]);
    const first = await release(t, cast, mine.id, [{ type: 'REQUIRED', resourceId: targets[0].id }]);
    const second = await release(t, cast, mine.id, [{ type: 'OPTIONAL', resourceId: targets[1].id }]);
    const bare = await release(t, cast, mine.id);
    const list = await getJson<VersionWithDependencies[]>(t, versionsUrl(mine.id));
    const of = (id: string) => list.find((item) => item.id === id)!.dependencies.map((d) => d.resourceId);
    expect(of(first.id)).toEqual([targets[0].id]);
    expect(of(second.id)).toEqual([targets[1].id]);
    expect(of(bare.id)).toEqual([]);
  });

  it('refuses a dependency on its own resource, directly or through one of its versions (400)', async () => {
    const mine = await approvedResource(t, cast);
    const own = await release(t, cast, mine.id);
    const direct = expectError(await create(mine.id, [{ type: 'REQUIRED', resourceId: mine.id }]), 400);
    expect(direct.message).toMatch(/own resource/);
    expect(direct.details).toEqual({ fields: { 'body.dependencies.0.resourceId': expect.any(String) } });
    const viaVersion = expectError(
      await create(mine.id, [
        { type: 'OPTIONAL', externalName: 'fine' },
        { type: 'REQUIRED', versionId: own.id },
      ]),
      400,
    );
    expect(viaVersion.details).toEqual({ fields: { 'body.dependencies.1.versionId': expect.any(String) } });
  });

  it('refuses unknown and invisible targets alike (400 with details.fields)', async () => {
    const mine = await approvedResource(t, cast);
    const hidden = await createResource(t.app, cast.stranger); // PENDING, someone else's
    const publicResource = await approvedResource(t, cast, cast.stranger);
    const draft = await createVersion(t.app, cast.stranger, publicResource.id);
    for (const [target, key] of [
      [{ resourceId: hidden.id }, 'resourceId'],
      [{ resourceId: '0190a0a0-0000-7000-8000-000000000000' }, 'resourceId'],
      [{ versionId: draft.id }, 'versionId'],
      [{ versionId: 'garbage' }, 'versionId'],
    ] as const) {
      const body = expectError(await create(mine.id, [{ type: 'REQUIRED', ...target }]), 400);
      expect(body.details).toEqual({ fields: { [`body.dependencies.0.${key}`]: 'unknown or not visible' } });
    }
    // The stranger sees their own hidden resource and draft version, so they may depend on them.
    const theirs = await approvedResource(t, cast, cast.stranger);
    const allowed = await create(
      theirs.id,
      [
        { type: 'REQUIRED', resourceId: hidden.id },
        { type: 'OPTIONAL', versionId: draft.id },
      ],
      cast.stranger,
    );
    expect(allowed.statusCode, allowed.body).toBe(201);
    // A target that is not publicly visible shows no summary.
    const [onHidden] = (allowed.json() as VersionWithDependencies).dependencies;
    expect(onHidden).toMatchObject({ resourceId: hidden.id, resource: null });
    // A moderator sees every resource: a moderator who edits a resource may name a hidden one.
    const moderated = await createResource(t.app, cast.moderator);
    const byModerator = await create(
      moderated.id,
      [{ type: 'REQUIRED', resourceId: hidden.id }],
      cast.moderator,
    );
    expect(byModerator.statusCode, byModerator.body).toBe(201);
  });

  it.each([
    ['no target', [{ type: 'REQUIRED' }], 'body.dependencies.0'],
    ['two targets', [{ type: 'REQUIRED', resourceId: 'a', externalName: 'b' }], 'body.dependencies.0'],
    ['externalUrl on an internal target', 'url-on-internal', 'body.dependencies.0.externalUrl'],
    ['the same resource twice', 'same-twice', 'body.dependencies.1.versionId'],
  ])('refuses %s (400)', async (_label, dependencies, field) => {
    const mine = await approvedResource(t, cast);
    const target = await approvedResource(t, cast);
    const targetVersion = await release(t, cast, target.id);
    const payload =
      dependencies === 'url-on-internal'
        ? [{ type: 'REQUIRED', resourceId: target.id, externalUrl: 'https://example.org' }]
        : dependencies === 'same-twice'
          ? [
              { type: 'REQUIRED', resourceId: target.id },
              { type: 'OPTIONAL', versionId: targetVersion.id },
            ]
          : dependencies;
    const body = expectError(await create(mine.id, payload), 400);
    expect(Object.keys((body.details as { fields: object }).fields)).toEqual([field]);
  });

  it.each([
    ['an unknown type', [{ type: 'MAYBE', externalName: 'x' }]],
    ['no type', [{ externalName: 'x' }]],
    ['a non-http externalUrl', [{ type: 'REQUIRED', externalName: 'x', externalUrl: 'javascript:alert(1)' }]],
    ['a blank externalName', [{ type: 'REQUIRED', externalName: '   ' }]],
    [
      'a minVersion over 50 characters',
      [{ type: 'REQUIRED', externalName: 'x', minVersion: '1'.repeat(51) }],
    ],
    ['a number as resourceId', [{ type: 'REQUIRED', resourceId: 12 }]],
    ['not a list', { type: 'REQUIRED', externalName: 'x' }],
    [
      '51 dependencies',
      Array.from({ length: 51 }, (_, i) => ({ type: 'OPTIONAL', externalName: `lib ${i}` })),
    ],
  ])('refuses %s (400, never 5xx)', async (_label, dependencies) => {
    const mine = await approvedResource(t, cast);
    expectError(await create(mine.id, dependencies), 400);
  });

  it('accepts 50 dependencies and unicode names', async () => {
    const mine = await approvedResource(t, cast);
    const dependencies = Array.from({ length: 50 }, (_, i) => ({
      type: 'OPTIONAL',
      externalName: `库 ✓ ${i}`,
    }));
    const response = await create(mine.id, dependencies);
    expect(response.statusCode, response.body).toBe(201);
    const names = (response.json() as VersionWithDependencies).dependencies.map((d) => d.externalName);
    expect(names).toEqual(dependencies.map((d) => d.externalName));
  });
});

describe('PATCH of dependencies', () => {
  it('replaces the whole list in DRAFT, keeps it when absent, and [] clears it', async () => {
    const mine = await approvedResource(t, cast);
    const [a, b] = await Promise.all([approvedResource(t, cast), approvedResource(t, cast)]);
    const created = (
      await create(mine.id, [{ type: 'REQUIRED', resourceId: a.id }])
    ).json() as VersionWithDependencies;
    const replaced = await patchDependencies(t, cast.stranger, created, [
      { type: 'OPTIONAL', resourceId: b.id },
      { type: 'REQUIRED', externalName: 'Core' },
    ]);
    // Someone who may not see the draft gets a 404.
    expect(replaced.statusCode, replaced.body).toBe(404);
    const byOwner = await patchDependencies(t, cast.owner, created, [
      { type: 'OPTIONAL', resourceId: b.id },
      { type: 'REQUIRED', externalName: 'Core' },
    ]);
    expect(byOwner.statusCode, byOwner.body).toBe(200);
    expect(
      (byOwner.json() as VersionWithDependencies).dependencies.map((d) => d.resourceId ?? d.externalName),
    ).toEqual([b.id, 'Core']);
    const renamed = await t.app.inject({
      method: 'PATCH',
      url: `${versionsUrl(mine.id)}/${created.id}`,
      headers: cast.owner.headers,
      payload: { name: 'Renamed' },
    });
    expect((renamed.json() as VersionWithDependencies).dependencies).toHaveLength(2);
    const cleared = await patchDependencies(t, cast.owner, created, []);
    expect((cleared.json() as VersionWithDependencies).dependencies).toEqual([]);
  });

  it('changes nothing when the new list is invalid', async () => {
    const mine = await approvedResource(t, cast);
    const a = await approvedResource(t, cast);
    const created = (
      await create(mine.id, [{ type: 'REQUIRED', resourceId: a.id }])
    ).json() as VersionWithDependencies;
    expectError(
      await patchDependencies(t, cast.owner, created, [
        { type: 'REQUIRED', externalName: 'ok' },
        { type: 'REQUIRED', resourceId: mine.id },
      ]),
      400,
    );
    const read = (await readVersion(t.app, cast.owner, mine.id, created.id)) as VersionWithDependencies;
    expect(read.dependencies.map((d) => d.resourceId)).toEqual([a.id]);
  });

  it('is refused outside DRAFT and REJECTED (409)', async () => {
    const mine = await approvedResource(t, cast);
    const version = await createVersion(t.app, cast.owner, mine.id);
    await uploadFile(t.app, cast.owner, mine.id, version.id);
    await act(t.app, cast.owner, mine.id, version.id, 'submit');
    expectError(
      await patchDependencies(t, cast.owner, version, [{ type: 'REQUIRED', externalName: 'x' }]),
      409,
      'INVALID_STATUS_TRANSITION',
    );
    await act(t.app, cast.moderator, mine.id, version.id, 'reject', { reason: 'missing deps' });
    const fixed = await patchDependencies(t, cast.owner, version, [{ type: 'REQUIRED', externalName: 'x' }]);
    expect(fixed.statusCode, fixed.body).toBe(200);
  });
});

describe('a deleted target', () => {
  it('keeps the dependency with null ids instead of dropping it', async () => {
    const mine = await approvedResource(t, cast);
    const target = await approvedResource(t, cast);
    const targetVersion = await release(t, cast, target.id);
    const other = await approvedResource(t, cast);
    const version = await release(t, cast, mine.id, [
      { type: 'REQUIRED', versionId: targetVersion.id },
      { type: 'OPTIONAL', resourceId: other.id },
    ]);
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/resources/${target.id}`,
      headers: cast.owner.headers,
    });
    expect(deleted.statusCode, deleted.body).toBe(204);
    const read = (await readVersion(t.app, null, mine.id, version.id)) as VersionWithDependencies;
    expect(read.dependencies).toEqual([
      expect.objectContaining({ type: 'REQUIRED', resourceId: null, versionId: null, resource: null }),
      expect.objectContaining({ type: 'OPTIONAL', resourceId: other.id }),
    ]);
    // A target suspended later is still named, without its summary.
    await moderate(t.app, cast.moderator, other.id, 'SUSPEND', 'rules');
    const later = (await readVersion(t.app, null, mine.id, version.id)) as VersionWithDependencies;
    expect(later.dependencies[1]).toMatchObject({ resourceId: other.id, resource: null });
  });
});
