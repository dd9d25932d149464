// Queue positions (spec/extensions.md §4): `moderation: {position, total, estimatedReviewAt}` on the single reads
// of PENDING resources, versions and servers, for the owner side and moderators only; positions follow the
// moderation lists' oldest-first order and move when an earlier item is reviewed; the estimate follows the
// median review time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { createUser } from '../../helpers/factories.js';
import type { TestUser } from '../../helpers/factories.js';
import { addContributor, createResource, moderate as moderateResource } from '../../resources/helpers.js';
import { createServer, moderate as moderateServer } from '../../servers/helpers.js';
import { act, versionIn, versionUrl } from '../../versions/helpers.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

interface Position {
  position: number;
  total: number;
  estimatedReviewAt: string | null;
}

describe('queue positions', () => {
  let t: TestApp;
  let owner: TestUser;
  let contributor: TestUser;
  let stranger: TestUser;
  let moderator: TestUser;
  let t0: number;
  const set = (ms: number) => t.clock.set(new Date(ms));

  async function read(
    url: string,
    user: TestUser | null,
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await t.app.inject({ method: 'GET', url, headers: user?.headers ?? {} });
    return { status: response.statusCode, body: response.json() as Record<string, unknown> };
  }

  async function positionOf(url: string, user: TestUser = owner): Promise<Position | undefined> {
    const { status, body } = await read(url, user);
    expect(status, JSON.stringify(body)).toBe(200);
    return body['moderation'] as Position | undefined;
  }

  beforeAll(async () => {
    t = await buildTestApp();
    [owner, contributor, stranger, moderator] = await Promise.all([
      createUser(t.app),
      createUser(t.app),
      createUser(t.app),
      createUser(t.app, { role: 'MODERATOR' }),
    ]);
    t0 = Math.ceil((Date.now() + DAY) / DAY) * DAY;
  });

  afterAll(async () => {
    await t.close();
  });

  it('resources: 1..n oldest first as the moderation list orders them, moving up when an earlier one is reviewed', async () => {
    set(t0);
    const a = await createResource(t.app, owner);
    // b and c share a creation time: the id breaks the tie, as in the list.
    set(t0 + 1000);
    const b = await createResource(t.app, owner);
    const c = await createResource(t.app, owner);
    await addContributor(t.app, owner, c.id, contributor, 'CONTRIBUTOR');

    expect(await positionOf(`/resources/${a.id}`)).toEqual({
      position: 1,
      total: 3,
      estimatedReviewAt: null,
    });
    expect(await positionOf(`/resources/slug/${b.slug}`)).toEqual({
      position: 2,
      total: 3,
      estimatedReviewAt: null,
    });
    expect(await positionOf(`/resources/${c.id}`)).toMatchObject({ position: 3, total: 3 });
    // A contributor and a moderator see it too.
    expect(await positionOf(`/resources/${c.id}`, contributor)).toMatchObject({ position: 3 });
    expect(await positionOf(`/resources/${c.id}`, moderator)).toMatchObject({ position: 3 });

    const list = await read('/resources/moderation/status/PENDING?limit=100', moderator);
    const order = (list.body['resources'] as Array<{ id: string }>).map((resource) => resource.id);
    expect(order).toEqual([a.id, b.id, c.id]);

    // a is approved after 2 h: b and c move up, and the estimate is b's wait plus the 2 h median.
    set(t0 + 2 * HOUR);
    await moderateResource(t.app, moderator, a.id, 'APPROVE');
    expect(await positionOf(`/resources/${b.id}`)).toEqual({
      position: 1,
      total: 2,
      estimatedReviewAt: new Date(t0 + 1000 + 2 * HOUR).toISOString(),
    });
    expect(await positionOf(`/resources/${c.id}`)).toMatchObject({ position: 2, total: 2 });
    // Not shown once it is no longer PENDING.
    expect(await positionOf(`/resources/${a.id}`)).toBeUndefined();

    // Past the estimate, it says now.
    set(t0 + 5 * HOUR);
    expect((await positionOf(`/resources/${b.id}`))?.estimatedReviewAt).toBe(
      new Date(t0 + 5 * HOUR).toISOString(),
    );
  });

  it('resources: never shown to anonymous callers or other users', async () => {
    set(t0 + 6 * HOUR);
    const pending = await createResource(t.app, owner);
    expect((await read(`/resources/${pending.id}`, null)).status).toBe(404);
    expect((await read(`/resources/${pending.id}`, stranger)).status).toBe(404);
    // An approved resource, read by anyone (the kept anonymous answer included), carries no position.
    const approved = await createResource(t.app, owner);
    await moderateResource(t.app, moderator, approved.id, 'APPROVE');
    for (const user of [null, stranger, owner]) {
      const { status, body } = await read(`/resources/${approved.id}`, user);
      expect(status).toBe(200);
      expect(body).not.toHaveProperty('moderation');
    }
    // Rejected: no position either.
    await moderateResource(t.app, moderator, pending.id, 'REJECT', 'No');
    expect(await positionOf(`/resources/${pending.id}`)).toBeUndefined();
  });

  it('versions: ordered by submission; a resubmitted version goes to the back', async () => {
    set(t0 + DAY);
    const host = await createResource(t.app, owner);
    await moderateResource(t.app, moderator, host.id, 'APPROVE');
    const actors = { editor: owner, moderator };
    set(t0 + DAY + 1000);
    const v1 = await versionIn(t.app, actors, host.id, 'PENDING');
    set(t0 + DAY + 2000);
    const v2 = await versionIn(t.app, actors, host.id, 'PENDING');
    set(t0 + DAY + 3000);
    const v3 = await versionIn(t.app, actors, host.id, 'PENDING');
    const url = (id: string) => versionUrl(host.id, id);

    expect(await positionOf(url(v1.id))).toMatchObject({ position: 1, total: 3 });
    expect(await positionOf(url(v2.id))).toMatchObject({ position: 2, total: 3 });
    expect(await positionOf(url(v3.id), moderator)).toMatchObject({ position: 3, total: 3 });
    expect((await read(url(v1.id), stranger)).status).toBe(404);
    expect((await read(url(v1.id), null)).status).toBe(404);

    // v1 rejected after 1 h, then resubmitted: behind v2 and v3.
    set(t0 + DAY + HOUR + 1000);
    await act(t.app, moderator, host.id, v1.id, 'reject', { reason: 'Broken' });
    expect(await positionOf(url(v1.id))).toBeUndefined();
    expect(await positionOf(url(v2.id))).toMatchObject({ position: 1, total: 2 });
    set(t0 + DAY + 2 * HOUR);
    await act(t.app, owner, host.id, v1.id, 'resubmit');
    expect(await positionOf(url(v1.id))).toEqual({
      position: 3,
      total: 3,
      // The median of the one version review (1 h) after its resubmission.
      estimatedReviewAt: new Date(t0 + DAY + 3 * HOUR).toISOString(),
      duplicateFiles: 0,
    });

    // An approved version shows no position, whoever reads it.
    await act(t.app, moderator, host.id, v2.id, 'approve');
    for (const user of [null, owner])
      expect((await read(url(v2.id), user)).body).not.toHaveProperty('moderation');
    expect(await positionOf(url(v3.id))).toMatchObject({ position: 1, total: 2 });
  });

  it('servers: ordered by their last status change; an edited rejected server goes to the back', async () => {
    set(t0 + 2 * DAY);
    const s1 = await createServer(t.app, owner);
    set(t0 + 2 * DAY + 1000);
    const s2 = await createServer(t.app, owner);
    const s3 = await createServer(t.app, owner);
    const url = (id: string) => `/servers/${id}`;

    expect(await positionOf(url(s1.id))).toMatchObject({ position: 1, total: 3 });
    expect(await positionOf(`/servers/slug/${s2.slug}`)).toMatchObject({ position: 2, total: 3 });
    expect(await positionOf(url(s3.id), moderator)).toMatchObject({ position: 3, total: 3 });
    expect((await read(url(s1.id), stranger)).status).toBe(404);
    expect((await read(url(s1.id), null)).status).toBe(404);

    const list = await read('/servers/moderation/status/PENDING?limit=100', moderator);
    const order = (list.body['servers'] as Array<{ id: string }>).map((server) => server.id);
    expect(order).toEqual([s1.id, s2.id, s3.id]);

    set(t0 + 2 * DAY + HOUR);
    await moderateServer(t.app, moderator, s1.id, 'reject');
    expect(await positionOf(url(s1.id))).toBeUndefined();
    expect(await positionOf(url(s2.id))).toMatchObject({ position: 1, total: 2 });
    const edit = await t.app.inject({
      method: 'PATCH',
      url: url(s1.id),
      headers: owner.headers,
      payload: { name: 'Fixed server' },
    });
    expect(edit.statusCode, edit.body).toBe(200);
    expect(await positionOf(url(s1.id))).toMatchObject({ position: 3, total: 3 });
  });

  it('is in the OpenAPI document on the three object shapes and the stats route', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    const document = response.json() as {
      paths: Record<string, Record<string, { operationId?: string; tags?: string[]; description?: string }>>;
      components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
      tags: Array<{ name: string }>;
    };
    const stats = document.paths['/moderation/stats']?.['get'];
    expect(stats).toMatchObject({ operationId: 'getModerationStats', tags: ['moderation'] });
    expect(stats?.description).toContain('max-age=60');
    expect(document.tags.map((tag) => tag.name)).toContain('moderation');
    const { schemas } = document.components;
    expect(Object.keys(schemas['ModerationQueuePosition']?.properties ?? {})).toEqual([
      'position',
      'total',
      'estimatedReviewAt',
    ]);
    expect(Object.keys(schemas['ModerationStats']?.properties ?? {}).sort()).toEqual([
      'reports',
      'resources',
      'servers',
      'versions',
    ]);
    for (const shape of ['Resource', 'ResourceVersion', 'Server']) {
      expect(schemas[shape]?.properties, shape).toHaveProperty('moderation');
    }
  });
});
