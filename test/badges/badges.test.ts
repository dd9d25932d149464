// The badge catalog: create, read (by id, by slug, list with isActive), edit and delete, and route order.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createPersonas, createUser } from '../helpers/factories.js';
import type { Personas } from '../helpers/factories.js';
import { expectError } from '../helpers/http.js';
import {
  awardOk,
  createBadge,
  expectAwardedCounts,
  getBadge,
  postBadge,
  uniqueBadgeSlug,
} from './helpers.js';
import type { BadgeBody } from './helpers.js';

let t: TestApp;
let p: Personas;

beforeAll(async () => {
  t = await buildTestApp();
  p = await createPersonas(t.app);
});
afterAll(async () => t.close());
afterEach(async () => expectAwardedCounts(t.app));

const patchBadge = (badgeId: string, payload: Record<string, unknown>) =>
  t.app.inject({ method: 'PATCH', url: `/badges/${badgeId}`, headers: p.admin.headers, payload });
const list = (query = '') => t.app.inject({ method: 'GET', url: `/badges${query}` });

describe('POST /badges', () => {
  it('creates a badge: 201 {id, name, slug, createdAt}; the full record has every field', async () => {
    const slug = uniqueBadgeSlug('founder');
    const response = await postBadge(t.app, p.admin, {
      name: 'Founder',
      slug,
      description: 'Was here first',
      iconUrl: 'https://cdn.example/founder.png',
      color: '#FFAA00',
    });
    expect(response.statusCode, response.body).toBe(201);
    const created = response.json() as Record<string, unknown>;
    expect(created).toEqual({
      id: expect.any(String),
      name: 'Founder',
      slug,
      createdAt: t.clock.now().toISOString(),
    });
    expect(await getBadge(t.app, created['id'] as string)).toEqual({
      id: created['id'],
      name: 'Founder',
      slug,
      description: 'Was here first',
      iconUrl: 'https://cdn.example/founder.png',
      color: '#FFAA00',
      isActive: true,
      awardedCount: 0,
      createdAt: created['createdAt'],
    });
  });

  it('defaults optional fields to null and isActive to true; isActive false is kept', async () => {
    const plain = await createBadge(t.app, p.admin);
    expect(plain).toMatchObject({ description: null, iconUrl: null, color: null, isActive: true });
    const inactive = await createBadge(t.app, p.admin, { isActive: false });
    expect(inactive.isActive).toBe(false);
  });

  it('refuses a taken slug with 409 SLUG_TAKEN', async () => {
    const badge = await createBadge(t.app, p.admin);
    expectError(await postBadge(t.app, p.admin, { name: 'Again', slug: badge.slug }), 409, 'SLUG_TAKEN');
  });

  it.each([
    [{ name: 'X', slug: 'Bad Slug' }, 'slug'],
    [{ name: 'X', slug: 'ab' }, 'slug'],
    [{ slug: 'no-name-here' }, 'name'],
    [{ name: '', slug: 'empty-name' }, 'name'],
    [{ name: 'X', slug: 'bad-color-1', color: 'red' }, 'color'],
    [{ name: 'X', slug: 'bad-color-2', color: '#FFF' }, 'color'],
    [{ name: 'X', slug: 'bad-color-3', color: '#GGGGGG' }, 'color'],
    [{ name: 'X', slug: 'bad-icon-1', iconUrl: 'ftp://cdn.example/a.png' }, 'iconUrl'],
    [{ name: 'X', slug: 'bad-icon-2', iconUrl: 'javascript:alert(1)' }, 'iconUrl'],
    [{ name: 'X', slug: 'bad-active', isActive: 'yes' }, 'isActive'],
    [{ name: 'X', slug: 'long-description', description: 'x'.repeat(251) }, 'description'],
  ])('refuses %j with 400 naming %s', async (payload, field) => {
    const body = expectError(await postBadge(t.app, p.admin, payload), 400, 'INVALID_REQUEST');
    expect(JSON.stringify(body.details)).toContain(field);
  });

  it('never reads awardedCount from the body', async () => {
    const slug = uniqueBadgeSlug();
    const response = await postBadge(t.app, p.admin, { name: 'Counted', slug, awardedCount: 99 });
    expect(response.statusCode).toBe(201);
    expect((await getBadge(t.app, response.json().id)).awardedCount).toBe(0);
  });
});

describe('reading badges', () => {
  it('finds a badge by id and by slug; unknown ones are 404', async () => {
    const badge = await createBadge(t.app, p.admin);
    const bySlug = await t.app.inject({ method: 'GET', url: `/badges/slug/${badge.slug}` });
    expect(bySlug.statusCode).toBe(200);
    expect(bySlug.json()).toEqual(badge);
    expectError(await t.app.inject({ method: 'GET', url: '/badges/slug/no-such-badge' }), 404);
    expectError(
      await t.app.inject({ method: 'GET', url: '/badges/0190aaaa-0000-7000-8000-000000000000' }),
      404,
    );
  });

  it('does not let /badges/:badgeId capture the static paths', async () => {
    const badge = await createBadge(t.app, p.admin);
    // An id is not a slug: the slug route answered, not the id route.
    expectError(await t.app.inject({ method: 'GET', url: `/badges/slug/${badge.id}` }), 404);
    const user = await createUser(t.app);
    const userBadges = await t.app.inject({ method: 'GET', url: `/badges/users/${user.id}` });
    expect(userBadges.statusCode).toBe(200);
    expect(userBadges.json()).toEqual({ badges: [] });
    // POST /badges/award is the award route (a body error), not an unknown badge.
    const award = await t.app.inject({
      method: 'POST',
      url: '/badges/award',
      headers: p.moderator.headers,
      payload: {},
    });
    expectError(award, 400, 'INVALID_REQUEST');
  });

  it('lists every badge by name, and filters on isActive', async () => {
    const active = await createBadge(t.app, p.admin, { name: 'Aaa active' });
    const inactive = await createBadge(t.app, p.admin, { name: 'Aaa inactive', isActive: false });
    const last = await createBadge(t.app, p.admin, { name: 'Zzz last' });
    const all = (await list()).json() as { badges: BadgeBody[] };
    const ids = all.badges.map((badge) => badge.id);
    expect(ids).toEqual(expect.arrayContaining([active.id, inactive.id]));
    expect(ids.indexOf(active.id)).toBeLessThan(ids.indexOf(inactive.id));
    expect(ids.indexOf(inactive.id)).toBeLessThan(ids.indexOf(last.id));
    const onlyActive = (await list('?isActive=true')).json() as { badges: BadgeBody[] };
    expect(onlyActive.badges.every((badge) => badge.isActive)).toBe(true);
    expect(onlyActive.badges.map((badge) => badge.id)).toContain(active.id);
    expect(onlyActive.badges.map((badge) => badge.id)).not.toContain(inactive.id);
    const onlyInactive = (await list('?isActive=false')).json() as { badges: BadgeBody[] };
    expect(onlyInactive.badges.map((badge) => badge.id)).toContain(inactive.id);
    expect(onlyInactive.badges.every((badge) => !badge.isActive)).toBe(true);
    expectError(await list('?isActive=maybe'), 400);
  });
});

describe('PATCH /badges/:badgeId', () => {
  it('edits name, description, iconUrl, color and isActive and answers the full badge', async () => {
    const badge = await createBadge(t.app, p.admin, { description: 'old', color: '#000000' });
    const response = await patchBadge(badge.id, {
      name: 'Renamed',
      description: 'new',
      iconUrl: 'https://cdn.example/new.png',
      color: '#123abc',
      isActive: false,
    });
    expect(response.statusCode, response.body).toBe(200);
    const expected = {
      ...badge,
      name: 'Renamed',
      description: 'new',
      iconUrl: 'https://cdn.example/new.png',
      color: '#123abc',
      isActive: false,
    };
    expect(response.json()).toEqual(expected);
    expect(await getBadge(t.app, badge.id)).toEqual(expected);
  });

  it('clears description, iconUrl and color with null', async () => {
    const badge = await createBadge(t.app, p.admin, {
      description: 'd',
      iconUrl: 'https://cdn.example/i.png',
      color: '#111111',
    });
    const response = await patchBadge(badge.id, { description: null, iconUrl: null, color: null });
    expect(response.json()).toMatchObject({ description: null, iconUrl: null, color: null });
  });

  it('never changes the slug or awardedCount from the body', async () => {
    const badge = await createBadge(t.app, p.admin);
    const response = await patchBadge(badge.id, { slug: 'changed-slug', awardedCount: 50 });
    expect(response.statusCode).toBe(200);
    expect(await getBadge(t.app, badge.id)).toEqual(badge);
  });

  it('keeps awardedCount exact across an edit', async () => {
    const badge = await createBadge(t.app, p.admin);
    await awardOk(t.app, p.moderator, badge.id, (await createUser(t.app)).id);
    expect((await patchBadge(badge.id, { name: 'After award' })).json().awardedCount).toBe(1);
  });

  it('answers 404 for an unknown badge and 400 for an invalid color', async () => {
    expectError(await patchBadge('0190aaaa-0000-7000-8000-000000000000', { name: 'x' }), 404);
    const badge = await createBadge(t.app, p.admin);
    expectError(await patchBadge(badge.id, { color: 'blue' }), 400);
  });
});

describe('DELETE /badges/:badgeId', () => {
  it('deletes the badge (204) and takes it away from every user', async () => {
    const badge = await createBadge(t.app, p.admin);
    const holders = await Promise.all([createUser(t.app), createUser(t.app)]);
    for (const holder of holders) await awardOk(t.app, p.moderator, badge.id, holder.id);
    const response = await t.app.inject({
      method: 'DELETE',
      url: `/badges/${badge.id}`,
      headers: p.admin.headers,
    });
    expect(response.statusCode, response.body).toBe(204);
    expect(response.body).toBe('');
    expectError(await t.app.inject({ method: 'GET', url: `/badges/${badge.id}` }), 404);
    const rows = await t.app.context.database.db
      .selectFrom('user_badges')
      .select('id')
      .where('badge_id', '=', badge.id)
      .execute();
    expect(rows).toEqual([]);
    for (const holder of holders) {
      const held = await t.app.inject({ method: 'GET', url: `/badges/users/${holder.id}` });
      expect(held.json()).toEqual({ badges: [] });
    }
    expectError(
      await t.app.inject({ method: 'DELETE', url: `/badges/${badge.id}`, headers: p.admin.headers }),
      404,
    );
  });
});
