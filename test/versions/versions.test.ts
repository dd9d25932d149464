// Versions: creation, reads, rules 1–4, the status machine through the routes, latest and archive, changelog
// sanitizing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { expectError } from '../helpers/http.js';
import { createResourceCast, resourceFor } from '../resources/helpers.js';
import type { ResourceCast } from '../resources/helpers.js';
import {
  act,
  createVersion,
  gameVersionIds,
  readVersion,
  uploadFile,
  versionIn,
  versionsUrl,
  versionUrl,
} from './helpers.js';
import type { VersionBody } from './helpers.js';

let t: TestApp;
let cast: ResourceCast;
let gameVersions: string[];

beforeAll(async () => {
  t = await buildTestApp();
  cast = await createResourceCast(t.app);
  gameVersions = await gameVersionIds(t.app);
});
afterAll(async () => t.close());

const actors = () => ({ editor: cast.owner, moderator: cast.moderator });

describe('creating a version', () => {
  it('starts DRAFT, not latest, with no downloads, files or changelog', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const response = await t.app.inject({
      method: 'POST',
      url: versionsUrl(resource.id),
      headers: cast.contributor.headers,
      payload: {
        versionNumber: '2.0.0-beta.1',
        name: 'Big update',
        channel: 'BETA',
        compatibleGameVersionIds: [gameVersions[0], gameVersions[1], gameVersions[0]],
      },
    });
    expect(response.statusCode, response.body).toBe(201);
    const version = response.json() as VersionBody;
    expect(version).toMatchObject({
      resourceId: resource.id,
      versionNumber: '2.0.0-beta.1',
      name: 'Big update',
      channel: 'BETA',
      status: 'DRAFT',
      changelog: null,
      downloads: 0,
      isLatest: false,
      files: [],
    });
    expect(version.compatibleGameVersions.map((g) => g.id).sort()).toEqual(
      [gameVersions[0], gameVersions[1]].sort(),
    );
    expect(version.compatibleGameVersions[0]).toHaveProperty('name');
  });

  it.each([
    ['no game version', { compatibleGameVersionIds: [] }],
    ['an unknown game version', { compatibleGameVersionIds: ['00000000-unknown'] }],
    ['no version number', { versionNumber: undefined }],
    ['an unknown channel', { channel: 'NIGHTLY' }],
    ['no channel', { channel: undefined }],
  ])('refuses %s (400)', async (_label, override) => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const response = await t.app.inject({
      method: 'POST',
      url: versionsUrl(resource.id),
      headers: cast.owner.headers,
      payload: {
        versionNumber: '1.0.0',
        channel: 'RELEASE',
        compatibleGameVersionIds: [gameVersions[0]],
        ...override,
      },
    });
    expectError(response, 400);
  });

  it('keeps version numbers unique per resource (409 VERSION_NUMBER_TAKEN), also under concurrency', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const other = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    await createVersion(t.app, cast.owner, resource.id, { versionNumber: '3.0.0' });
    await createVersion(t.app, cast.owner, other.id, { versionNumber: '3.0.0' });
    const again = await t.app.inject({
      method: 'POST',
      url: versionsUrl(resource.id),
      headers: cast.owner.headers,
      payload: { versionNumber: '3.0.0', channel: 'RELEASE', compatibleGameVersionIds: [gameVersions[0]] },
    });
    expectError(again, 409, 'VERSION_NUMBER_TAKEN');
    const racing = await Promise.all(
      [1, 2, 3].map(() =>
        t.app.inject({
          method: 'POST',
          url: versionsUrl(resource.id),
          headers: cast.owner.headers,
          payload: {
            versionNumber: '4.0.0',
            channel: 'RELEASE',
            compatibleGameVersionIds: [gameVersions[0]],
          },
        }),
      ),
    );
    expect(racing.map((r) => r.statusCode).sort()).toEqual([201, 409, 409]);
  });
});

describe('rules 1–3: update, delete and changelog by status', () => {
  const statuses = ['DRAFT', 'PENDING', 'APPROVED', 'REJECTED', 'ARCHIVED'] as const;
  const updatable = new Set(['DRAFT', 'REJECTED']);

  it.each(statuses)('update and delete of a %s version', async (status) => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const version = await versionIn(t.app, actors(), resource.id, status);
    const update = await t.app.inject({
      method: 'PATCH',
      url: versionUrl(resource.id, version.id),
      headers: cast.owner.headers,
      payload: { name: 'Renamed', channel: 'ALPHA', compatibleGameVersionIds: [gameVersions[1]] },
    });
    if (updatable.has(status)) {
      expect(update.statusCode, update.body).toBe(200);
      expect(update.json()).toMatchObject({ name: 'Renamed', channel: 'ALPHA', status });
      expect((update.json() as VersionBody).compatibleGameVersions.map((g) => g.id)).toEqual([
        gameVersions[1],
      ]);
    } else {
      expectError(update, 409, 'INVALID_STATUS_TRANSITION');
      expect((await readVersion(t.app, cast.owner, resource.id, version.id)).name).toBe(version.name);
    }
    const removal = await t.app.inject({
      method: 'DELETE',
      url: versionUrl(resource.id, version.id),
      headers: cast.owner.headers,
    });
    if (updatable.has(status)) {
      expect(removal.statusCode, removal.body).toBe(200);
      expect(removal.json()).toEqual({ message: expect.any(String) });
      const gone = await t.app.inject({
        method: 'GET',
        url: versionUrl(resource.id, version.id),
        headers: cast.owner.headers,
      });
      expectError(gone, 404);
    } else {
      expectError(removal, 409, 'INVALID_STATUS_TRANSITION');
    }
  });

  it.each(statuses)('changelog of a %s version', async (status) => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const version = await versionIn(t.app, actors(), resource.id, status);
    const response = await t.app.inject({
      method: 'PATCH',
      url: `${versionUrl(resource.id, version.id)}/changelog`,
      headers: cast.owner.headers,
      payload: { changelog: '<p>Fixed <strong>bugs</strong></p>' },
    });
    if (status === 'ARCHIVED') {
      expectError(response, 409, 'INVALID_STATUS_TRANSITION');
    } else {
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ changelog: '<p>Fixed <strong>bugs</strong></p>', status });
    }
  });

  it('an empty update body changes nothing but is allowed; name null clears', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const version = await createVersion(t.app, cast.owner, resource.id, { name: 'Named' });
    const response = await t.app.inject({
      method: 'PATCH',
      url: versionUrl(resource.id, version.id),
      headers: cast.owner.headers,
      payload: { name: null },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ name: null, channel: 'RELEASE' });
    const bad = await t.app.inject({
      method: 'PATCH',
      url: versionUrl(resource.id, version.id),
      headers: cast.owner.headers,
      payload: { compatibleGameVersionIds: [] },
    });
    expectError(bad, 400);
  });
});

describe('changelog sanitizing', () => {
  it.each([
    ['<p>ok</p><script>alert(1)</script>', '<p>ok</p>'],
    ['<p onclick="steal()">x</p>', '<p>x</p>'],
    ['<a href="javascript:alert(1)">x</a>', '<a rel="noopener noreferrer nofollow" target="_blank">x</a>'],
    [
      '<a href="JaVaScRiPt&#58;alert(1)">x</a>',
      '<a rel="noopener noreferrer nofollow" target="_blank">x</a>',
    ],
    ['<img src="https://e.test/a.png" onerror="x()">', '<img src="https://e.test/a.png" />'],
    ['<img src="data:image/png;base64,AAAA">', '<img />'],
    ['<style>body{display:none}</style><p style="color:red">s</p>', '<p>s</p>'],
    ['<iframe src="https://evil.test"></iframe><svg onload="x()"><b>b</b></svg>', '<b>b</b>'],
    [
      '<a href="https://ok.test" target="_self" rel="opener">ok</a>',
      '<a href="https://ok.test" target="_blank" rel="noopener noreferrer nofollow">ok</a>',
    ],
    [
      '<h1>T</h1><ul><li>a</li></ul><blockquote>q</blockquote><pre><code>c</code></pre>',
      '<h1>T</h1><ul><li>a</li></ul><blockquote>q</blockquote><pre><code>c</code></pre>',
    ],
    ['<script>only</script>', null],
  ])('%s', async (input, expected) => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const version = await createVersion(t.app, cast.owner, resource.id);
    const response = await t.app.inject({
      method: 'PATCH',
      url: `${versionUrl(resource.id, version.id)}/changelog`,
      headers: cast.owner.headers,
      payload: { changelog: input },
    });
    expect(response.statusCode, response.body).toBe(200);
    const changelog = (response.json() as VersionBody).changelog;
    if (expected === null) {
      expect(changelog).toBeNull();
    } else if (expected.includes('rel=')) {
      // Attribute order is the sanitizer's; compare the parts.
      for (const part of expected.match(/\w+="[^"]*"|>[^<]*</g) ?? []) expect(changelog).toContain(part);
      expect(changelog).not.toMatch(/javascript|_self|opener"/i);
    } else {
      expect(changelog).toBe(expected);
    }
    expect(changelog ?? '').not.toMatch(/script|onerror|onclick|onload|style|iframe|javascript:/i);
  });

  it('refuses a changelog over 100,000 characters (400)', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const version = await createVersion(t.app, cast.owner, resource.id);
    const response = await t.app.inject({
      method: 'PATCH',
      url: `${versionUrl(resource.id, version.id)}/changelog`,
      headers: cast.owner.headers,
      payload: { changelog: 'x'.repeat(100_001) },
    });
    expectError(response, 400);
  });
});

describe('the status machine through the routes', () => {
  it('submit needs a file (409 NO_FILES) and records the note; resubmit likewise', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const version = await createVersion(t.app, cast.owner, resource.id);
    const empty = await t.app.inject({
      method: 'POST',
      url: `${versionUrl(resource.id, version.id)}/submit`,
      headers: cast.owner.headers,
    });
    expectError(empty, 409, 'NO_FILES');
    await uploadFile(t.app, cast.owner, resource.id, version.id);
    const submitted = await act(t.app, cast.owner, resource.id, version.id, 'submit', {
      submissionNote: 'Please',
    });
    expect(submitted).toMatchObject({ status: 'PENDING', submissionNote: 'Please' });
    const rejected = await act(t.app, cast.moderator, resource.id, version.id, 'reject', {
      reason: 'Broken jar',
    });
    expect(rejected).toMatchObject({ status: 'REJECTED', rejectionReason: 'Broken jar' });
    const resubmitted = await act(t.app, cast.contributor, resource.id, version.id, 'resubmit');
    expect(resubmitted.status).toBe('PENDING');
    const approved = await act(t.app, cast.admin, resource.id, version.id, 'approve');
    expect(approved).toMatchObject({ status: 'APPROVED', isLatest: true });
  });

  it('reject without a reason is 400 and leaves the version PENDING', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const version = await versionIn(t.app, actors(), resource.id, 'PENDING');
    for (const payload of [undefined, {}, { reason: '' }, { reason: '   ' }]) {
      const response = await t.app.inject({
        method: 'POST',
        url: `${versionUrl(resource.id, version.id)}/reject`,
        headers: cast.moderator.headers,
        ...(payload !== undefined ? { payload } : {}),
      });
      expectError(response, 400);
    }
    expect((await readVersion(t.app, cast.owner, resource.id, version.id)).status).toBe('PENDING');
  });

  const table: Array<[string, VersionBody['status'], boolean]> = [];
  const allowed: Record<string, string> = {
    submit: 'DRAFT',
    resubmit: 'REJECTED',
    approve: 'PENDING',
    reject: 'PENDING',
    archive: 'APPROVED',
  };
  for (const action of Object.keys(allowed)) {
    for (const status of ['DRAFT', 'PENDING', 'APPROVED', 'REJECTED', 'ARCHIVED'] as const) {
      table.push([action, status, allowed[action] === status]);
    }
  }
  it.each(table)('%s from %s allowed: %s', async (action, status, ok) => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const version = await versionIn(t.app, actors(), resource.id, status);
    const moderatorAction = action === 'approve' || action === 'reject';
    const response = await t.app.inject({
      method: 'POST',
      url: `${versionUrl(resource.id, version.id)}/${action}`,
      headers: (moderatorAction ? cast.moderator : cast.owner).headers,
      ...(action === 'reject' ? { payload: { reason: 'r' } } : {}),
    });
    if (ok) {
      expect(response.statusCode, response.body).toBe(200);
      const expected = {
        submit: 'PENDING',
        resubmit: 'PENDING',
        approve: 'APPROVED',
        reject: 'REJECTED',
        archive: 'ARCHIVED',
      };
      expect(response.json()).toMatchObject({ status: expected[action as keyof typeof expected] });
    } else {
      expectError(response, 409, 'INVALID_STATUS_TRANSITION');
      expect((await readVersion(t.app, cast.owner, resource.id, version.id)).status).toBe(status);
    }
  });

  it('records every move in the moderation history', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const version = await versionIn(t.app, actors(), resource.id, 'REJECTED');
    const events = await t.app.context.database.db
      .selectFrom('version_moderation_events')
      .select(['action', 'from_status', 'to_status', 'reason', 'actor_id'])
      .where('version_id', '=', version.id)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    expect(events).toEqual([
      { action: 'SUBMIT', from_status: 'DRAFT', to_status: 'PENDING', reason: null, actor_id: cast.owner.id },
      {
        action: 'REJECT',
        from_status: 'PENDING',
        to_status: 'REJECTED',
        reason: 'no',
        actor_id: cast.moderator.id,
      },
    ]);
  });
});

describe('latest version', () => {
  it('the first approved version becomes latest; set-latest moves it; archive unsets it', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const first = await versionIn(t.app, actors(), resource.id, 'APPROVED');
    expect(first.isLatest).toBe(true);
    const second = await versionIn(t.app, actors(), resource.id, 'APPROVED');
    expect(second.isLatest).toBe(false);
    const moved = await t.app.inject({
      method: 'PATCH',
      url: `${versionUrl(resource.id, second.id)}/set-latest`,
      headers: cast.contributor.headers,
    });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(moved.json()).toMatchObject({ id: second.id, isLatest: true });
    expect((await readVersion(t.app, null, resource.id, first.id)).isLatest).toBe(false);
    const list = (
      await t.app.inject({ method: 'GET', url: versionsUrl(resource.id) })
    ).json() as VersionBody[];
    expect(list.filter((v) => v.isLatest).map((v) => v.id)).toEqual([second.id]);

    const archived = await act(t.app, cast.owner, resource.id, second.id, 'archive');
    expect(archived).toMatchObject({ status: 'ARCHIVED', isLatest: false });
    const row = await t.app.context.database.db
      .selectFrom('resources')
      .select('latest_version_id')
      .where('id', '=', resource.id)
      .executeTakeFirstOrThrow();
    expect(row.latest_version_id).toBeNull();
    // A later approval fills the empty slot again.
    const third = await versionIn(t.app, actors(), resource.id, 'APPROVED');
    expect(third.isLatest).toBe(true);
  });

  it.each(['DRAFT', 'PENDING', 'REJECTED', 'ARCHIVED'] as const)(
    'set-latest of a %s version is 409',
    async (status) => {
      const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
      const version = await versionIn(t.app, actors(), resource.id, status);
      const response = await t.app.inject({
        method: 'PATCH',
        url: `${versionUrl(resource.id, version.id)}/set-latest`,
        headers: cast.owner.headers,
      });
      expectError(response, 409, 'INVALID_STATUS_TRANSITION');
    },
  );
});

describe('reads', () => {
  it('lists newest first with files; the full version has compatible game versions and file hashes', async () => {
    const resource = await resourceFor(t.app, cast, 'TEAM', 'APPROVED');
    const editors = { editor: cast.teamMember, moderator: cast.moderator };
    const older = await versionIn(t.app, editors, resource.id, 'APPROVED');
    t.clock.advance(1000);
    const newer = await versionIn(t.app, editors, resource.id, 'APPROVED');
    const response = await t.app.inject({ method: 'GET', url: versionsUrl(resource.id) });
    expect(response.statusCode).toBe(200);
    const list = response.json() as Array<Record<string, unknown>>;
    expect(list.map((v) => v['id'])).toEqual([newer.id, older.id]);
    expect(Object.keys(list[0]!).sort()).toEqual(
      [
        'id',
        'versionNumber',
        'name',
        'channel',
        'status',
        'downloads',
        'isLatest',
        'createdAt',
        'files',
        'dependencies',
      ].sort(),
    );
    expect((list[0]!['files'] as unknown[]).length).toBe(1);
    const full = await readVersion(t.app, null, resource.id, older.id);
    expect(full.files[0]!.hashes.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(full.compatibleGameVersions).toHaveLength(1);
  });

  it('a version of another resource is 404 (the parent in the path must match)', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const other = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const version = await versionIn(t.app, actors(), resource.id, 'APPROVED');
    expectError(await t.app.inject({ method: 'GET', url: versionUrl(other.id, version.id) }), 404);
    expectError(
      await t.app.inject({
        method: 'PATCH',
        url: `${versionUrl(other.id, version.id)}/changelog`,
        headers: cast.owner.headers,
        payload: { changelog: 'x' },
      }),
      404,
    );
    expectError(await t.app.inject({ method: 'GET', url: versionsUrl('no-such-resource') }), 404);
  });
});
