// GET /version-files/:hash and POST /version-files/lookup (spec/extensions.md §2.1): the answer's shape, every
// version status and resource status against every kind of caller, "newest" by approval then creation time,
// hash validation, bulk limits, and a fixed number of queries whatever the number of hashes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { createUser } from '../../helpers/factories.js';
import { expectError } from '../../helpers/http.js';
import { createResourceCast, headersOf, moderate, resourceFor } from '../../resources/helpers.js';
import type { ResourceCast, ResourcePersona } from '../../resources/helpers.js';
import { act, createVersion, gameVersionIds, uploadFile } from '../helpers.js';
import { digest, queriesOf, randomHashes, uniqueContent, versionWith } from './helpers.js';
import type { Status } from './helpers.js';

let t: TestApp;
let cast: ResourceCast;
let gameVersions: string[];

beforeAll(async () => {
  t = await buildTestApp({ METRICS: 'on' });
  cast = await createResourceCast(t.app);
  gameVersions = await gameVersionIds(t.app);
});
afterAll(async () => t.close());

const byHash = (hash: string, headers: Record<string, string> = {}, query = '') =>
  t.app.inject({ method: 'GET', url: `/version-files/${hash}${query}`, headers });
const lookup = (payload: unknown, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: '/version-files/lookup', headers, payload: payload as object });

interface MatchBody {
  file: { id: string; versionId: string; hashes: { sha1: string; sha256: string; sha512: string } };
  version: { id: string; status: Status; files: unknown[]; compatibleGameVersions: unknown[] };
  resource: Record<string, unknown>;
}

describe('GET /version-files/:hash', () => {
  it('answers the file, its full version and the resource summary; sha512 by default, any case', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const actors = { editor: cast.owner, moderator: cast.moderator };
    const { version, content } = await versionWith(t.app, t.clock, actors, resource.id, {
      status: 'APPROVED',
      gameVersionIds: [gameVersions[0]!],
    });
    const sha512 = digest('sha512', content);
    const response = await byHash(sha512.toUpperCase());
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json() as MatchBody;
    expect(body.file.id).toBe(version.files[0]!.id);
    expect(body.file.hashes).toEqual({
      sha1: digest('sha1', content),
      sha256: digest('sha256', content),
      sha512,
    });
    expect(body.version).toMatchObject({ id: version.id, status: 'APPROVED', isLatest: true });
    expect(body.version.files).toHaveLength(1);
    expect(body.version.compatibleGameVersions).toEqual(version.compatibleGameVersions);
    expect(body.resource).toEqual({
      id: resource.id,
      name: resource.name,
      slug: resource.slug,
      shortDescription: resource.shortDescription,
      iconUrl: null,
      type: resource.type,
    });
    for (const algorithm of ['sha1', 'sha256', 'sha512'] as const) {
      const found = await byHash(digest(algorithm, content), {}, `?algorithm=${algorithm}`);
      expect(found.statusCode, found.body).toBe(200);
      expect((found.json() as MatchBody).file.id).toBe(body.file.id);
    }
  });

  it('checks the hash against the algorithm: wrong length, non-hex, unknown algorithm → 400', async () => {
    const sha1 = 'a'.repeat(40);
    // A sha1-long hash under the default algorithm (sha512) is malformed, not merely unknown.
    expectError(await byHash(sha1), 400, 'INVALID_REQUEST');
    expectError(await byHash('a'.repeat(64), {}, '?algorithm=sha512'), 400, 'INVALID_REQUEST');
    expectError(await byHash('a'.repeat(128), {}, '?algorithm=sha1'), 400, 'INVALID_REQUEST');
    expectError(await byHash('g'.repeat(128)), 400, 'INVALID_REQUEST');
    expectError(await byHash('a'.repeat(129)), 414, 'URI_TOO_LONG');
    expectError(await byHash('a'.repeat(12)), 400, 'INVALID_REQUEST');
    expectError(await byHash(sha1, {}, '?algorithm=md5'), 400, 'INVALID_REQUEST');
    expectError(await byHash(`${'a'.repeat(126)}%C3%A9`), 400, 'INVALID_REQUEST');
    // Well-formed but unknown.
    expectError(await byHash(sha1, {}, '?algorithm=sha1'), 404, 'NOT_FOUND');
    expectError(await byHash('b'.repeat(128)), 404, 'NOT_FOUND');
  });
});

// Who sees a file of a version in each status, on an APPROVED resource (the owner side sees everything).
const SEES_ALL: readonly ResourcePersona[] = [
  'owner',
  'teamOwner',
  'teamAdmin',
  'teamModerator',
  'teamMember',
  'contributor',
  'maintainer',
  'moderator',
  'admin',
];
const STATUSES: readonly Status[] = ['DRAFT', 'PENDING', 'APPROVED', 'REJECTED', 'ARCHIVED'];

/** Whether the persona is on the owner side of a resource of this kind (owner rights, team role, contributor). */
const ownerSide = (kind: 'USER' | 'TEAM', persona: ResourcePersona): boolean =>
  SEES_ALL.includes(persona) &&
  (persona === 'moderator' ||
    persona === 'admin' ||
    (kind === 'USER' ? !persona.startsWith('team') : persona !== 'owner'));

describe('visibility: every version status × every persona, user and team resources', () => {
  const kinds = ['USER', 'TEAM'] as const;
  const files = new Map<string, string>();

  beforeAll(async () => {
    for (const kind of kinds) {
      const resource = await resourceFor(t.app, cast, kind, 'APPROVED');
      const editor = kind === 'USER' ? cast.owner : cast.teamOwner;
      for (const status of STATUSES) {
        const { content } = await versionWith(
          t.app,
          t.clock,
          { editor, moderator: cast.moderator },
          resource.id,
          { status, gameVersionIds: [gameVersions[0]!] },
        );
        files.set(`${kind}/${status}`, digest('sha512', content));
      }
    }
  });

  const personas: ResourcePersona[] = [...SEES_ALL, 'stranger', 'anonymous'];
  const cases = kinds.flatMap((kind) =>
    personas.flatMap((persona) => STATUSES.map((status) => [kind, persona, status] as const)),
  );

  it.each(cases)('%s resource, %s, %s version', async (kind, persona, status) => {
    const hash = files.get(`${kind}/${status}`)!;
    const seen = ownerSide(kind, persona) || status === 'APPROVED' || status === 'ARCHIVED';
    const single = await byHash(hash, headersOf(cast, persona));
    if (seen) expect(single.statusCode, single.body).toBe(200);
    else expectError(single, 404, 'NOT_FOUND');
    const bulk = await lookup({ hashes: [hash] }, headersOf(cast, persona));
    expect(bulk.statusCode, bulk.body).toBe(200);
    expect(Object.keys((bulk.json() as { files: object }).files)).toEqual(seen ? [hash] : []);
  });
});

describe('visibility of resources the public does not see', () => {
  it('a suspended resource’s APPROVED files: owner side and moderators only; a PENDING resource’s drafts too', async () => {
    const suspended = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const actors = { editor: cast.owner, moderator: cast.moderator };
    const approved = await versionWith(t.app, t.clock, actors, suspended.id, {
      status: 'APPROVED',
      gameVersionIds: [gameVersions[0]!],
    });
    const hash = digest('sha512', approved.content);
    expect((await byHash(hash)).statusCode).toBe(200);
    await moderate(t.app, cast.moderator, suspended.id, 'SUSPEND', 'spam');
    expectError(await byHash(hash), 404);
    expectError(await byHash(hash, cast.stranger.headers), 404);
    expect((await byHash(hash, cast.owner.headers)).statusCode).toBe(200);
    expect((await byHash(hash, cast.contributor.headers)).statusCode).toBe(200);
    expect((await byHash(hash, cast.moderator.headers)).statusCode).toBe(200);

    const pending = await resourceFor(t.app, cast, 'TEAM', 'PENDING');
    const draft = await versionWith(
      t.app,
      t.clock,
      { editor: cast.teamMember, moderator: cast.moderator },
      pending.id,
      {
        status: 'DRAFT',
        gameVersionIds: [gameVersions[0]!],
      },
    );
    const draftHash = digest('sha512', draft.content);
    const seenBy = async (headers: Record<string, string>) =>
      Object.keys(((await lookup({ hashes: [draftHash, hash] }, headers)).json() as { files: object }).files);
    expect(await seenBy({})).toEqual([]);
    expect(await seenBy(cast.stranger.headers)).toEqual([]);
    expect(await seenBy(cast.owner.headers)).toEqual([hash]);
    expect((await seenBy(cast.teamMember.headers)).sort()).toEqual([draftHash]);
    expect((await seenBy(cast.moderator.headers)).sort()).toEqual([draftHash, hash].sort());
  });
});

describe('newest: by approval time, then creation time', () => {
  it('the version approved last wins, whatever the creation order; approved beats never approved', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const content = uniqueContent('shared');
    const hash = digest('sha512', content);
    const [older, newer] = [
      await createVersion(t.app, cast.owner, resource.id),
      await createVersion(t.app, cast.owner, resource.id),
    ];
    for (const version of [older!, newer!]) {
      await uploadFile(t.app, cast.owner, resource.id, version.id, { data: content, name: 'same.txt' });
      await act(t.app, cast.owner, resource.id, version.id, 'submit');
    }
    // The newer version is approved first, the older one a minute later: the older one is the newest.
    t.clock.advance(60_000);
    await act(t.app, cast.moderator, resource.id, newer!.id, 'approve');
    t.clock.advance(60_000);
    await act(t.app, cast.moderator, resource.id, older!.id, 'approve');
    const found = (await byHash(hash)).json() as MatchBody;
    expect(found.version.id).toBe(older!.id);

    // A later draft with the same file does not displace an approved version, for its owner either.
    t.clock.advance(60_000);
    await versionWith(t.app, t.clock, { editor: cast.owner, moderator: cast.moderator }, resource.id, {
      status: 'DRAFT',
      gameVersionIds: [gameVersions[0]!],
      content,
    });
    expect(((await byHash(hash, cast.owner.headers)).json() as MatchBody).version.id).toBe(older!.id);
  });

  it('equal approval times: the version created later wins', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const content = uniqueContent('tie');
    const ids: string[] = [];
    for (let index = 0; index < 2; index++) {
      t.clock.advance(60_000);
      const version = await createVersion(t.app, cast.owner, resource.id);
      await uploadFile(t.app, cast.owner, resource.id, version.id, { data: content, name: 'tie.txt' });
      await act(t.app, cast.owner, resource.id, version.id, 'submit');
      ids.push(version.id);
    }
    // Both approvals at the same instant (the clock does not move between them).
    for (const id of [...ids].reverse()) await act(t.app, cast.moderator, resource.id, id, 'approve');
    expect(((await byHash(digest('sha512', content))).json() as MatchBody).version.id).toBe(ids[1]);
  });

  it('the same file in two owners’ resources: each caller gets the newest they may see', async () => {
    const content = uniqueContent('copied');
    const hash = digest('sha512', content);
    const original = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const first = await versionWith(
      t.app,
      t.clock,
      { editor: cast.owner, moderator: cast.moderator },
      original.id,
      {
        status: 'APPROVED',
        gameVersionIds: [gameVersions[0]!],
        content,
      },
    );
    const copier = await createUser(t.app);
    const copy = (
      await t.app.inject({
        method: 'POST',
        url: '/resources',
        headers: copier.headers,
        payload: {
          name: 'Copy',
          slug: `copy-${process.pid}-${Date.now()}`,
          shortDescription: 'x',
          type: 'MOD',
        },
      })
    ).json() as { id: string };
    const copied = await versionWith(t.app, t.clock, { editor: copier, moderator: cast.moderator }, copy.id, {
      status: 'DRAFT',
      gameVersionIds: [gameVersions[0]!],
      content,
    });
    expect(((await byHash(hash)).json() as MatchBody).version.id).toBe(first.version.id);
    // The copier sees both: the approved one ranks above their own draft.
    expect(((await byHash(hash, copier.headers)).json() as MatchBody).version.id).toBe(first.version.id);
    expect(copied.version.status).toBe('DRAFT');
  });
});

describe('dependencies in the answers', () => {
  it('the version object carries its dependencies, in the single and the bulk lookup', async () => {
    const target = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const content = uniqueContent('with-deps');
    const version = await createVersion(t.app, cast.owner, resource.id, {
      dependencies: [
        { type: 'REQUIRED', resourceId: target.id },
        { type: 'OPTIONAL', externalName: 'Elsewhere', externalUrl: 'https://example.test/x' },
      ],
    });
    await uploadFile(t.app, cast.owner, resource.id, version.id, { data: content, name: 'deps.txt' });
    await act(t.app, cast.owner, resource.id, version.id, 'submit');
    await act(t.app, cast.moderator, resource.id, version.id, 'approve');
    const hash = digest('sha512', content);
    const expected = [
      expect.objectContaining({ type: 'REQUIRED', resourceId: target.id, externalName: null }),
      expect.objectContaining({ type: 'OPTIONAL', resourceId: null, externalName: 'Elsewhere' }),
    ];
    const single = (await byHash(hash)).json() as { version: { dependencies: unknown[] } };
    expect(single.version.dependencies).toEqual(expected);
    const bulk = (await lookup({ hashes: [hash] })).json() as {
      files: Record<string, { version: { dependencies: unknown[] } }>;
    };
    expect(bulk.files[hash]!.version.dependencies).toEqual(expected);
  });
});

describe('POST /version-files/lookup', () => {
  it('answers by lower-case hash, the found ones only; repeats and any case are fine', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const actors = { editor: cast.owner, moderator: cast.moderator };
    const a = await versionWith(t.app, t.clock, actors, resource.id, {
      status: 'APPROVED',
      gameVersionIds: [gameVersions[0]!],
    });
    const b = await versionWith(t.app, t.clock, actors, resource.id, {
      status: 'ARCHIVED',
      gameVersionIds: [gameVersions[0]!],
    });
    const [hashA, hashB] = [digest('sha256', a.content), digest('sha256', b.content)];
    const [absent] = randomHashes(1, 64);
    const response = await lookup({
      algorithm: 'sha256',
      hashes: [hashA.toUpperCase(), hashA, hashB, absent],
    });
    expect(response.statusCode, response.body).toBe(200);
    const files = (response.json() as { files: Record<string, MatchBody> }).files;
    expect(Object.keys(files).sort()).toEqual([hashA, hashB].sort());
    expect(files[hashA]!.version.id).toBe(a.version.id);
    expect(files[hashB]!.version).toMatchObject({ id: b.version.id, status: 'ARCHIVED' });
    expect(files[hashB]!.resource['id']).toBe(resource.id);
    expect((await lookup({ hashes: [] })).json()).toEqual({ files: {} });
  });

  it('1,000 hashes are answered; 1,001 → 400; malformed input → 400', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const { content } = await versionWith(
      t.app,
      t.clock,
      { editor: cast.owner, moderator: cast.moderator },
      resource.id,
      { status: 'APPROVED', gameVersionIds: [gameVersions[0]!] },
    );
    const known = digest('sha512', content);
    const thousand = [...randomHashes(999), known];
    const ok = await lookup({ hashes: thousand, algorithm: 'sha512' });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(Object.keys((ok.json() as { files: object }).files)).toEqual([known]);
    expectError(await lookup({ hashes: [...thousand, randomHashes(1)[0]] }), 400, 'INVALID_REQUEST');

    const bad = [
      {},
      { hashes: 'abc' },
      { hashes: [known], algorithm: 'md5' },
      { hashes: [known.slice(0, 64)] },
      { hashes: [known, 'a'.repeat(40)] },
      { hashes: [known], algorithm: 'sha256' },
      { hashes: [`${known.slice(0, 127)}z`] },
      { hashes: [123] },
      { hashes: [null] },
      { hashes: [`${known.slice(0, 126)}é`] },
    ];
    for (const payload of bad) expectError(await lookup(payload), 400, 'INVALID_REQUEST');
    expectError(
      await t.app.inject({
        method: 'POST',
        url: '/version-files/lookup',
        headers: { 'content-type': 'application/json' },
        payload: '{"hashes": [',
      }),
      400,
    );
  });

  it('costs the same number of queries for 1 hash as for 1,000, anonymous or signed in', async () => {
    const actors = { editor: cast.teamOwner, moderator: cast.moderator };
    const hashes: string[] = [];
    // Files spread over several resources of both kinds, so every per-resource fact is needed.
    for (let index = 0; index < 6; index++) {
      const resource = await resourceFor(t.app, cast, index % 2 === 0 ? 'TEAM' : 'USER', 'APPROVED');
      const editor = index % 2 === 0 ? actors.editor : cast.owner;
      for (const status of ['APPROVED', 'DRAFT'] as const) {
        const { content } = await versionWith(
          t.app,
          t.clock,
          { editor, moderator: cast.moderator },
          resource.id,
          { status, gameVersionIds: [gameVersions[0]!] },
        );
        hashes.push(digest('sha512', content));
      }
    }
    const thousand = [...hashes, ...randomHashes(1000 - hashes.length)];
    for (const headers of [{}, cast.stranger.headers, cast.teamMember.headers, cast.moderator.headers]) {
      await lookup({ hashes: [hashes[0]] }, headers);
      const one = await queriesOf(t.app, () => lookup({ hashes: [hashes[0]] }, headers));
      const many = await queriesOf(t.app, async () => {
        const response = await lookup({ hashes: thousand }, headers);
        expect(response.statusCode).toBe(200);
      });
      expect(many).toBe(one);
      expect(many).toBeLessThanOrEqual(10);
    }
    const teamMemberSees = (await lookup({ hashes: thousand }, cast.teamMember.headers)).json() as {
      files: object;
    };
    // The team member sees the team resources' drafts too: 3 approved + 3 draft files, plus 3 user approved.
    expect(Object.keys(teamMemberSees.files)).toHaveLength(9);
  });
});
