// The audit log (spec/extensions.md §4): each moderation and admin action, performed through the API, leaves
// exactly one entry with its actor and a before/after summary; GET /admin/audit filters, pages and is ADMIN+.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createPersonas, createUser } from '../helpers/factories.js';
import type { Personas, TestUser } from '../helpers/factories.js';
import { expectError } from '../helpers/http.js';
import { fileResourceReport, moderateOk, reportOf } from '../reports/helpers.js';
import { createResource, moderate as moderateResource } from '../resources/helpers.js';
import { createServer, moderate as moderateServer } from '../servers/helpers.js';
import { act, createVersion, uploadFile, versionIn } from '../versions/helpers.js';

interface Entry {
  id: string;
  at: string;
  actor: { id: string; username: string | null } | null;
  action: string;
  subjectKind: string;
  subjectId: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

let t: TestApp;
let p: Personas;

async function audit(query: Record<string, string | number>, as: TestUser = p.admin) {
  const response = await t.app.inject({
    method: 'GET',
    url: '/admin/audit',
    headers: as.headers,
    query: Object.fromEntries(Object.entries(query).map(([key, value]) => [key, String(value)])),
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as { entries: Entry[]; total: number };
}

/** The one entry of `action` on the subject; fails when there are none or several. */
async function one(action: string, subjectId: string): Promise<Entry> {
  const { entries, total } = await audit({ action, subjectId });
  expect(total).toBe(1);
  expect(entries).toHaveLength(1);
  return entries[0]!;
}

/** A new version with one file, submitted by `creator`: the submit response. */
async function submitted(creator: TestUser, resourceId: string) {
  const version = await createVersion(t.app, creator, resourceId);
  await uploadFile(t.app, creator, resourceId, version.id);
  return act(t.app, creator, resourceId, version.id, 'submit');
}

function inject(as: TestUser, method: 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) {
  return t.app.inject({ method, url, headers: as.headers, ...(payload !== undefined ? { payload } : {}) });
}

beforeAll(async () => {
  t = await buildTestApp();
  p = await createPersonas(t.app);
});
afterAll(async () => t.close());

describe('accounts', () => {
  it('a role change: user.role_changed by the super admin', async () => {
    const target = await createUser(t.app);
    const response = await inject(p.superAdmin, 'PATCH', `/admin/users/${target.id}`, { role: 'MODERATOR' });
    expect(response.statusCode, response.body).toBe(200);
    const entry = await one('user.role_changed', target.id);
    expect(entry).toMatchObject({
      actor: { id: p.superAdmin.id, username: p.superAdmin.username },
      subjectKind: 'USER',
      before: { role: 'USER' },
      after: { role: 'MODERATOR' },
    });
  });

  it('suspension, ban and lifting: one user.status_changed each, in order', async () => {
    const target = await createUser(t.app);
    const until = new Date(t.clock.now().getTime() + 3 * 86_400_000).toISOString();
    for (const body of [
      { status: 'SUSPENDED', suspendedUntil: until },
      { status: 'BANNED' },
      { status: 'ACTIVE' },
    ]) {
      const response = await inject(p.admin, 'PATCH', `/admin/users/${target.id}`, body);
      expect(response.statusCode, response.body).toBe(200);
      t.clock.advance(1000);
    }
    const { entries, total } = await audit({ action: 'user.status_changed', subjectId: target.id });
    expect(total).toBe(3);
    // Newest first.
    expect(entries.map((entry) => [entry.before, entry.after])).toEqual([
      [
        { status: 'BANNED', suspendedUntil: null },
        { status: 'ACTIVE', suspendedUntil: null },
      ],
      [
        { status: 'SUSPENDED', suspendedUntil: until },
        { status: 'BANNED', suspendedUntil: null },
      ],
      [
        { status: 'ACTIVE', suspendedUntil: null },
        { status: 'SUSPENDED', suspendedUntil: until },
      ],
    ]);
    expect(entries.every((entry) => entry.actor?.id === p.admin.id)).toBe(true);
  });

  it('the trusted flag: shown to admins, user.trusted_changed; setting the same value again records nothing', async () => {
    const target = await createUser(t.app);
    const response = await inject(p.admin, 'PATCH', `/admin/users/${target.id}`, { trusted: true });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ id: target.id, trusted: true });
    expect((await inject(p.admin, 'PATCH', `/admin/users/${target.id}`, { trusted: true })).statusCode).toBe(
      200,
    );
    const entry = await one('user.trusted_changed', target.id);
    expect(entry).toMatchObject({
      actor: { id: p.admin.id },
      before: { trusted: false },
      after: { trusted: true },
    });
    const list = await t.app.inject({
      method: 'GET',
      url: '/admin/users',
      headers: p.admin.headers,
      query: { search: target.username },
    });
    expect(list.json().users).toEqual([expect.objectContaining({ id: target.id, trusted: true })]);
  });

  it('PATCH trusted: ADMIN+ only, never on oneself, a boolean', async () => {
    const target = await createUser(t.app);
    expectError(await inject(p.moderator, 'PATCH', `/admin/users/${target.id}`, { trusted: true }), 403);
    expectError(await inject(p.admin, 'PATCH', `/admin/users/${p.admin.id}`, { trusted: true }), 403);
    expectError(await inject(p.admin, 'PATCH', `/admin/users/${target.id}`, { trusted: 'yes' }), 400);
    expect((await audit({ subjectId: target.id })).total).toBe(0);
  });
});

describe('badges', () => {
  it('award and revoke: badge.awarded and badge.revoked on the holder', async () => {
    const holder = await createUser(t.app);
    const created = await inject(p.admin, 'POST', '/badges', {
      name: 'Helper',
      slug: `helper-${process.pid}`,
    });
    expect(created.statusCode, created.body).toBe(201);
    const badge = created.json() as { id: string; slug: string };
    const awarded = await inject(p.moderator, 'POST', '/badges/award', {
      badgeId: badge.id,
      userId: holder.id,
      reason: 'Kind',
    });
    expect(awarded.statusCode, awarded.body).toBe(201);
    expect(await one('badge.awarded', holder.id)).toMatchObject({
      actor: { id: p.moderator.id },
      subjectKind: 'USER',
      before: null,
      after: { badgeId: badge.id, badgeSlug: badge.slug, reason: 'Kind' },
    });
    const revoked = await inject(p.moderator, 'DELETE', `/badges/${badge.id}/users/${holder.id}`);
    expect(revoked.statusCode, revoked.body).toBeLessThan(300);
    expect(await one('badge.revoked', holder.id)).toMatchObject({
      actor: { id: p.moderator.id },
      before: { badgeId: badge.id, badgeSlug: badge.slug },
      after: null,
    });
  });
});

describe('catalogs and badge definitions: created, updated (changed fields only), deleted', () => {
  const cases = [
    { kind: 'resource_tag', url: '/resource-tags', create: { name: 'Tag A', slug: 'audit-tag-a' } },
    {
      kind: 'resource_category',
      url: '/resources/categories',
      create: { name: 'Cat A', slug: 'audit-cat-a', resourceType: 'MOD' },
    },
    { kind: 'game_version', url: '/game-versions', create: { name: '9.9.9-audit' } },
    { kind: 'server_tag', url: '/server-tags', create: { name: 'STag A', slug: 'audit-stag-a' } },
    { kind: 'server_category', url: '/server-categories', create: { name: 'SCat A', slug: 'audit-scat-a' } },
    { kind: 'badge', url: '/badges', create: { name: 'Badge A', slug: 'audit-badge-a' } },
  ];
  for (const c of cases) {
    it(c.kind, async () => {
      const created = await inject(p.admin, 'POST', c.url, c.create);
      expect(created.statusCode, created.body).toBe(201);
      const { id } = created.json() as { id: string };
      expect(await one(`${c.kind}.created`, id)).toMatchObject({
        actor: { id: p.admin.id },
        before: null,
        after: { name: c.create.name },
      });
      const updated = await inject(p.admin, 'PATCH', `${c.url}/${id}`, { name: `${c.create.name} renamed` });
      expect(updated.statusCode, updated.body).toBe(200);
      const update = await one(`${c.kind}.updated`, id);
      expect(update.before).toEqual({ name: c.create.name });
      expect(update.after).toEqual({ name: `${c.create.name} renamed` });
      const deleted = await inject(p.admin, 'DELETE', `${c.url}/${id}`);
      expect(deleted.statusCode, deleted.body).toBe(204);
      expect(await one(`${c.kind}.deleted`, id)).toMatchObject({
        before: { name: `${c.create.name} renamed` },
        after: null,
      });
      expect((await audit({ subjectId: id })).total).toBe(3);
    });
  }
});

describe('reports', () => {
  it('under review, then resolved with a ban: both report entries and the ban as user.status_changed', async () => {
    const [reporter, offender] = await Promise.all([createUser(t.app), createUser(t.app)]);
    const reportId = await reportOf(t.app, reporter, offender);
    await moderateOk(t.app, p.moderator, reportId, { action: 'TAKE_UNDER_REVIEW' });
    await moderateOk(t.app, p.moderator, reportId, {
      action: 'RESOLVE',
      resolution: 'Spam',
      userAction: 'BAN',
    });
    expect(await one('report.taken_under_review', reportId)).toMatchObject({
      actor: { id: p.moderator.id },
      subjectKind: 'REPORT',
      before: { status: 'PENDING' },
      after: { status: 'UNDER_REVIEW' },
    });
    expect(await one('report.resolved', reportId)).toMatchObject({
      before: { status: 'UNDER_REVIEW' },
      after: { status: 'RESOLVED', resolution: 'Spam', userAction: 'BAN' },
    });
    expect(await one('user.status_changed', offender.id)).toMatchObject({
      actor: { id: p.moderator.id },
      before: { status: 'ACTIVE' },
      after: { status: 'BANNED' },
    });
  });

  it('dismissed, then deleted by an admin', async () => {
    const [reporter, creator] = await Promise.all([createUser(t.app), createUser(t.app)]);
    const resource = await createResource(t.app, creator);
    await moderateResource(t.app, p.moderator, resource.id, 'APPROVE');
    const filed = await fileResourceReport(t.app, reporter, resource.id);
    expect(filed.statusCode, filed.body).toBe(201);
    const reportId = (filed.json() as { id: string }).id;
    await moderateOk(t.app, p.moderator, reportId, { action: 'DISMISS' });
    expect(await one('report.dismissed', reportId)).toMatchObject({ after: { status: 'DISMISSED' } });
    const deleted = await inject(p.admin, 'DELETE', `/reports/moderation/${reportId}`);
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect(await one('report.deleted', reportId)).toMatchObject({
      actor: { id: p.admin.id },
      before: { status: 'DISMISSED', targetType: 'RESOURCE' },
      after: null,
    });
  });
});

describe('resource, version and server moderation', () => {
  it('resource: approved, suspended, unsuspended, rejected', async () => {
    const creator = await createUser(t.app);
    const resource = await createResource(t.app, creator);
    await moderateResource(t.app, p.moderator, resource.id, 'APPROVE');
    await moderateResource(t.app, p.moderator, resource.id, 'SUSPEND', 'Malware');
    await moderateResource(t.app, p.moderator, resource.id, 'UNSUSPEND');
    await moderateResource(t.app, p.moderator, resource.id, 'REJECT', 'Off topic');
    expect(await one('resource.approved', resource.id)).toMatchObject({
      actor: { id: p.moderator.id },
      subjectKind: 'RESOURCE',
      before: { status: 'PENDING' },
      after: { status: 'APPROVED', reason: null },
    });
    expect(await one('resource.suspended', resource.id)).toMatchObject({
      before: { status: 'APPROVED' },
      after: { status: 'SUSPENDED', reason: 'Malware' },
    });
    expect(await one('resource.unsuspended', resource.id)).toMatchObject({ after: { status: 'APPROVED' } });
    expect(await one('resource.rejected', resource.id)).toMatchObject({
      after: { status: 'REJECTED', reason: 'Off topic' },
    });
    expect((await audit({ subjectKind: 'RESOURCE', subjectId: resource.id })).total).toBe(4);
  });

  it('version: approved and rejected by a moderator; submission by an untrusted creator records nothing', async () => {
    const creator = await createUser(t.app);
    const resource = await createResource(t.app, creator);
    const actors = { editor: creator, moderator: p.moderator };
    const approved = await versionIn(t.app, actors, resource.id, 'APPROVED');
    const rejected = await versionIn(t.app, actors, resource.id, 'REJECTED');
    expect(await one('version.approved', approved.id)).toMatchObject({
      actor: { id: p.moderator.id },
      subjectKind: 'VERSION',
      before: { status: 'PENDING' },
      after: { status: 'APPROVED' },
    });
    expect(await one('version.rejected', rejected.id)).toMatchObject({
      before: { status: 'PENDING' },
      after: { status: 'REJECTED', reason: 'no' },
    });
    expect((await audit({ subjectId: approved.id })).total).toBe(1);
  });

  it('server: approved, suspended, rejected, with reason and notes', async () => {
    const owner = await createUser(t.app);
    const server = await createServer(t.app, owner);
    await moderateServer(t.app, p.moderator, server.id, 'approve');
    await moderateServer(t.app, p.moderator, server.id, 'suspend', { reason: 'Down', notes: 'checked' });
    await moderateServer(t.app, p.moderator, server.id, 'approve');
    expect((await audit({ action: 'server.approved', subjectId: server.id })).total).toBe(2);
    expect(await one('server.suspended', server.id)).toMatchObject({
      actor: { id: p.moderator.id },
      subjectKind: 'SERVER',
      before: { status: 'APPROVED' },
      after: { status: 'SUSPENDED', reason: 'Down', notes: 'checked' },
    });
    const other = await createServer(t.app, owner);
    await moderateServer(t.app, p.moderator, other.id, 'reject', { reason: 'Spam' });
    expect(await one('server.rejected', other.id)).toMatchObject({
      before: { status: 'PENDING' },
      after: { status: 'REJECTED', reason: 'Spam' },
    });
  });
});

describe('trusted creators', () => {
  it("a trusted creator's submitted version with clean files is approved at once, recorded as automatic", async () => {
    const creator = await createUser(t.app);
    expect((await inject(p.admin, 'PATCH', `/admin/users/${creator.id}`, { trusted: true })).statusCode).toBe(
      200,
    );
    const resource = await createResource(t.app, creator);
    // Content of its own: the same bytes as another owner's earlier file would be a duplicate, never auto-approved.
    const draft = await versionIn(t.app, { editor: creator, moderator: p.moderator }, resource.id, 'DRAFT', [
      { data: Buffer.from(`original work of ${creator.id}\n`), name: 'mod.txt' },
    ]);
    const submitted = await act(t.app, creator, resource.id, draft.id, 'submit');
    expect(submitted.status).toBe('APPROVED');
    const entry = await one('version.approved', draft.id);
    expect(entry).toMatchObject({
      actor: null,
      before: { status: 'PENDING' },
      after: { status: 'APPROVED', automatic: true },
    });
    const response = await t.app.inject({
      method: 'GET',
      url: `/resources/${resource.id}/versions/${draft.id}/history`,
      headers: p.moderator.headers,
    });
    expect(response.statusCode, response.body).toBe(200);
    const { history } = response.json() as { history: Array<Record<string, unknown>> };
    expect(
      history.map(({ action, toStatus, moderator, automatic }) => ({
        action,
        toStatus,
        moderator,
        automatic,
      })),
    ).toEqual([
      {
        action: 'SUBMIT',
        toStatus: 'PENDING',
        moderator: { id: creator.id, username: creator.username },
        automatic: false,
      },
      { action: 'APPROVE', toStatus: 'APPROVED', moderator: null, automatic: true },
    ]);
    // The history is the moderators': 403 to the creator.
    const own = await t.app.inject({
      method: 'GET',
      url: `/resources/${resource.id}/versions/${draft.id}/history`,
      headers: creator.headers,
    });
    expectError(own, 403);
    // A normal approval's event, with no actor.
    const events = await t.app.context.database.db
      .selectFrom('events')
      .select(['type', 'actor_id'])
      .where('subject_id', '=', draft.id)
      .where('type', '=', 'version.approved')
      .execute();
    expect(events).toEqual([{ type: 'version.approved', actor_id: null }]);
  });

  it("an untrusted creator's submission stays PENDING; so does a formerly trusted one's", async () => {
    const creator = await createUser(t.app);
    const resource = await createResource(t.app, creator);
    const pending = await submitted(creator, resource.id);
    expect(pending.status).toBe('PENDING');
    expect(await inject(p.admin, 'PATCH', `/admin/users/${creator.id}`, { trusted: true })).toHaveProperty(
      'statusCode',
      200,
    );
    expect(await inject(p.admin, 'PATCH', `/admin/users/${creator.id}`, { trusted: false })).toHaveProperty(
      'statusCode',
      200,
    );
    const later = await submitted(creator, resource.id);
    expect(later.status).toBe('PENDING');
    expect((await audit({ action: 'version.approved', subjectId: later.id })).total).toBe(0);
  });
});

describe('GET /admin/audit', () => {
  it('ADMIN+ only: moderator and user 403, anonymous 401', async () => {
    expectError(
      await t.app.inject({ method: 'GET', url: '/admin/audit', headers: p.moderator.headers }),
      403,
    );
    expectError(await t.app.inject({ method: 'GET', url: '/admin/audit', headers: p.user.headers }), 403);
    expectError(await t.app.inject({ method: 'GET', url: '/admin/audit' }), 401);
    expect((await audit({}, p.superAdmin)).total).toBeGreaterThan(0);
  });

  it('filters by actor, subject kind, time range; pages newest first', async () => {
    const actor = await createUser(t.app, { role: 'ADMIN' });
    const start = t.clock.now().toISOString();
    const ids: string[] = [];
    for (const name of ['F1', 'F2', 'F3']) {
      t.clock.advance(60_000);
      const created = await inject(actor, 'POST', '/resource-tags', {
        name,
        slug: `audit-filter-${name.toLowerCase()}`,
      });
      expect(created.statusCode, created.body).toBe(201);
      ids.push((created.json() as { id: string }).id);
    }
    const byActor = await audit({ actorId: actor.id });
    expect(byActor.total).toBe(3);
    expect(byActor.entries.map((entry) => entry.subjectId)).toEqual([...ids].reverse());
    const page = await audit({ actorId: actor.id, limit: 1, offset: 1 });
    expect(page).toMatchObject({ total: 3, entries: [{ subjectId: ids[1] }] });
    const secondOnward = new Date(new Date(start).getTime() + 120_000).toISOString();
    expect((await audit({ actorId: actor.id, since: secondOnward })).entries.map((e) => e.subjectId)).toEqual(
      [ids[2], ids[1]],
    );
    expect((await audit({ actorId: actor.id, until: secondOnward })).entries.map((e) => e.subjectId)).toEqual(
      [ids[1], ids[0]],
    );
    expect((await audit({ actorId: actor.id, subjectKind: 'SERVER_TAG' })).total).toBe(0);
    expect(
      (await audit({ actorId: actor.id, subjectKind: 'RESOURCE_TAG', action: 'resource_tag.created' })).total,
    ).toBe(3);
  });

  it('bad filter values are 400', async () => {
    const queries: Array<Record<string, string>> = [
      { action: 'user.deleted' },
      { subjectKind: 'PLANET' },
      { since: 'yesterday' },
      { until: '2026-13-45T00:00:00Z' },
      { since: '2026-02-01T00:00:00Z', until: '2026-01-01T00:00:00Z' },
      { limit: 101 },
      { limit: 0 },
      { offset: -1 },
      { offset: '99999999999999999999' },
      { actorId: 'x'.repeat(65) },
    ].map((query) => Object.fromEntries(Object.entries(query).map(([key, value]) => [key, String(value)])));
    for (const query of queries) {
      const response = await t.app.inject({
        method: 'GET',
        url: '/admin/audit',
        headers: p.admin.headers,
        query,
      });
      expectError(response, 400);
    }
  });

  it('no route edits or deletes entries', async () => {
    const { entries } = await audit({ limit: 1 });
    const id = entries[0]!.id;
    for (const method of ['DELETE', 'PATCH', 'PUT'] as const) {
      for (const url of ['/admin/audit', `/admin/audit/${id}`]) {
        const response = await t.app.inject({ method, url, headers: p.superAdmin.headers, payload: {} });
        expect([404, 405]).toContain(response.statusCode);
      }
    }
    expect((await audit({ limit: 1 })).entries[0]!.id).toBe(id);
  });

  it('is in /openapi.json with its filters, the action list, and PATCH /admin/users/{userId} takes trusted', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, Record<string, unknown>>>;
    };
    const get = doc.paths['/admin/audit']!['get']!;
    expect(get['operationId']).toBe('listAuditLog');
    expect(get['security']).toBeDefined();
    expect(String(get['description'])).toContain('`version.approved`');
    const names = (get['parameters'] as Array<{ name: string }>).map((parameter) => parameter.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'actorId',
        'action',
        'subjectKind',
        'subjectId',
        'since',
        'until',
        'limit',
        'offset',
      ]),
    );
    expect(Object.keys(get['responses'] as object)).toEqual(
      expect.arrayContaining(['200', '400', '401', '403']),
    );
    const patch = doc.paths['/admin/users/{userId}']!['patch']!;
    expect(JSON.stringify(patch['requestBody'])).toContain('trusted');
  });
});
