// Atom feeds of a resource, a user and a team (extensions §1.3): APPROVED things only, newest first by approval
// time, 50 at most, links under PUBLIC_URL, changelogs as sanitized content, ETags. Every feed is parsed by a
// real feed parser.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import type { TestUser } from '../helpers/factories.js';
import { expectError } from '../helpers/http.js';
import { createResource, moderate } from '../resources/helpers.js';
import type { ResourceBody } from '../resources/helpers.js';
import { createTeam } from '../teams/helpers.js';
import type { TeamBody } from '../teams/helpers.js';
import { act, createVersion } from '../versions/helpers.js';
import {
  PUBLIC_URL,
  approve,
  approvedResource,
  approvedVersion,
  links,
  readFeed,
  resourceLink,
  submittedVersion,
  versionLink,
} from './helpers.js';

let t: TestApp;
let owner: TestUser;
let moderator: TestUser;
let stranger: TestUser;
let teamOwner: TestUser;
let team: TeamBody;

beforeAll(async () => {
  t = await buildTestApp();
  [owner, stranger, teamOwner] = await Promise.all([createUser(t.app), createUser(t.app), createUser(t.app)]);
  moderator = await createUser(t.app, { role: 'MODERATOR' });
  team = await createTeam(t.app, teamOwner);
});
afterAll(async () => t.close());

describe('GET /resources/:id/feed.atom', () => {
  let resource: ResourceBody;
  let first: { id: string; approvedAt: string };
  let second: { id: string; approvedAt: string };
  let hiddenVersions: string[];

  beforeAll(async () => {
    resource = await approvedResource(t.app, t.clock, { owner, moderator }, { name: 'Castle Walls' });
    const editor = { editor: owner, moderator };
    // Submitted first, approved second: the feed orders by approval, not by creation.
    const early = await submittedVersion(t.app, t.clock, owner, resource.id, {
      versionNumber: '1.0.0',
      name: 'First stones',
      changelog:
        '<p>Initial <strong>release</strong></p><script>alert(1)</script><img src=x onerror="alert(2)">',
    });
    const later = await submittedVersion(t.app, t.clock, owner, resource.id, {
      versionNumber: '1.1.0',
      changelog: '<p>Taller towers</p>',
    });
    second = await approve(t.app, t.clock, moderator, resource.id, later.id);
    first = await approve(t.app, t.clock, moderator, resource.id, early.id);
    // Never in the feed: a draft, a pending, a rejected and an archived version.
    const pending = await submittedVersion(t.app, t.clock, owner, resource.id, {
      versionNumber: '2.0.0-pending',
    });
    const rejected = await submittedVersion(t.app, t.clock, owner, resource.id, {
      versionNumber: '2.0.0-rejected',
    });
    await act(t.app, moderator, resource.id, rejected.id, 'reject', { reason: 'Broken' });
    const archived = await approvedVersion(t.app, t.clock, editor, resource.id, { versionNumber: '0.9.0' });
    await act(t.app, owner, resource.id, archived.id, 'archive');
    const draft = await createVersion(t.app, owner, resource.id, { versionNumber: '3.0.0-draft' });
    hiddenVersions = [pending.id, rejected.id, archived.id, draft.id];
  });

  it('lists the APPROVED versions newest approval first, linked under PUBLIC_URL', async () => {
    const { feed } = await readFeed(t.app, `/resources/${resource.id}/feed.atom`);
    expect(feed.title).toBe('Castle Walls: versions');
    expect(feed.url).toBe(resourceLink(resource.id));
    expect(links(feed)).toEqual([versionLink(resource.id, first.id), versionLink(resource.id, second.id)]);
    expect(feed.items.map((item) => item.title)).toEqual([
      'Castle Walls 1.0.0: First stones',
      'Castle Walls 1.1.0',
    ]);
    expect(feed.items.map((item) => item.published?.toISOString())).toEqual([
      first.approvedAt,
      second.approvedAt,
    ]);
    expect(feed.updated?.toISOString()).toBe(first.approvedAt);
    expect(feed.items[0]!.authors[0]).toMatchObject({
      name: owner.username,
      url: `${PUBLIC_URL}/users/${owner.id}`,
    });
    expect(feed.items[0]!.categories.map((category) => category.term)).toEqual(['RELEASE']);
  });

  it('carries the changelog as content, sanitized', async () => {
    const { feed, response } = await readFeed(t.app, `/resources/${resource.id}/feed.atom`);
    expect(feed.items[0]!.content).toContain('<strong>release</strong>');
    expect(feed.items[1]!.content).toBe('<p>Taller towers</p>');
    expect(response.body).not.toContain('<script');
    expect(response.body).not.toContain('alert(');
    expect(response.body).not.toContain('onerror');
  });

  it('never shows draft, pending, rejected or archived versions', async () => {
    const { response } = await readFeed(t.app, `/resources/${resource.id}/feed.atom`);
    for (const id of hiddenVersions) expect(response.body).not.toContain(id);
  });

  it('is the same document for the owner, a moderator, a stranger and anonymous callers', async () => {
    const anonymous = (await readFeed(t.app, `/resources/${resource.id}/feed.atom`)).response.body;
    for (const user of [owner, moderator, stranger]) {
      const { response } = await readFeed(t.app, `/resources/${resource.id}/feed.atom`, user.headers);
      expect(response.body).toBe(anonymous);
    }
  });

  it('answers If-None-Match with 304 until a new version is approved', async () => {
    const url = `/resources/${resource.id}/feed.atom`;
    const { response } = await readFeed(t.app, url);
    const etag = response.headers['etag'] as string;
    t.clock.advance(60_000);
    const again = await t.app.inject({ method: 'GET', url, headers: { 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');

    const newest = await approvedVersion(t.app, t.clock, { editor: owner, moderator }, resource.id, {
      versionNumber: '1.2.0',
    });
    const changed = await t.app.inject({ method: 'GET', url, headers: { 'if-none-match': etag } });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers['etag']).not.toBe(etag);
    const { feed } = await readFeed(t.app, url);
    expect(links(feed)[0]).toBe(versionLink(resource.id, newest.id));
    // A version without a changelog has no content.
    expect(feed.items[0]!.content).toBeNull();
  });

  it('is 404 for a resource the public cannot see, and for an unknown one', async () => {
    const pending = await createResource(t.app, owner);
    const rejected = await createResource(t.app, owner);
    await moderate(t.app, moderator, rejected.id, 'REJECT', 'No');
    // Approved with an approved version, then suspended: the feed goes with it.
    const suspended = await approvedResource(t.app, t.clock, { owner, moderator });
    await approvedVersion(t.app, t.clock, { editor: owner, moderator }, suspended.id, {
      versionNumber: '1.0.0',
    });
    await moderate(t.app, moderator, suspended.id, 'SUSPEND', 'Stolen');
    for (const id of [pending.id, rejected.id, suspended.id, '01900000-0000-7000-8000-000000000000']) {
      for (const headers of [{}, owner.headers, moderator.headers]) {
        const response = await t.app.inject({ method: 'GET', url: `/resources/${id}/feed.atom`, headers });
        expectError(response, 404, 'NOT_FOUND');
      }
    }
  });

  it('keeps the 50 newest versions', async () => {
    const crowded = await approvedResource(t.app, t.clock, { owner, moderator });
    const approved: string[] = [];
    for (let i = 0; i < 51; i++) {
      const version = await approvedVersion(t.app, t.clock, { editor: owner, moderator }, crowded.id, {
        versionNumber: `0.${i}.0`,
      });
      approved.push(version.id);
    }
    const { feed } = await readFeed(t.app, `/resources/${crowded.id}/feed.atom`);
    expect(feed.items).toHaveLength(50);
    expect(links(feed)).toEqual(
      approved
        .slice(1)
        .reverse()
        .map((id) => versionLink(crowded.id, id)),
    );
  });
});

describe('GET /users/:userId/feed.atom and GET /teams/:id/feed.atom', () => {
  let author: TestUser;
  let expected: string[];

  beforeAll(async () => {
    author = await createUser(t.app);
    const actors = { owner: author, moderator };
    const editor = { editor: author, moderator };
    const tower = await approvedResource(t.app, t.clock, actors, {
      name: 'Tower <Kit>',
      shortDescription: 'Stairs & rooms',
      type: 'PLUGIN',
    });
    const towerV1 = await approvedVersion(t.app, t.clock, editor, tower.id, { versionNumber: '1.0.0' });
    const bridge = await approvedResource(t.app, t.clock, actors, { name: 'Bridge' });
    const towerV2 = await approvedVersion(t.app, t.clock, editor, tower.id, {
      versionNumber: '2.0.0',
      changelog: '<p>Spiral stairs</p>',
    });
    // Never in the author's feed: a pending resource, a rejected one, a suspended one with its approved
    // version, a version still pending, and a team resource the author created.
    await createResource(t.app, author, { name: 'Pending thing' });
    const rejected = await createResource(t.app, author, { name: 'Rejected thing' });
    await moderate(t.app, moderator, rejected.id, 'REJECT', 'No');
    const suspended = await approvedResource(t.app, t.clock, actors, { name: 'Suspended thing' });
    await approvedVersion(t.app, t.clock, editor, suspended.id, { versionNumber: '9.9.9' });
    await moderate(t.app, moderator, suspended.id, 'SUSPEND', 'Stolen');
    await submittedVersion(t.app, t.clock, author, bridge.id, { versionNumber: '0.1.0-pending' });
    expected = [
      versionLink(tower.id, towerV2.id),
      resourceLink(bridge.id),
      versionLink(tower.id, towerV1.id),
      resourceLink(tower.id),
    ];
  });

  it("merges the user's APPROVED resources and versions, newest approval first", async () => {
    const { feed, response } = await readFeed(t.app, `/users/${author.id}/feed.atom`);
    expect(feed.title).toBe(`${author.username}: resources and versions`);
    expect(feed.url).toBe(`${PUBLIC_URL}/users/${author.id}`);
    expect(feed.authors[0]?.name).toBe(author.username);
    expect(links(feed)).toEqual(expected);
    expect(feed.items[0]!.content).toBe('<p>Spiral stairs</p>');
    expect(response.body).not.toContain('thing');
  });

  it('describes a resource entry by its name, short description and catalog terms, markup escaped', async () => {
    const { feed, response } = await readFeed(t.app, `/users/${author.id}/feed.atom`);
    const tower = feed.items[3]!;
    // type="html": plain text is escaped in the document, so readers show it as written, never as markup.
    expect(response.body).toContain('<title type="html"><![CDATA[Tower &lt;Kit&gt;]]></title>');
    expect(response.body).toContain('<summary type="html"><![CDATA[Stairs &amp; rooms]]></summary>');
    expect(tower.title).toBe('Tower <Kit>');
    expect(tower.description).toBe('Stairs & rooms');
    expect(tower.categories.map((category) => category.term)).toEqual(['PLUGIN']);
    expect(feed.items[2]!.title).toBe('Tower <Kit> 1.0.0');
  });

  it('is 404 for an unknown user and for a banned one', async () => {
    expectError(
      await t.app.inject({ method: 'GET', url: '/users/01900000-0000-7000-8000-000000000000/feed.atom' }),
      404,
      'NOT_FOUND',
    );
    const banned = await createUser(t.app);
    await approvedResource(t.app, t.clock, { owner: banned, moderator }, { name: 'Banned work' });
    await readFeed(t.app, `/users/${banned.id}/feed.atom`);
    const admin = await createUser(t.app, { role: 'ADMIN' });
    const ban = await t.app.inject({
      method: 'PATCH',
      url: `/admin/users/${banned.id}`,
      headers: admin.headers,
      payload: { status: 'BANNED' },
    });
    expect(ban.statusCode, ban.body).toBe(200);
    expectError(
      await t.app.inject({ method: 'GET', url: `/users/${banned.id}/feed.atom` }),
      404,
      'NOT_FOUND',
    );
  });

  it("lists a team's resources and versions, not its members' own", async () => {
    const actors = { owner: teamOwner, moderator };
    const own = await approvedResource(t.app, t.clock, actors, { name: 'Personal pack' });
    const teamPack = await approvedResource(t.app, t.clock, actors, {
      name: 'Team pack',
      ownerType: 'TEAM',
      ownerId: team.id,
    });
    const release = await approvedVersion(t.app, t.clock, { editor: teamOwner, moderator }, teamPack.id, {
      versionNumber: '1.0.0',
    });
    await createResource(t.app, teamOwner, { name: 'Team draft', ownerType: 'TEAM', ownerId: team.id });

    const { feed, response } = await readFeed(t.app, `/teams/${team.id}/feed.atom`);
    expect(feed.title).toBe(`${team.name}: resources and versions`);
    expect(feed.url).toBe(`${PUBLIC_URL}/teams/${team.id}`);
    expect(links(feed)).toEqual([versionLink(teamPack.id, release.id), resourceLink(teamPack.id)]);
    expect(feed.items[1]!.authors[0]).toMatchObject({
      name: team.name,
      url: `${PUBLIC_URL}/teams/${team.id}`,
    });
    expect(response.body).not.toContain('Team draft');

    const personal = await readFeed(t.app, `/users/${teamOwner.id}/feed.atom`);
    expect(links(personal.feed)).toEqual([resourceLink(own.id)]);
  });

  it('is 404 for an unknown team', async () => {
    expectError(
      await t.app.inject({ method: 'GET', url: '/teams/01900000-0000-7000-8000-000000000000/feed.atom' }),
      404,
      'NOT_FOUND',
    );
  });

  it('gives a feed without entries a stable ETag', async () => {
    const quiet = await createUser(t.app);
    const url = `/users/${quiet.id}/feed.atom`;
    const { feed, response } = await readFeed(t.app, url);
    expect(feed.items).toEqual([]);
    t.clock.advance(3_600_000);
    const again = await t.app.inject({
      method: 'GET',
      url,
      headers: { 'if-none-match': response.headers['etag'] as string },
    });
    expect(again.statusCode).toBe(304);
  });

  it('keeps the 50 newest entries across resources and versions', async () => {
    const prolific = await createUser(t.app);
    const made: string[] = [];
    for (let i = 0; i < 26; i++) {
      const resource = await approvedResource(t.app, t.clock, { owner: prolific, moderator });
      made.push(resourceLink(resource.id));
      const version = await approvedVersion(t.app, t.clock, { editor: prolific, moderator }, resource.id, {
        versionNumber: '1.0.0',
      });
      made.push(versionLink(resource.id, version.id));
    }
    const { feed } = await readFeed(t.app, `/users/${prolific.id}/feed.atom`);
    expect(links(feed)).toEqual(made.slice(2).reverse());
  });
});
