// POST /version-files/update and GET /resources/:resourceId/versions/latest (spec/extensions.md §2.1): the
// newest APPROVED version compatible with one of the game versions and channels, newer than the file's own
// version; never a DRAFT, PENDING, REJECTED or ARCHIVED one; visibility; limits; queries per request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { expectError } from '../../helpers/http.js';
import { createResourceCast, moderate, readCatalogs, resourceFor } from '../../resources/helpers.js';
import type { ResourceCast } from '../../resources/helpers.js';
import { act } from '../helpers.js';
import type { VersionBody } from '../helpers.js';
import { digest, queriesOf, randomHashes, versionWith } from './helpers.js';
import type { Channel, Status } from './helpers.js';

let t: TestApp;
let cast: ResourceCast;
let gv: Array<{ id: string; name: string }>;

beforeAll(async () => {
  t = await buildTestApp({ METRICS: 'on' });
  cast = await createResourceCast(t.app);
  gv = (await readCatalogs(t.app)).gameVersions;
  expect(gv.length).toBeGreaterThanOrEqual(3);
});
afterAll(async () => t.close());

const updates = (payload: unknown, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: '/version-files/update', headers, payload: payload as object });
const updatesOf = async (payload: unknown, headers: Record<string, string> = {}) => {
  const response = await updates(payload, headers);
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { updates: Record<string, VersionBody> }).updates;
};
const latest = (resourceId: string, query = '', headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url: `/resources/${resourceId}/versions/latest${query}`, headers });

/**
 * One resource's history, oldest first: each entry is a version made (and approved) after the previous one.
 *   base      APPROVED RELEASE gv0        (the file the launcher has)
 *   beta      APPROVED BETA    gv1
 *   release   APPROVED RELEASE gv0, gv2
 *   pending   PENDING  RELEASE gv0
 *   draft     DRAFT    RELEASE gv0
 *   rejected  REJECTED RELEASE gv0
 *   archived  ARCHIVED RELEASE gv0       (approved last, then archived)
 */
interface History {
  resourceId: string;
  versions: Record<string, VersionBody>;
  hashes: Record<string, string>;
}

async function history(kind: 'USER' | 'TEAM' = 'USER'): Promise<History> {
  const resource = await resourceFor(t.app, cast, kind, 'APPROVED');
  const editor = kind === 'USER' ? cast.owner : cast.teamOwner;
  const plan: Array<[string, Status, Channel, number[]]> = [
    ['base', 'APPROVED', 'RELEASE', [0]],
    ['beta', 'APPROVED', 'BETA', [1]],
    ['release', 'APPROVED', 'RELEASE', [0, 2]],
    ['pending', 'PENDING', 'RELEASE', [0]],
    ['draft', 'DRAFT', 'RELEASE', [0]],
    ['rejected', 'REJECTED', 'RELEASE', [0]],
    ['archived', 'ARCHIVED', 'RELEASE', [0]],
  ];
  const result: History = { resourceId: resource.id, versions: {}, hashes: {} };
  for (const [name, status, channel, gameVersions] of plan) {
    const { version, content } = await versionWith(
      t.app,
      t.clock,
      { editor, moderator: cast.moderator },
      resource.id,
      { status, channel, gameVersionIds: gameVersions.map((index) => gv[index]!.id) },
    );
    result.versions[name] = version;
    result.hashes[name] = digest('sha512', content);
  }
  return result;
}

describe('POST /version-files/update', () => {
  let h: History;
  beforeAll(async () => {
    h = await history();
  });

  it('no filter: the newest APPROVED version, never a pending, draft, rejected or archived one', async () => {
    const found = await updatesOf({ hashes: [h.hashes['base']] });
    expect(Object.keys(found)).toEqual([h.hashes['base']]);
    expect(found[h.hashes['base']!]).toMatchObject({ id: h.versions['release']!.id, status: 'APPROVED' });
    expect(found[h.hashes['base']!]!.files).toHaveLength(1);
    expect(found[h.hashes['base']!]!.compatibleGameVersions.map((g) => g.name).sort()).toEqual(
      [gv[0]!.name, gv[2]!.name].sort(),
    );
  });

  it('the newest version itself, and anything newer than every APPROVED one, has no update', async () => {
    const found = await updatesOf({ hashes: [h.hashes['release'], h.hashes['archived']] });
    expect(found).toEqual({});
  });

  it('the owner’s newer draft and pending files: the newest APPROVED is not newer than them', async () => {
    // A version never approved ranks below approved ones, so the newest APPROVED version is the update.
    const found = await updatesOf({ hashes: [h.hashes['draft'], h.hashes['pending']] }, cast.owner.headers);
    expect(found[h.hashes['draft']!]?.id).toBe(h.versions['release']!.id);
    expect(found[h.hashes['pending']!]?.id).toBe(h.versions['release']!.id);
    // The public does not know these files at all.
    expect(await updatesOf({ hashes: [h.hashes['draft'], h.hashes['pending']] })).toEqual({});
  });

  it('channels: only versions in one of them', async () => {
    const base = h.hashes['base']!;
    expect((await updatesOf({ hashes: [base], channels: ['BETA'] }))[base]?.id).toBe(h.versions['beta']!.id);
    expect((await updatesOf({ hashes: [base], channels: ['RELEASE'] }))[base]?.id).toBe(
      h.versions['release']!.id,
    );
    expect((await updatesOf({ hashes: [base], channels: ['BETA', 'RELEASE', 'BETA'] }))[base]?.id).toBe(
      h.versions['release']!.id,
    );
    expect(await updatesOf({ hashes: [base], channels: ['ALPHA', 'SNAPSHOT'] })).toEqual({});
    // The beta is newer than base but older than release: from the beta file, RELEASE has an update, BETA not.
    const beta = h.hashes['beta']!;
    expect((await updatesOf({ hashes: [beta], channels: ['RELEASE'] }))[beta]?.id).toBe(
      h.versions['release']!.id,
    );
    expect(await updatesOf({ hashes: [beta], channels: ['BETA'] })).toEqual({});
  });

  it('gameVersions (names): compatible with one of them; unknown names match nothing', async () => {
    const base = h.hashes['base']!;
    const only = async (names: string[]) =>
      (await updatesOf({ hashes: [base], gameVersions: names }))[base]?.id;
    expect(await only([gv[1]!.name])).toBe(h.versions['beta']!.id);
    expect(await only([gv[2]!.name])).toBe(h.versions['release']!.id);
    expect(await only([gv[1]!.name, gv[2]!.name])).toBe(h.versions['release']!.id);
    // gv0: base and release are compatible; release is newer.
    expect(await only([gv[0]!.name])).toBe(h.versions['release']!.id);
    expect(await only(['no-such-game-version'])).toBeUndefined();
    const both = await updatesOf({ hashes: [base], gameVersions: [gv[1]!.name], channels: ['RELEASE'] });
    expect(both).toEqual({});
  });

  it('a hash of a file the caller cannot see, or of no file, is absent; any case, repeats, other algorithms', async () => {
    const [absent] = randomHashes(1);
    const found = await updatesOf({
      hashes: [h.hashes['base']!.toUpperCase(), h.hashes['base'], absent, h.hashes['rejected']],
    });
    expect(Object.keys(found)).toEqual([h.hashes['base']]);
    const baseFile = h.versions['base']!.files[0]!;
    const sha1 = await updatesOf({ algorithm: 'sha1', hashes: [baseFile.hashes.sha1] });
    expect(sha1[baseFile.hashes.sha1]?.id).toBe(h.versions['release']!.id);
  });

  it('a suspended resource: no update for the public; its owner side still gets them', async () => {
    const hidden = await history('TEAM');
    await moderate(t.app, cast.moderator, hidden.resourceId, 'SUSPEND', 'checking');
    expect(await updatesOf({ hashes: [hidden.hashes['base']] })).toEqual({});
    expect(await updatesOf({ hashes: [hidden.hashes['base']] }, cast.stranger.headers)).toEqual({});
    const forMember = await updatesOf({ hashes: [hidden.hashes['base']] }, cast.teamMember.headers);
    expect(forMember[hidden.hashes['base']!]?.id).toBe(hidden.versions['release']!.id);
  });

  it('a newly approved version becomes the update; archiving it moves the update back', async () => {
    const fresh = await history();
    const base = fresh.hashes['base']!;
    t.clock.advance(60_000);
    await act(t.app, cast.moderator, fresh.resourceId, fresh.versions['pending']!.id, 'approve');
    expect((await updatesOf({ hashes: [base] }))[base]?.id).toBe(fresh.versions['pending']!.id);
    await act(t.app, cast.owner, fresh.resourceId, fresh.versions['pending']!.id, 'archive');
    expect((await updatesOf({ hashes: [base] }))[base]?.id).toBe(fresh.versions['release']!.id);
  });

  it('1,000 hashes cost the queries of one; 1,001 → 400; malformed bodies → 400', async () => {
    const histories = [h, await history('TEAM')];
    const known = histories.flatMap((one) => Object.values(one.hashes));
    const thousand = [...known, ...randomHashes(1000 - known.length)];
    for (const headers of [{}, cast.teamMember.headers]) {
      // One hash of a team resource: the costliest single one (the caller's team role is read too).
      const teamHash = histories[1]!.hashes['base'];
      await updates({ hashes: [teamHash] }, headers);
      const one = await queriesOf(t.app, () => updates({ hashes: [teamHash] }, headers));
      const many = await queriesOf(t.app, async () => {
        const found = await updatesOf({ hashes: thousand, gameVersions: [gv[0]!.name] }, headers);
        expect(Object.keys(found).length).toBeGreaterThanOrEqual(2);
      });
      expect(many).toBe(one);
      expect(many).toBeLessThanOrEqual(10);
    }
    expectError(await updates({ hashes: [...thousand, randomHashes(1)[0]] }), 400, 'INVALID_REQUEST');
    const bad = [
      {},
      { hashes: [known[0]], channels: [] },
      { hashes: [known[0]], channels: ['STABLE'] },
      { hashes: [known[0]], gameVersions: [] },
      { hashes: [known[0]], gameVersions: [''] },
      { hashes: [known[0]], gameVersions: ['x'.repeat(101)] },
      { hashes: [known[0]], gameVersions: Array.from({ length: 101 }, (_, i) => `v${i}`) },
      { hashes: [known[0]], gameVersions: 'a' },
      { hashes: [known[0]!.slice(0, 40)] },
      { hashes: [known[0]], algorithm: 'sha1' },
    ];
    for (const payload of bad) expectError(await updates(payload), 400, 'INVALID_REQUEST');
  });
});

describe('GET /resources/:resourceId/versions/latest', () => {
  let h: History;
  beforeAll(async () => {
    h = await history();
  });

  it('the newest APPROVED version, optionally for a game version name and a channel', async () => {
    const body = async (query: string) => {
      const response = await latest(h.resourceId, query);
      expect(response.statusCode, response.body).toBe(200);
      return response.json() as VersionBody;
    };
    expect((await body('')).id).toBe(h.versions['release']!.id);
    expect((await body('?channel=BETA')).id).toBe(h.versions['beta']!.id);
    expect((await body(`?gameVersion=${encodeURIComponent(gv[1]!.name)}`)).id).toBe(h.versions['beta']!.id);
    expect((await body(`?gameVersion=${encodeURIComponent(gv[0]!.name)}&channel=RELEASE`)).id).toBe(
      h.versions['release']!.id,
    );
    const full = await body('');
    expect(full.files).toHaveLength(1);
    expect(full.compatibleGameVersions).toHaveLength(2);
    expectError(await latest(h.resourceId, '?channel=ALPHA'), 404, 'NOT_FOUND');
    expectError(await latest(h.resourceId, '?gameVersion=nope'), 404, 'NOT_FOUND');
    expectError(
      await latest(h.resourceId, `?gameVersion=${encodeURIComponent(gv[1]!.name)}&channel=RELEASE`),
      404,
    );
  });

  it('the ordering is by approval time: approving an older version later makes it the latest', async () => {
    const fresh = await history();
    // `pending` was created after `release`; approve it now: newest by approval.
    t.clock.advance(60_000);
    await act(t.app, cast.moderator, fresh.resourceId, fresh.versions['pending']!.id, 'approve');
    expect((await latest(fresh.resourceId)).json()).toMatchObject({ id: fresh.versions['pending']!.id });
  });

  it('a resource the public does not see is 404, even for its owner; bad input → 400', async () => {
    const pending = await resourceFor(t.app, cast, 'USER', 'PENDING');
    expectError(await latest(pending.id), 404, 'NOT_FOUND');
    expectError(await latest(pending.id, '', cast.owner.headers), 404, 'NOT_FOUND');
    const suspended = await history();
    await moderate(t.app, cast.moderator, suspended.resourceId, 'SUSPEND', 'checking');
    expectError(await latest(suspended.resourceId), 404, 'NOT_FOUND');
    const empty = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    expectError(await latest(empty.id), 404, 'NOT_FOUND');
    expectError(await latest('01a2d000-0000-7000-8000-000000000000'), 404, 'NOT_FOUND');
    expectError(await latest(h.resourceId, '?channel=stable'), 400, 'INVALID_REQUEST');
    expectError(await latest(h.resourceId, '?gameVersion='), 400, 'INVALID_REQUEST');
    expectError(await latest(h.resourceId, `?gameVersion=${'x'.repeat(101)}`), 400, 'INVALID_REQUEST');
    const garbage = await latest('%F0%9F%92%A9');
    expect(garbage.statusCode).toBeGreaterThanOrEqual(400);
    expect(garbage.statusCode).toBeLessThan(500);
  });
});
