// Every server endpoint × every persona, for a user-owned and a team-owned server, APPROVED and PENDING: the
// status each persona gets. Each case runs against a fresh server so a successful write cannot leak into the next.
import type { InjectOptions } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createPersonas, createUser } from '../helpers/factories.js';
import type { Personas, TestUser } from '../helpers/factories.js';
import { expectError, multipart } from '../helpers/http.js';
import { pngImage } from '../fixtures/images.js';
import { createCast, createStaffedTeam } from '../teams/helpers.js';
import type { TeamBody, TeamCast } from '../teams/helpers.js';
import { createServer, expectServerInvariants, moderate } from './helpers.js';
import type { ServerBody } from './helpers.js';

let t: TestApp;
let p: Personas;
let cast: TeamCast;
let team: TeamBody;
let recipient: TestUser;
let png: Buffer;

beforeAll(async () => {
  t = await buildTestApp();
  p = await createPersonas(t.app);
  cast = await createCast(t.app);
  team = await createStaffedTeam(t.app, cast);
  recipient = await createUser(t.app);
  png = await pngImage(24, 24);
});
afterAll(async () => t.close());
afterEach(async () => expectServerInvariants(t.app));

type Persona =
  | 'userOwner'
  | 'teamOwner'
  | 'teamAdmin'
  | 'teamModerator'
  | 'teamMember'
  | 'stranger'
  | 'moderator'
  | 'admin'
  | 'anonymous';

/** What each persona may do, as DESIGN §8 "Servers" and "Ownership" and core/auth/server-access.ts say. */
interface Rights {
  seesHidden: boolean;
  manage: boolean;
  delete: boolean;
  transfer: boolean;
  moderate: boolean;
}
const NONE: Rights = { seesHidden: false, manage: false, delete: false, transfer: false, moderate: false };
const RIGHTS: Record<Persona, Rights> = {
  userOwner: { seesHidden: true, manage: true, delete: true, transfer: true, moderate: false },
  teamOwner: { seesHidden: true, manage: true, delete: true, transfer: true, moderate: false },
  teamAdmin: { seesHidden: true, manage: true, delete: true, transfer: false, moderate: false },
  teamModerator: { seesHidden: true, manage: true, delete: false, transfer: false, moderate: false },
  teamMember: { seesHidden: true, manage: true, delete: false, transfer: false, moderate: false },
  stranger: NONE,
  moderator: { ...NONE, seesHidden: true, moderate: true },
  admin: { ...NONE, seesHidden: true, moderate: true },
  anonymous: NONE,
};

const USER_PERSONAS: Persona[] = ['userOwner', 'stranger', 'moderator', 'admin', 'anonymous'];
const TEAM_PERSONAS: Persona[] = [
  'teamOwner',
  'teamAdmin',
  'teamModerator',
  'teamMember',
  'stranger',
  'moderator',
  'admin',
  'anonymous',
];

function userOf(persona: Persona): TestUser | null {
  switch (persona) {
    case 'userOwner':
      return p.user;
    case 'teamOwner':
      return cast.owner;
    case 'teamAdmin':
      return cast.admin;
    case 'teamModerator':
      return cast.moderator;
    case 'teamMember':
      return cast.member;
    case 'stranger':
      return p.stranger;
    case 'moderator':
      return p.moderator;
    case 'admin':
      return p.admin;
    case 'anonymous':
      return null;
  }
}

interface Scenario {
  server: ServerBody;
  linkId: string;
}

async function scenario(ownership: 'user' | 'team', approved: boolean): Promise<Scenario> {
  const server =
    ownership === 'user'
      ? await createServer(t.app, p.user)
      : await createServer(t.app, cast.owner, { ownerType: 'TEAM', ownerId: team.id });
  const owner = ownership === 'user' ? p.user : cast.owner;
  if (approved) await moderate(t.app, p.moderator, server.id, 'approve');
  const link = await t.app.inject({
    method: 'POST',
    url: `/servers/${server.id}/social-links`,
    headers: owner.headers,
    payload: { platform: 'WEBSITE', url: 'https://server.example' },
  });
  expect(link.statusCode, link.body).toBe(201);
  return { server, linkId: (link.json() as { id: string }).id };
}

/** What an endpoint needs: view (public), authedView (signed in + visible), manage, delete, transfer, moderate. */
type Need = 'view' | 'authedView' | 'manage' | 'delete' | 'transfer' | 'moderate';

interface Case {
  name: string;
  need: Need;
  ok: number;
  request: (s: Scenario) => InjectOptions | Promise<InjectOptions>;
}

const uploadLogo = async (s: Scenario): Promise<InjectOptions> => {
  const body = await multipart('logo', { data: png, name: 'logo.png', type: 'image/png' });
  return {
    method: 'POST',
    url: `/servers/${s.server.id}/logo`,
    headers: body.headers,
    payload: body.payload,
  };
};
const uploadDescriptionImage = async (s: Scenario): Promise<InjectOptions> => {
  const body = await multipart('file', { data: png, name: 'shot.png', type: 'image/png' });
  return {
    method: 'POST',
    url: `/servers/description-images/${s.server.id}/upload`,
    headers: body.headers,
    payload: body.payload,
  };
};

const CASES: Case[] = [
  {
    name: 'GET /servers/slug/:slug',
    need: 'view',
    ok: 200,
    request: (s) => ({ method: 'GET', url: `/servers/slug/${s.server.slug}` }),
  },
  {
    name: 'GET /servers/:id',
    need: 'view',
    ok: 200,
    request: (s) => ({ method: 'GET', url: `/servers/${s.server.id}` }),
  },
  {
    name: 'PATCH /servers/:id',
    need: 'manage',
    ok: 200,
    request: (s) => ({ method: 'PATCH', url: `/servers/${s.server.id}`, payload: { name: 'Renamed' } }),
  },
  {
    name: 'DELETE /servers/:id',
    need: 'delete',
    ok: 204,
    request: (s) => ({ method: 'DELETE', url: `/servers/${s.server.id}` }),
  },
  {
    name: 'POST /servers/:id/transfer-ownership',
    need: 'transfer',
    ok: 200,
    request: (s) => ({
      method: 'POST',
      url: `/servers/${s.server.id}/transfer-ownership`,
      payload: { newOwnerId: recipient.id, ownerType: 'USER' },
    }),
  },
  { name: 'POST /servers/:id/logo', need: 'manage', ok: 200, request: uploadLogo },
  {
    name: 'DELETE /servers/:id/banner',
    need: 'manage',
    ok: 200,
    request: (s) => ({ method: 'DELETE', url: `/servers/${s.server.id}/banner` }),
  },
  {
    name: 'POST /servers/:id/status',
    need: 'manage',
    ok: 200,
    request: (s) => ({
      method: 'POST',
      url: `/servers/${s.server.id}/status`,
      payload: { online: true, onlinePlayers: 3, maxPlayers: 10 },
    }),
  },
  {
    name: 'GET /servers/:id/social-links',
    need: 'view',
    ok: 200,
    request: (s) => ({ method: 'GET', url: `/servers/${s.server.id}/social-links` }),
  },
  {
    name: 'POST /servers/:id/social-links',
    need: 'manage',
    ok: 201,
    request: (s) => ({
      method: 'POST',
      url: `/servers/${s.server.id}/social-links`,
      payload: { platform: 'CHAT_COMMUNITY', url: 'https://chat.example' },
    }),
  },
  {
    name: 'PATCH /servers/:id/social-links/:linkId',
    need: 'manage',
    ok: 200,
    request: (s) => ({
      method: 'PATCH',
      url: `/servers/${s.server.id}/social-links/${s.linkId}`,
      payload: { url: 'https://new.example' },
    }),
  },
  {
    name: 'PATCH /servers/:id/social-links/reorder',
    need: 'manage',
    ok: 200,
    request: (s) => ({
      method: 'PATCH',
      url: `/servers/${s.server.id}/social-links/reorder`,
      payload: { linkIds: [s.linkId] },
    }),
  },
  {
    name: 'DELETE /servers/:id/social-links/:linkId',
    need: 'manage',
    ok: 204,
    request: (s) => ({ method: 'DELETE', url: `/servers/${s.server.id}/social-links/${s.linkId}` }),
  },
  {
    name: 'POST /servers/description-images/:serverId/upload',
    need: 'manage',
    ok: 201,
    request: uploadDescriptionImage,
  },
  {
    name: 'GET /servers/description-images/:serverId/temporary',
    need: 'authedView',
    ok: 200,
    request: (s) => ({ method: 'GET', url: `/servers/description-images/${s.server.id}/temporary` }),
  },
  {
    name: 'POST /servers/moderation/:id/suspend',
    need: 'moderate',
    ok: 200,
    request: (s) => ({
      method: 'POST',
      url: `/servers/moderation/${s.server.id}/suspend`,
      payload: { reason: 'x' },
    }),
  },
  {
    name: 'POST /servers/moderation/:id/reject',
    need: 'moderate',
    ok: 200,
    request: (s) => ({
      method: 'POST',
      url: `/servers/moderation/${s.server.id}/reject`,
      payload: { reason: 'x' },
    }),
  },
  {
    name: 'GET /servers/moderation/:id/history',
    need: 'moderate',
    ok: 200,
    request: (s) => ({ method: 'GET', url: `/servers/moderation/${s.server.id}/history` }),
  },
];

/** 401 anonymous (where credentials are needed) → 404 invisible → 403 lacking rights → success. */
function expected(c: Case, persona: Persona, approved: boolean): number {
  const rights = RIGHTS[persona];
  const anonymous = persona === 'anonymous';
  // Moderation is a platform role gate in front of everything else.
  if (c.need === 'moderate') return anonymous ? 401 : rights.moderate ? c.ok : 403;
  if (anonymous && c.need !== 'view') return 401;
  if (!approved && !rights.seesHidden) return 404;
  if (c.need === 'view' || c.need === 'authedView') return c.ok;
  return rights[c.need] ? c.ok : 403;
}

const MATRIX = (['user', 'team'] as const).flatMap((ownership) =>
  [true, false].flatMap((approved) =>
    CASES.flatMap((c) =>
      (ownership === 'user' ? USER_PERSONAS : TEAM_PERSONAS).map((persona) => ({
        ...c,
        ownership,
        approved,
        persona,
        label: approved ? 'APPROVED' : 'PENDING',
        status: expected(c, persona, approved),
      })),
    ),
  ),
);

describe('endpoint × persona', () => {
  it.each(MATRIX)('$ownership $label server: $name as $persona → $status', async (entry) => {
    const s = await scenario(entry.ownership, entry.approved);
    const options = await entry.request(s);
    const user = userOf(entry.persona);
    const response = await t.app.inject({
      ...options,
      headers: { ...(options.headers as Record<string, string> | undefined), ...(user ? user.headers : {}) },
    });
    if (entry.status >= 400) expectError(response, entry.status);
    else expect(response.statusCode, response.body).toBe(entry.status);
  });
});

describe('unknown server id', () => {
  const unknown = '01900000-0000-7000-8000-000000000000';
  const ROUTES: Array<[InjectOptions['method'], string, Record<string, unknown>?]> = [
    ['PATCH', `/servers/${unknown}`, { name: 'x' }],
    ['DELETE', `/servers/${unknown}`],
    ['POST', `/servers/${unknown}/transfer-ownership`, { newOwnerId: unknown, ownerType: 'USER' }],
    ['DELETE', `/servers/${unknown}/logo`],
    ['DELETE', `/servers/${unknown}/banner`],
    ['POST', `/servers/${unknown}/status`, { online: true, onlinePlayers: 0, maxPlayers: 1 }],
    ['POST', `/servers/${unknown}/social-links`, { platform: 'WEBSITE', url: 'https://x.example' }],
    ['PATCH', `/servers/${unknown}/social-links/${unknown}`, { url: 'https://x.example' }],
    ['PATCH', `/servers/${unknown}/social-links/reorder`, { linkIds: [] }],
    ['DELETE', `/servers/${unknown}/social-links/${unknown}`],
    ['GET', `/servers/description-images/${unknown}/temporary`],
    ['DELETE', `/servers/description-images/${unknown}/${unknown}`],
  ];

  it.each(ROUTES)('%s %s → 404 when signed in, 401 when anonymous', async (method, url, payload) => {
    const base = { method, url, ...(payload ? { payload } : {}) };
    expectError(await t.app.inject({ ...base, headers: p.user.headers }), 404, 'NOT_FOUND');
    expectError(await t.app.inject(base), 401, 'UNAUTHORIZED');
  });

  it.each([
    ['POST', `/servers/moderation/${unknown}/approve`, {}],
    ['POST', `/servers/moderation/${unknown}/reject`, { reason: 'x' }],
    ['POST', `/servers/moderation/${unknown}/suspend`, { reason: 'x' }],
  ] as const)('%s %s → 404 for a moderator', async (method, url, payload) => {
    expectError(await t.app.inject({ method, url, payload, headers: p.moderator.headers }), 404, 'NOT_FOUND');
  });
});
