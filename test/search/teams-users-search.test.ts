// GET /teams?search=, GET /users/search and GET /admin/users?search= on the full-text indexes: every word must
// match (last as a prefix), case and diacritics folded, relevance orderings, exact totals against brute force,
// banned accounts out of the public search, email prefixes for admins, credentials where they were needed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createPersonas, createUser } from '../helpers/factories.js';
import type { Personas, TestUser } from '../helpers/factories.js';
import { expectError } from '../helpers/http.js';
import { createTeam } from '../teams/helpers.js';
import { parseSearch, words } from '../../src/modules/search/text.js';
import { phrasesHold } from './phrases.js';

let t: TestApp;
let p: Personas;
const teams: Array<{ id: string; name: string; slug: string; description: string; members: number }> = [];
const accounts: TestUser[] = [];

async function get(url: string, user?: TestUser) {
  const response = await t.app.inject({ method: 'GET', url, ...(user ? { headers: user.headers } : {}) });
  expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
  return response.json();
}

/**
 * Every query word in the fields' words, the last as a prefix unless typed with a space after it, and every
 * phrase typed joined within one field.
 */
function holds(fields: string[], search: string): boolean {
  const query = parseSearch(search)!;
  const have = words(fields.join(' '));
  const allWords = query.terms.every((term, index) =>
    query.prefixLast && index === query.terms.length - 1
      ? have.some((word) => word.startsWith(term))
      : have.includes(term),
  );
  return (
    allWords &&
    phrasesHold(
      fields.map((field) => words(field)),
      search,
    )
  );
}

const TEAM_SPECS: Array<[string, string, string]> = [
  ['Red Foxes', 'red-foxes', 'Builders of red castles'],
  ['Foxes', 'foxes-united', 'Cartographers'],
  ['Blue Fox Den', 'den-of-blue', 'Red stone engineers'],
  ['Forge Masters', 'forge-masters', 'We craft foxes figurines'],
  ['Éclair Bakers', 'eclair-bakers', 'Sweet builds'],
  ['Crimson Knights', 'crimson-knights', 'PvP clan'],
];

beforeAll(async () => {
  t = await buildTestApp();
  p = await createPersonas(t.app);
  for (const [index, [name, slug, description]] of TEAM_SPECS.entries()) {
    const team = await createTeam(t.app, p.user, { name, slug, description });
    // Members make the popularity order inside a tier: more members first.
    for (let i = 0; i < index % 3; i++) {
      const member = await createUser(t.app);
      await t.app.context.database.db
        .insertInto('team_members')
        .values({
          team_id: team.id,
          user_id: member.id,
          role: 'MEMBER',
          created_at: new Date().toISOString(),
        })
        .execute();
      await t.app.context.database.db
        .updateTable('teams')
        .set((eb) => ({ member_count: eb('member_count', '+', 1) }))
        .where('id', '=', team.id)
        .execute();
    }
    teams.push({ id: team.id, name, slug, description, members: 1 + (index % 3) });
  }
  for (const username of ['Lumber_Jack', 'LumberJill', 'jackal99', 'Zoë_Painter', 'banned_lumber']) {
    accounts.push(await createUser(t.app, { username }));
  }
  await t.app.inject({
    method: 'PATCH',
    url: '/users/me',
    headers: accounts[2]!.headers,
    payload: { displayName: 'Lumber Baron' },
  });
  const ban = await t.app.inject({
    method: 'PATCH',
    url: `/admin/users/${accounts[4]!.id}`,
    headers: p.admin.headers,
    payload: { status: 'BANNED' },
  });
  expect(ban.statusCode, ban.body).toBe(200);
});
afterAll(async () => t.close());

describe('GET /teams?search=', () => {
  it('matches name, slug and description words; total exact against brute force', async () => {
    for (const search of [
      'fox',
      'foxes',
      'foxes ',
      'red',
      'RED fox',
      'eclair',
      'ÉCLAIR bak',
      'united',
      'den',
      'x',
      'castles',
      'red-foxes',
      'red-fo',
      'red-foxes ',
      'foxes-red',
      'blue_fox-den',
      'fox-den red',
      'of-blue',
    ]) {
      const body = await get(`/teams?search=${encodeURIComponent(search)}&limit=100`);
      const want = teams.filter((team) => holds([team.name, team.slug, team.description], search));
      expect(body.teams.map((team: { id: string }) => team.id).sort(), search).toEqual(
        want.map((team) => team.id).sort(),
      );
      expect(body.total, search).toBe(want.length);
      expect(body.meta.total, search).toBe(want.length);
    }
    const names = (search: string) =>
      teams
        .filter((team) => holds([team.name, team.slug, team.description], search))
        .map((team) => team.name);
    expect(names('red-foxes')).toEqual(['Red Foxes']);
    // "Red Foxes" then slug "red-foxes": no phrase across two fields.
    expect(names('foxes red')).toEqual(['Red Foxes']);
    expect(names('foxes-red')).toEqual([]);
  });

  it('orders by relevance: exact name, name, slug, description; then members; pages do not overlap', async () => {
    const order = async (search: string) =>
      (await get(`/teams?search=${encodeURIComponent(search)}&limit=100`)).teams.map(
        (team: { name: string }) => team.name,
      );
    // "Foxes" is the exact name; "Red Foxes" matches in the name; "Forge Masters" only in its description.
    expect(await order('foxes ')).toEqual(['Foxes', 'Red Foxes', 'Forge Masters']);
    // Name matches by members (Blue Fox Den 3, Foxes 2, Red Foxes 1), then the description-only match.
    expect(await order('fox')).toEqual(['Blue Fox Den', 'Foxes', 'Red Foxes', 'Forge Masters']);
    // "red": a name match first, then a description match.
    expect(await order('red ')).toEqual(['Red Foxes', 'Blue Fox Den']);
    const all = await order('fox');
    const paged: string[] = [];
    for (let offset = 0; offset < all.length; offset += 1) {
      paged.push(
        ...(await get(`/teams?search=fox&limit=1&offset=${offset}`)).teams.map(
          (x: { name: string }) => x.name,
        ),
      );
    }
    expect(paged).toEqual(all);
  });

  it('keeps newest first without a search, and a punctuation-only search is no search', async () => {
    const [plain, punctuation] = await Promise.all([
      get('/teams?limit=100'),
      get('/teams?search=%25%25&limit=100'),
    ]);
    expect(punctuation.teams).toEqual(plain.teams);
    expect(punctuation.total).toBe(plain.total);
  });
});

describe('GET /users/search', () => {
  const find = async (q: string) =>
    (await get(`/users/search?q=${encodeURIComponent(q)}`, p.user)).users.map(
      (user: { username: string }) => user.username,
    );

  it('needs credentials', async () => {
    expectError(await t.app.inject({ method: 'GET', url: '/users/search?q=lumber' }), 401);
  });

  it('finds usernames by their parts, camel case, joined, folded; banned accounts are left out', async () => {
    expect((await find('lumber')).sort()).toEqual(['LumberJill', 'Lumber_Jack', 'jackal99'].sort());
    expect(await find('lumberjack')).toEqual(['Lumber_Jack']);
    expect(await find('jill')).toEqual(['LumberJill']);
    expect(await find('zoe')).toEqual(['Zoë_Painter']);
    expect(await find('ZOË pain')).toEqual(['Zoë_Painter']);
    expect(await find('baron')).toEqual(['jackal99']);
    expect(await find('banned')).toEqual([]);
    expect(await find('!!')).toEqual([]);
  });

  it('orders by relevance: exact username, username words, display name; then followers, then username', async () => {
    // jackal99 matches "lumber" only by its display name (Lumber Baron): last.
    const lumber = await find('lumber');
    expect(lumber.at(-1)).toBe('jackal99');
    // Words typed apart: jackal99 matches too (display name "Lumber", username prefix "jack") but the username
    // words come first, though jackal99 would come first by username.
    expect(await find('lumber jack')).toEqual(['Lumber_Jack', 'jackal99']);
    // Typed joined, the words must be adjacent: only the username itself.
    expect(await find('lumber_jack')).toEqual(['Lumber_Jack']);
    // Same tier (words of the username): by followers, then username.
    expect(await find('jack')).toEqual(['jackal99', 'Lumber_Jack']);
    // Among equal tiers the most followed comes first.
    const follow = await t.app.inject({
      method: 'POST',
      url: `/users/${accounts[1]!.id}/follow`,
      headers: p.stranger.headers,
    });
    expect(follow.statusCode, follow.body).toBeLessThan(300);
    expect((await find('lumber')).slice(0, 2)).toEqual(['LumberJill', 'Lumber_Jack']);
  });
});

describe('GET /admin/users?search=', () => {
  const admin = async (query: string) => {
    const body = await get(`/admin/users?${query}&limit=100`, p.admin);
    return { names: body.users.map((user: { username: string }) => user.username).sort(), total: body.total };
  };

  it('matches username and display name words, or an email prefix; banned accounts included; totals exact', async () => {
    expect(await admin('search=lumber')).toEqual({
      names: ['LumberJill', 'Lumber_Jack', 'banned_lumber', 'jackal99'].sort(),
      total: 4,
    });
    // Emails are username@example.test: a prefix of an email finds it, a middle part does not.
    expect(await admin('search=zoë_painter@exa')).toEqual({ names: ['Zoë_Painter'], total: 1 });
    expect(await admin('search=LUMBERJILL@EXAMPLE.TEST')).toEqual({ names: ['LumberJill'], total: 1 });
    expect((await admin('search=example.test')).total).toBe(0);
    expect(await admin('search=lumber&status=BANNED')).toEqual({ names: ['banned_lumber'], total: 1 });
    expect(await admin('search=lumber&role=ADMIN')).toEqual({ names: [], total: 0 });
  });
});
