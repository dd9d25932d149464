// Server social links: the shared module mounted at /servers/:id/social-links with the server platforms,
// public reads of visible servers and writes for the owner side and team members.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createPersonas } from '../helpers/factories.js';
import type { Personas, TestUser } from '../helpers/factories.js';
import { expectError } from '../helpers/http.js';
import { createCast, createStaffedTeam } from '../teams/helpers.js';
import type { TeamBody, TeamCast } from '../teams/helpers.js';
import { createApprovedServer, createServer, expectServerInvariants } from './helpers.js';

interface Link {
  id: string;
  platform: string;
  url: string;
  order: number;
}

let t: TestApp;
let p: Personas;
let cast: TeamCast;
let team: TeamBody;

beforeAll(async () => {
  t = await buildTestApp();
  p = await createPersonas(t.app);
  cast = await createCast(t.app);
  team = await createStaffedTeam(t.app, cast);
});
afterAll(async () => t.close());
afterEach(async () => expectServerInvariants(t.app));

const call = (
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  by: TestUser | null,
  payload?: object,
) => t.app.inject({ method, url, ...(by ? { headers: by.headers } : {}), ...(payload ? { payload } : {}) });

async function addLink(serverId: string, by: TestUser, platform: string, url: string): Promise<Link> {
  const response = await call('POST', `/servers/${serverId}/social-links`, by, { platform, url });
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as Link;
}

describe('server social links', () => {
  it('adds, edits, reorders and removes links, keeping a gapless order', async () => {
    const server = await createApprovedServer(t.app, p.user, p.moderator);
    const base = `/servers/${server.id}/social-links`;
    const chat = await addLink(server.id, p.user, 'CHAT_COMMUNITY', 'https://chat.example/invite');
    const video = await addLink(server.id, p.user, 'VIDEO_SHARING', 'https://video.example/c/server');
    const site = await addLink(server.id, p.user, 'WEBSITE', 'https://server.example');
    expect([chat.order, video.order, site.order]).toEqual([0, 1, 2]);

    const edited = await call('PATCH', `${base}/${video.id}`, p.user, { platform: 'LIVE_STREAMING' });
    expect(edited.json()).toEqual({ ...video, platform: 'LIVE_STREAMING' });

    const reordered = await call('PATCH', `${base}/reorder`, p.user, {
      linkIds: [site.id, chat.id, video.id],
    });
    expect(reordered.statusCode, reordered.body).toBe(200);
    expect((reordered.json() as { socialLinks: Link[] }).socialLinks.map((l) => [l.id, l.order])).toEqual([
      [site.id, 0],
      [chat.id, 1],
      [video.id, 2],
    ]);
    expectError(await call('PATCH', `${base}/reorder`, p.user, { linkIds: [site.id, chat.id] }), 400);

    expect((await call('DELETE', `${base}/${chat.id}`, p.user)).statusCode).toBe(204);
    const listed = (await call('GET', base, null)).json() as { socialLinks: Link[] };
    expect(listed.socialLinks.map((l) => [l.id, l.order])).toEqual([
      [site.id, 0],
      [video.id, 1],
    ]);
  });

  it('takes the server platforms only (CODE_HOSTING is a profile platform)', async () => {
    const server = await createServer(t.app, p.user);
    for (const platform of [
      'CHAT_COMMUNITY',
      'MICROBLOG',
      'VIDEO_SHARING',
      'LIVE_STREAMING',
      'WEBSITE',
      'OTHER',
    ]) {
      await addLink(server.id, p.user, platform, `https://example.test/${platform}`);
    }
    expectError(
      await call('POST', `/servers/${server.id}/social-links`, p.user, {
        platform: 'CODE_HOSTING',
        url: 'https://code.example/server',
      }),
      400,
      'INVALID_REQUEST',
    );
    expectError(
      await call('POST', `/servers/${server.id}/social-links`, p.user, {
        platform: 'WEBSITE',
        url: 'ftp://x',
      }),
      400,
    );
  });

  it('allows at most 10 links (409 LIMIT_REACHED)', async () => {
    const server = await createServer(t.app, p.user);
    for (let i = 0; i < 10; i++) await addLink(server.id, p.user, 'OTHER', `https://example.test/${i}`);
    expectError(
      await call('POST', `/servers/${server.id}/social-links`, p.user, {
        platform: 'OTHER',
        url: 'https://x.test',
      }),
      409,
      'LIMIT_REACHED',
    );
  });

  it('lets every member of the owning team write; strangers get 403, anonymous 401', async () => {
    const server = await createApprovedServer(t.app, cast.owner, p.moderator, {
      ownerType: 'TEAM',
      ownerId: team.id,
    });
    for (const member of [cast.owner, cast.admin, cast.moderator, cast.member]) {
      await addLink(server.id, member, 'WEBSITE', 'https://team-server.example');
    }
    const payload = { platform: 'WEBSITE', url: 'https://x.example' };
    expectError(
      await call('POST', `/servers/${server.id}/social-links`, cast.nonMember, payload),
      403,
      'FORBIDDEN',
    );
    expectError(
      await call('POST', `/servers/${server.id}/social-links`, p.moderator, payload),
      403,
      'FORBIDDEN',
    );
    expectError(await call('POST', `/servers/${server.id}/social-links`, null, payload), 401, 'UNAUTHORIZED');
  });

  it('hides the links of a server the caller cannot see (404), and of unknown servers', async () => {
    const server = await createServer(t.app, p.user);
    await addLink(server.id, p.user, 'WEBSITE', 'https://pending.example');
    expectError(await call('GET', `/servers/${server.id}/social-links`, null), 404, 'NOT_FOUND');
    expectError(await call('GET', `/servers/${server.id}/social-links`, p.stranger), 404);
    expectError(
      await call('POST', `/servers/${server.id}/social-links`, p.stranger, {
        platform: 'WEBSITE',
        url: 'https://x.test',
      }),
      404,
    );
    for (const viewer of [p.user, p.moderator]) {
      const response = await call('GET', `/servers/${server.id}/social-links`, viewer);
      expect((response.json() as { socialLinks: Link[] }).socialLinks).toHaveLength(1);
    }
    expectError(await call('GET', '/servers/01900000-0000-7000-8000-000000000000/social-links', null), 404);
  });

  it('refuses a link id that belongs to another server (404)', async () => {
    const mine = await createServer(t.app, p.user);
    const theirs = await createServer(t.app, p.stranger);
    const link = await addLink(theirs.id, p.stranger, 'WEBSITE', 'https://theirs.example');
    expectError(
      await call('PATCH', `/servers/${mine.id}/social-links/${link.id}`, p.user, {
        url: 'https://hijack.example',
      }),
      404,
    );
    expectError(await call('DELETE', `/servers/${mine.id}/social-links/${link.id}`, p.user), 404);
  });
});
