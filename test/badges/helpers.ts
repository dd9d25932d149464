// Badge fixtures, made through the HTTP API.
import { expect } from 'vitest';
import type { App } from '../../src/app.js';
import type { TestUser } from '../helpers/factories.js';

export interface BadgeBody {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  iconUrl: string | null;
  color: string | null;
  isActive: boolean;
  awardedCount: number;
  createdAt: string;
}

let sequence = 0;
export function uniqueBadgeSlug(prefix = 'badge'): string {
  sequence += 1;
  return `${prefix}-${process.pid}-${sequence}`;
}

export function postBadge(app: App, by: TestUser, payload: Record<string, unknown>) {
  return app.inject({ method: 'POST', url: '/badges', headers: by.headers, payload });
}

/** Creates a badge (as `admin`) and returns its full record. */
export async function createBadge(
  app: App,
  admin: TestUser,
  body: Record<string, unknown> = {},
): Promise<BadgeBody> {
  const slug = uniqueBadgeSlug();
  const response = await postBadge(app, admin, { name: `Badge ${slug}`, slug, ...body });
  expect(response.statusCode, response.body).toBe(201);
  return getBadge(app, (response.json() as { id: string }).id);
}

export async function getBadge(app: App, badgeId: string): Promise<BadgeBody> {
  const response = await app.inject({ method: 'GET', url: `/badges/${badgeId}` });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as BadgeBody;
}

export function award(app: App, by: TestUser, badgeId: string, userId: string, reason?: string) {
  return app.inject({
    method: 'POST',
    url: '/badges/award',
    headers: by.headers,
    payload: { badgeId, userId, ...(reason !== undefined ? { reason } : {}) },
  });
}

export async function awardOk(app: App, by: TestUser, badgeId: string, userId: string, reason?: string) {
  const response = await award(app, by, badgeId, userId, reason);
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as {
    message: string;
    userBadge: { id: string; userId: string; badgeId: string; awardedAt: string };
  };
}

export function revoke(app: App, by: TestUser, badgeId: string, userId: string) {
  return app.inject({ method: 'DELETE', url: `/badges/${badgeId}/users/${userId}`, headers: by.headers });
}

/** awarded_count of every badge equals its number of user_badges rows (checked after every badge test). */
export async function expectAwardedCounts(app: App): Promise<void> {
  const { db } = app.context.database;
  const [badges, awards] = await Promise.all([
    db.selectFrom('badges').select(['id', 'awarded_count']).execute(),
    db.selectFrom('user_badges').select('badge_id').execute(),
  ]);
  for (const badge of badges) {
    expect(badge.awarded_count, `awarded_count of ${badge.id}`).toBe(
      awards.filter((row) => row.badge_id === badge.id).length,
    );
  }
}
