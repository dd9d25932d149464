// The directory's search indexes (servers, teams, users) kept in step with every write, in its transaction: each
// write below is followed by the searches that must now find, or no longer find, what it changed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createPersonas, createUser } from '../helpers/factories.js';
import type { Personas } from '../helpers/factories.js';
import { createResource, moderate as moderateResource } from '../resources/helpers.js';
import { createApprovedServer, createServer, moderate } from '../servers/helpers.js';
import { createTeam } from '../teams/helpers.js';
import { rebuildSearchIndexes } from '../../src/modules/search/rebuild.js';
import { indexText } from '../../src/modules/search/text.js';
import { DIRECTORY_CACHE_TTL_MS } from '../../src/core/http/page-cache.js';

let t: TestApp;
let p: Personas;

async function call(
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  headers = {},
  payload?: object,
) {
  const response = await t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
  expect(response.statusCode, `${method} ${url}: ${response.body}`).toBeLessThan(300);
  return response.statusCode === 204 ? undefined : response.json();
}

/** The names GET /servers lists for a search (and `lists`, e.g. `tags=…`), its total checked against them. */
async function serverNames(search: string, lists = ''): Promise<string[]> {
  const body = await call('GET', `/servers?search=${encodeURIComponent(search)}&${lists}`);
  expect(body.total).toBe(body.servers.length);
  return body.servers.map((server: { name: string }) => server.name).sort();
}
async function teamNames(search: string): Promise<string[]> {
  const body = await call('GET', `/teams?search=${encodeURIComponent(search)}`);
  expect(body.total).toBe(body.teams.length);
  return body.teams.map((team: { name: string }) => team.name).sort();
}
async function usernames(q: string): Promise<string[]> {
  const body = await call('GET', `/users/search?q=${encodeURIComponent(q)}`, p.user.headers);
  return body.users.map((user: { username: string }) => user.username).sort();
}
/** The resources the resource index finds for a word in their owner text (read from the document table). */
async function resourceOwnerText(resourceId: string): Promise<string | undefined> {
  const row = await t.app.context.database.db
    .selectFrom('resource_search')
    .select('owner_text')
    .where('resource_id', '=', resourceId)
    .executeTakeFirst();
  return row?.owner_text;
}

beforeAll(async () => {
  t = await buildTestApp();
  p = await createPersonas(t.app);
});
afterAll(async () => t.close());

describe('server documents', () => {
  it('exist only while APPROVED: create, approve, reject, approve, suspend, approve', async () => {
    const server = await createServer(t.app, p.user, { name: 'Zebrafish Haven' });
    expect(await serverNames('zebrafish')).toEqual([]);
    await moderate(t.app, p.moderator, server.id, 'approve');
    expect(await serverNames('zebrafish')).toEqual(['Zebrafish Haven']);
    await moderate(t.app, p.moderator, server.id, 'reject');
    expect(await serverNames('zebrafish')).toEqual([]);
    await moderate(t.app, p.moderator, server.id, 'approve');
    expect(await serverNames('zebra')).toEqual(['Zebrafish Haven']);
    await moderate(t.app, p.moderator, server.id, 'suspend');
    expect(await serverNames('zebrafish')).toEqual([]);
    await moderate(t.app, p.moderator, server.id, 'approve');
    expect(await serverNames('haven zebra')).toEqual(['Zebrafish Haven']);
  });

  it('follow PATCH of name, short description, description, tags and categories', async () => {
    const tags = (await call('GET', '/server-tags')).tags as Array<{ id: string; name: string }>;
    const categories = (await call('GET', '/server-categories')).categories as Array<{
      id: string;
      name: string;
    }>;
    const server = await createApprovedServer(t.app, p.user, p.moderator, { name: 'Quokka Realm' });
    await call('PATCH', `/servers/${server.id}`, p.user.headers, {
      name: 'Wombat Realm',
      shortDescription: 'Marsupial paradise',
      description: 'Read [the **platypus** guide](https://example.com/ignored-link-target)',
      tagIds: [tags[0]!.id],
      categoryIds: [categories[0]!.id],
    });
    // The PATCH of an APPROVED server keeps it APPROVED.
    expect(await serverNames('quokka')).toEqual([]);
    expect(await serverNames('wombat')).toEqual(['Wombat Realm']);
    expect(await serverNames('marsupial')).toEqual(['Wombat Realm']);
    expect(await serverNames('platypus')).toEqual(['Wombat Realm']);
    expect(await serverNames('wombat ignored')).toEqual([]);
    expect(await serverNames(`wombat ${tags[0]!.name}`)).toEqual(['Wombat Realm']);
    expect(await serverNames(`wombat ${categories[0]!.name}`)).toEqual(['Wombat Realm']);
    await call('PATCH', `/servers/${server.id}`, p.user.headers, { tagIds: [] });
    expect(await serverNames(`wombat ${tags[0]!.name} `)).toEqual([]);
  });

  it('follow catalog renames and deletions, transfers and deletes', async () => {
    const tag = await call('POST', '/server-tags', p.admin.headers, { name: 'Ocelot', slug: 'ocelot-tag' });
    const category = await call('POST', '/server-categories', p.admin.headers, {
      name: 'Narwhal',
      slug: 'narwhal-cat',
    });
    const server = await createApprovedServer(t.app, p.user, p.moderator, {
      name: 'Catalog Keeper',
      tagIds: [tag.id],
      categoryIds: [category.id],
    });
    expect(await serverNames('ocelot narwhal')).toEqual(['Catalog Keeper']);
    await call('PATCH', '/server-tags/ocelot-tag', p.admin.headers, { name: 'Lynx' });
    await call('PATCH', '/server-categories/narwhal-cat', p.admin.headers, { name: 'Beluga' });
    expect(await serverNames('ocelot')).toEqual([]);
    expect(await serverNames('lynx beluga')).toEqual(['Catalog Keeper']);
    await call('DELETE', '/server-tags/ocelot-tag', p.admin.headers);
    await call('DELETE', '/server-categories/narwhal-cat', p.admin.headers);
    expect(await serverNames('lynx')).toEqual([]);
    expect(await serverNames('beluga')).toEqual([]);
    expect(await serverNames('catalog keeper')).toEqual(['Catalog Keeper']);

    // Transfer to a team: the team's name becomes the owner text.
    const team = await createTeam(t.app, p.user, { name: 'Axolotl Guild' });
    await call('POST', `/servers/${server.id}/transfer-ownership`, p.user.headers, {
      newOwnerId: team.id,
      ownerType: 'TEAM',
    });
    expect(await serverNames('axolotl')).toEqual(['Catalog Keeper']);
    expect(await serverNames(p.user.username)).not.toContain('Catalog Keeper');
    await call('DELETE', `/servers/${server.id}`, p.user.headers);
    expect(await serverNames('catalog keeper')).toEqual([]);
    const left = await t.app.context.database.db
      .selectFrom('server_search')
      .select('server_id')
      .where('server_id', '=', server.id)
      .execute();
    expect(left).toEqual([]);
  });
});

describe('server documents: tags and categories as terms (migration 0040)', () => {
  async function storedTerms(serverId: string): Promise<string | undefined> {
    const row = await t.app.context.database.db
      .selectFrom('server_search')
      .select('facet_terms')
      .where('server_id', '=', serverId)
      .executeTakeFirst();
    return row?.facet_terms;
  }

  it('follow PATCH of tags and categories, and catalog deletions; any value of a list, every list', async () => {
    const [tagA, tagB] = await Promise.all([
      call('POST', '/server-tags', p.admin.headers, { name: 'Termtag A', slug: 'termtag-a' }),
      call('POST', '/server-tags', p.admin.headers, { name: 'Termtag B', slug: 'termtag-b' }),
    ]);
    const category = await call('POST', '/server-categories', p.admin.headers, {
      name: 'Termcat',
      slug: 'termcat',
    });
    const server = await createApprovedServer(t.app, p.user, p.moderator, {
      name: 'Tapir Lodge',
      tagIds: [tagA.id],
      categoryIds: [category.id],
    });
    await createApprovedServer(t.app, p.user, p.moderator, { name: 'Tapir Burrow', tagIds: [tagB.id] });
    expect(await storedTerms(server.id)).toBe(
      [`#category/${category.id}`, `#tag/${tagA.id}`].sort().join(' '),
    );
    expect(await serverNames('tapir', `tags=${tagA.id}`)).toEqual(['Tapir Lodge']);
    expect(await serverNames('tapir', `tags=${tagA.id},${tagB.id}`)).toEqual(['Tapir Burrow', 'Tapir Lodge']);
    expect(await serverNames('tapir', `tags=${tagA.id},${tagB.id}&categories=${category.id}`)).toEqual([
      'Tapir Lodge',
    ]);
    // A tag's name is a word of the keywords, not a term: its id is no word a search could ask for.
    expect(await serverNames(tagA.id, '')).toEqual([]);

    await call('PATCH', `/servers/${server.id}`, p.user.headers, { tagIds: [tagB.id], categoryIds: [] });
    expect(await storedTerms(server.id)).toBe(`#tag/${tagB.id}`);
    expect(await serverNames('tapir', `tags=${tagA.id}`)).toEqual([]);
    expect(await serverNames('tapir', `tags=${tagB.id}`)).toEqual(['Tapir Burrow', 'Tapir Lodge']);
    expect(await serverNames('tapir', `categories=${category.id}`)).toEqual([]);
    for (const sort of ['rank', 'relevance', 'newest']) {
      expect(await serverNames('tapir lodge', `tags=${tagB.id}&sort=${sort}`)).toEqual(['Tapir Lodge']);
    }

    await call('DELETE', '/server-tags/termtag-b', p.admin.headers);
    expect(await storedTerms(server.id)).toBe('');
    expect(await serverNames('tapir', '')).toEqual(['Tapir Burrow', 'Tapir Lodge']);
  });
});

describe('owner renames', () => {
  it("a team's rename refreshes its team document and the documents of its resources and servers", async () => {
    const team = await createTeam(t.app, p.user, { name: 'Pelican Crew', description: 'We build harbors' });
    expect(await teamNames('pelican')).toEqual(['Pelican Crew']);
    expect(await teamNames('harbors')).toEqual(['Pelican Crew']);
    await createApprovedServer(t.app, p.user, p.moderator, {
      name: 'Team Owned Server',
      ownerType: 'TEAM',
      ownerId: team.id,
    });
    const resource = await createResource(t.app, p.user, { ownerType: 'TEAM', ownerId: team.id });
    await moderateResource(t.app, p.moderator, resource.id, 'APPROVE');
    expect(await resourceOwnerText(resource.id)).toBe('pelican crew');
    expect(await serverNames('pelican')).toEqual(['Team Owned Server']);

    await call('PATCH', `/teams/${team.id}`, p.user.headers, {
      name: 'Flamingo Crew',
      description: 'Lagoons',
    });
    expect(await teamNames('pelican')).toEqual([]);
    expect(await teamNames('harbors')).toEqual([]);
    expect(await teamNames('flamingo lagoons')).toEqual(['Flamingo Crew']);
    expect(await resourceOwnerText(resource.id)).toBe('flamingo crew');
    expect(await serverNames('pelican')).toEqual([]);
    expect(await serverNames('flamingo')).toEqual(['Team Owned Server']);
  });

  it("a user's display name change refreshes their user document and their resources and servers", async () => {
    const owner = await createUser(t.app);
    const server = await createApprovedServer(t.app, owner, p.moderator, { name: 'Display Owned' });
    const resource = await createResource(t.app, owner);
    await moderateResource(t.app, p.moderator, resource.id, 'APPROVE');
    await call('PATCH', '/users/me', owner.headers, { displayName: 'Capybara Königin' });
    expect(await usernames('capybara konigin')).toEqual([owner.username]);
    expect(await serverNames('capybara')).toEqual(['Display Owned']);
    expect(await resourceOwnerText(resource.id)).toBe(`${indexText(owner.username)} capybara konigin`);
    await call('PATCH', '/users/me', owner.headers, { displayName: null });
    expect(await usernames('capybara')).toEqual([]);
    expect(await serverNames('capybara')).toEqual([]);
    expect(server.id).toBeTruthy();
  });

  it('a deleted team leaves the team index', async () => {
    const team = await createTeam(t.app, p.user, { name: 'Ephemeral Heron' });
    expect(await teamNames('heron')).toEqual(['Ephemeral Heron']);
    await call('DELETE', `/teams/${team.id}`, p.user.headers);
    expect(await teamNames('heron')).toEqual([]);
  });

  it('a registered account is searchable at once', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/auth/register',
      payload: {
        username: 'Mongoose_Rider',
        email: 'mongoose@example.test',
        password: 'correct horse battery',
      },
    });
    expect(response.statusCode, response.body).toBe(201);
    expect(await usernames('mongoose')).toEqual(['Mongoose_Rider']);
    expect(await usernames('mongooserider')).toEqual(['Mongoose_Rider']);
    expect(await usernames('rider')).toEqual(['Mongoose_Rider']);
  });
});

describe('rebuild', () => {
  it('rewrites every directory document from the tables, approved servers only', async () => {
    const { db, dialect } = t.app.context.database;
    const hidden = await createServer(t.app, p.user, { name: 'Rebuilt Pending' });
    await createApprovedServer(t.app, p.user, p.moderator, { name: 'Rebuilt Approved' });
    const before = await Promise.all([serverNames('rebuilt'), teamNames('crew'), usernames('mongoose')]);
    await db.deleteFrom('server_search').execute();
    await db.deleteFrom('team_search').execute();
    await db.deleteFrom('user_search').execute();
    // Rows deleted by hand move no cache version: wait the cached directory pages out.
    t.clock.advance(DIRECTORY_CACHE_TTL_MS + 1);
    expect(await serverNames('rebuilt')).toEqual([]);
    const counts = await rebuildSearchIndexes(db, dialect);
    t.clock.advance(DIRECTORY_CACHE_TTL_MS + 1);
    const approved = await db
      .selectFrom('servers')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('status', '=', 'APPROVED')
      .executeTakeFirstOrThrow();
    expect(counts['servers']).toBe(Number(approved.n));
    expect(await Promise.all([serverNames('rebuilt'), teamNames('crew'), usernames('mongoose')])).toEqual(
      before,
    );
    expect(before[0]).toEqual(['Rebuilt Approved']);
    expect(hidden.status).toBe('PENDING');
  });
});
