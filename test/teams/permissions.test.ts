// Every team endpoint × every persona (owner, admin, moderator, member, non-member, anonymous): the status each
// gets. Each case runs against a fresh team so a successful write cannot leak into the next case.
import type { InjectOptions } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import type { TestUser } from '../helpers/factories.js';
import { expectError, multipart } from '../helpers/http.js';
import { pngImage } from '../fixtures/images.js';
import {
  TEAM_PERSONAS,
  createCast,
  createStaffedTeam,
  expectTeamInvariants,
  headersOf,
  invite,
  uniqueSlug,
} from './helpers.js';
import type { TeamBody, TeamCast, TeamPersona } from './helpers.js';

let t: TestApp;
let cast: TeamCast;
/** Has a pending invitation in every scenario (the one managers cancel). */
let invitee: TestUser;
/** Invited by the create-invitation case. */
let newcomer: TestUser;
let png: Buffer;

beforeAll(async () => {
  t = await buildTestApp();
  cast = await createCast(t.app);
  [invitee, newcomer] = await Promise.all([createUser(t.app), createUser(t.app)]);
  png = await pngImage(40, 40);
});
afterAll(async () => t.close());
afterEach(async () => expectTeamInvariants(t.app));

interface Scenario {
  team: TeamBody;
  /** Pending invitation addressed to the nonMember persona. */
  nonMemberInvitationId: string;
  /** Pending MEMBER invitation addressed to `invitee`. */
  inviteeInvitationId: string;
  linkId: string;
}

async function scenario(): Promise<Scenario> {
  const team = await createStaffedTeam(t.app, cast);
  const forNonMember = await invite(t.app, team.id, cast.owner, cast.nonMember, 'MEMBER');
  const forInvitee = await invite(t.app, team.id, cast.owner, invitee, 'MEMBER');
  const link = await t.app.inject({
    method: 'POST',
    url: `/teams/${team.id}/social-links`,
    headers: cast.owner.headers,
    payload: { platform: 'WEBSITE', url: 'https://team.example' },
  });
  expect(link.statusCode, link.body).toBe(201);
  return {
    team,
    nonMemberInvitationId: forNonMember.id,
    inviteeInvitationId: forInvitee.id,
    linkId: (link.json() as { id: string }).id,
  };
}

type Expected = Record<TeamPersona, number>;
const anyone = (ok: number): Expected => ({
  owner: ok,
  admin: ok,
  moderator: ok,
  member: ok,
  nonMember: ok,
  anonymous: ok,
});
const signedIn = (ok: number): Expected => ({ ...anyone(ok), anonymous: 401 });
const teamMembers = (ok: number): Expected => ({ ...signedIn(ok), nonMember: 403 });
const managers = (ok: number): Expected => ({ ...teamMembers(ok), moderator: 403, member: 403 });

interface Case {
  name: string;
  request: (s: Scenario) => InjectOptions | Promise<InjectOptions>;
  expected: Expected;
}

const upload = async (field: 'logo' | 'banner', s: Scenario): Promise<InjectOptions> => {
  const body = await multipart(field, { data: png, name: `${field}.png`, type: 'image/png' });
  return {
    method: 'POST',
    url: `/teams/${s.team.id}/${field}`,
    headers: body.headers,
    payload: body.payload,
  };
};

const CASES: Case[] = [
  { name: 'GET /teams', request: () => ({ method: 'GET', url: '/teams' }), expected: anyone(200) },
  {
    name: 'GET /teams/slug/:slug',
    request: (s) => ({ method: 'GET', url: `/teams/slug/${s.team.slug}` }),
    expected: anyone(200),
  },
  { name: 'GET /teams/me', request: () => ({ method: 'GET', url: '/teams/me' }), expected: signedIn(200) },
  {
    name: 'POST /teams',
    request: () => ({
      method: 'POST',
      url: '/teams',
      payload: { name: 'Another', slug: uniqueSlug('perm') },
    }),
    expected: signedIn(201),
  },
  {
    name: 'PATCH /teams/:id',
    request: (s) => ({ method: 'PATCH', url: `/teams/${s.team.id}`, payload: { name: 'Renamed' } }),
    expected: managers(200),
  },
  {
    name: 'DELETE /teams/:id',
    request: (s) => ({ method: 'DELETE', url: `/teams/${s.team.id}` }),
    expected: { ...managers(204), admin: 403 },
  },
  { name: 'POST /teams/:id/logo', request: (s) => upload('logo', s), expected: managers(200) },
  {
    name: 'DELETE /teams/:id/logo',
    request: (s) => ({ method: 'DELETE', url: `/teams/${s.team.id}/logo` }),
    expected: managers(200),
  },
  { name: 'POST /teams/:id/banner', request: (s) => upload('banner', s), expected: managers(200) },
  {
    name: 'DELETE /teams/:id/banner',
    request: (s) => ({ method: 'DELETE', url: `/teams/${s.team.id}/banner` }),
    expected: managers(200),
  },
  {
    name: 'POST /teams/:id/invitations',
    request: (s) => ({
      method: 'POST',
      url: `/teams/${s.team.id}/invitations`,
      payload: { userId: newcomer.id, role: 'MEMBER' },
    }),
    expected: managers(201),
  },
  {
    name: 'GET /teams/:id/invitations',
    request: (s) => ({ method: 'GET', url: `/teams/${s.team.id}/invitations` }),
    expected: teamMembers(200),
  },
  {
    name: 'DELETE /teams/:id/invitations/:invitationId',
    request: (s) => ({ method: 'DELETE', url: `/teams/${s.team.id}/invitations/${s.inviteeInvitationId}` }),
    expected: managers(200),
  },
  {
    name: 'GET /teams/invitations/me',
    request: () => ({ method: 'GET', url: '/teams/invitations/me' }),
    expected: signedIn(200),
  },
  {
    name: 'POST /teams/invitations/:invitationId/respond',
    request: (s) => ({
      method: 'POST',
      url: `/teams/invitations/${s.nonMemberInvitationId}/respond`,
      payload: { accept: true },
    }),
    // Only the invitee may see it; to anyone else it does not exist.
    expected: { owner: 404, admin: 404, moderator: 404, member: 404, nonMember: 200, anonymous: 401 },
  },
  {
    name: 'PATCH /teams/:id/members/:memberId',
    request: (s) => ({
      method: 'PATCH',
      url: `/teams/${s.team.id}/members/${cast.member.id}`,
      payload: { role: 'MODERATOR' },
    }),
    expected: managers(200),
  },
  {
    name: 'DELETE /teams/:id/members/:memberId',
    request: (s) => ({ method: 'DELETE', url: `/teams/${s.team.id}/members/${cast.member.id}` }),
    expected: managers(200),
  },
  {
    name: 'DELETE /teams/:id/leave',
    request: (s) => ({ method: 'DELETE', url: `/teams/${s.team.id}/leave` }),
    expected: { ...signedIn(200), owner: 409, nonMember: 404 },
  },
  {
    name: 'GET /teams/:id/social-links',
    request: (s) => ({ method: 'GET', url: `/teams/${s.team.id}/social-links` }),
    expected: anyone(200),
  },
  {
    name: 'POST /teams/:id/social-links',
    request: (s) => ({
      method: 'POST',
      url: `/teams/${s.team.id}/social-links`,
      payload: { platform: 'CHAT_COMMUNITY', url: 'https://chat.example/team' },
    }),
    expected: managers(201),
  },
  {
    name: 'PATCH /teams/:id/social-links/:linkId',
    request: (s) => ({
      method: 'PATCH',
      url: `/teams/${s.team.id}/social-links/${s.linkId}`,
      payload: { url: 'https://team.example/new' },
    }),
    expected: managers(200),
  },
  {
    name: 'PATCH /teams/:id/social-links/reorder',
    request: (s) => ({
      method: 'PATCH',
      url: `/teams/${s.team.id}/social-links/reorder`,
      payload: { linkIds: [s.linkId] },
    }),
    expected: managers(200),
  },
  {
    name: 'DELETE /teams/:id/social-links/:linkId',
    request: (s) => ({ method: 'DELETE', url: `/teams/${s.team.id}/social-links/${s.linkId}` }),
    expected: managers(204),
  },
];

const MATRIX = CASES.flatMap((c) =>
  TEAM_PERSONAS.map((persona) => ({ ...c, persona, status: c.expected[persona] })),
);

describe('endpoint × persona', () => {
  it.each(MATRIX)('$name as $persona → $status', async ({ request, persona, status }) => {
    const s = await scenario();
    const options = await request(s);
    const response = await t.app.inject({
      ...options,
      headers: { ...(options.headers as Record<string, string> | undefined), ...headersOf(cast, persona) },
    });
    if (status >= 400) expectError(response, status);
    else expect(response.statusCode, response.body).toBe(status);
  });
});

describe('unknown team id', () => {
  const unknown = '01900000-0000-7000-8000-000000000000';
  const TEAM_ROUTES: Array<[string, string, Record<string, unknown>?]> = [
    ['PATCH', `/teams/${unknown}`, { name: 'x' }],
    ['DELETE', `/teams/${unknown}`],
    ['DELETE', `/teams/${unknown}/logo`],
    ['DELETE', `/teams/${unknown}/banner`],
    ['POST', `/teams/${unknown}/invitations`, { userId: unknown, role: 'MEMBER' }],
    ['GET', `/teams/${unknown}/invitations`],
    ['DELETE', `/teams/${unknown}/invitations/${unknown}`],
    ['PATCH', `/teams/${unknown}/members/${unknown}`, { role: 'MEMBER' }],
    ['DELETE', `/teams/${unknown}/members/${unknown}`],
    ['DELETE', `/teams/${unknown}/leave`],
    ['POST', `/teams/${unknown}/social-links`, { platform: 'WEBSITE', url: 'https://x.example' }],
    ['PATCH', `/teams/${unknown}/social-links/${unknown}`, { url: 'https://x.example' }],
    ['PATCH', `/teams/${unknown}/social-links/reorder`, { linkIds: [] }],
    ['DELETE', `/teams/${unknown}/social-links/${unknown}`],
  ];

  it.each(TEAM_ROUTES)('%s %s → 404 when signed in, 401 when anonymous', async (method, url, payload) => {
    const base = { method: method as InjectOptions['method'], url, ...(payload ? { payload } : {}) };
    expectError(await t.app.inject({ ...base, headers: cast.owner.headers }), 404, 'NOT_FOUND');
    expectError(await t.app.inject(base), 401, 'UNAUTHORIZED');
  });

  it('POST /teams/:id/logo → 404 for an unknown team', async () => {
    const body = await multipart('logo', { data: png, name: 'logo.png' });
    const response = await t.app.inject({
      method: 'POST',
      url: `/teams/${unknown}/logo`,
      headers: { ...cast.owner.headers, ...body.headers },
      payload: body.payload,
    });
    expectError(response, 404);
  });

  it('GET /teams/:id/social-links → 404 for an unknown team, anonymous or not', async () => {
    expectError(await t.app.inject({ method: 'GET', url: `/teams/${unknown}/social-links` }), 404);
  });

  it('POST /teams/invitations/:invitationId/respond → 404 for an unknown invitation', async () => {
    expectError(
      await t.app.inject({
        method: 'POST',
        url: `/teams/invitations/${unknown}/respond`,
        headers: cast.owner.headers,
        payload: { accept: true },
      }),
      404,
    );
  });
});
