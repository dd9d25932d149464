// Every badge endpoint × every persona (anonymous, user, moderator, admin, super admin): the status each gets.
// Each case runs on a fresh badge and holder so a successful write cannot leak into the next case.
import type { InjectOptions } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createPersonas, createUser } from '../helpers/factories.js';
import type { Personas, TestUser } from '../helpers/factories.js';
import { expectError } from '../helpers/http.js';
import { awardOk, createBadge, expectAwardedCounts, uniqueBadgeSlug } from './helpers.js';
import type { BadgeBody } from './helpers.js';

type Persona = 'anonymous' | 'user' | 'moderator' | 'admin' | 'superAdmin';
const PERSONAS: readonly Persona[] = ['anonymous', 'user', 'moderator', 'admin', 'superAdmin'];

let t: TestApp;
let p: Personas;

beforeAll(async () => {
  t = await buildTestApp();
  p = await createPersonas(t.app);
});
afterAll(async () => t.close());
afterEach(async () => expectAwardedCounts(t.app));

interface Scenario {
  badge: BadgeBody;
  /** Holds `badge`. */
  holder: TestUser;
  /** Does not hold `badge` yet. */
  newcomer: TestUser;
}

async function scenario(): Promise<Scenario> {
  const [badge, holder, newcomer] = await Promise.all([
    createBadge(t.app, p.admin),
    createUser(t.app),
    createUser(t.app),
  ]);
  await awardOk(t.app, p.admin, badge.id, holder.id);
  return { badge, holder, newcomer };
}

type Expected = Record<Persona, number>;
const anyone = (ok: number): Expected => ({
  anonymous: ok,
  user: ok,
  moderator: ok,
  admin: ok,
  superAdmin: ok,
});
const moderators = (ok: number): Expected => ({ ...anyone(ok), anonymous: 401, user: 403 });
const admins = (ok: number): Expected => ({ ...moderators(ok), moderator: 403 });

const CASES: Array<{ name: string; request: (s: Scenario) => InjectOptions; expected: Expected }> = [
  { name: 'GET /badges', request: () => ({ method: 'GET', url: '/badges' }), expected: anyone(200) },
  {
    name: 'GET /badges/:badgeId',
    request: (s) => ({ method: 'GET', url: `/badges/${s.badge.id}` }),
    expected: anyone(200),
  },
  {
    name: 'GET /badges/slug/:slug',
    request: (s) => ({ method: 'GET', url: `/badges/slug/${s.badge.slug}` }),
    expected: anyone(200),
  },
  {
    name: 'GET /badges/users/:userId',
    request: (s) => ({ method: 'GET', url: `/badges/users/${s.holder.id}` }),
    expected: anyone(200),
  },
  {
    name: 'POST /badges',
    request: () => ({
      method: 'POST',
      url: '/badges',
      payload: { name: 'New', slug: uniqueBadgeSlug('perm') },
    }),
    expected: admins(201),
  },
  {
    name: 'PATCH /badges/:badgeId',
    request: (s) => ({ method: 'PATCH', url: `/badges/${s.badge.id}`, payload: { name: 'Renamed' } }),
    expected: admins(200),
  },
  {
    name: 'DELETE /badges/:badgeId',
    request: (s) => ({ method: 'DELETE', url: `/badges/${s.badge.id}` }),
    expected: admins(204),
  },
  {
    name: 'POST /badges/award',
    request: (s) => ({
      method: 'POST',
      url: '/badges/award',
      payload: { badgeId: s.badge.id, userId: s.newcomer.id },
    }),
    expected: moderators(201),
  },
  {
    name: 'DELETE /badges/:badgeId/users/:userId',
    request: (s) => ({ method: 'DELETE', url: `/badges/${s.badge.id}/users/${s.holder.id}` }),
    expected: moderators(200),
  },
];

const TABLE = CASES.flatMap((testCase) =>
  PERSONAS.map((persona) => [testCase.name, persona, testCase.expected[persona], testCase] as const),
);

describe('badge permissions', () => {
  it.each(TABLE)('%s as %s → %i', async (_name, persona, expected, testCase) => {
    const s = await scenario();
    const response = await t.app.inject({
      ...testCase.request(s),
      headers: persona === 'anonymous' ? {} : p[persona].headers,
    });
    if (expected >= 400) expectError(response, expected);
    else expect(response.statusCode, response.body).toBe(expected);
  });
});
