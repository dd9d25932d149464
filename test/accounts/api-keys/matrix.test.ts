// The scope permission matrix (spec/extensions.md §5), generated from the app's own route table (app.scopedRoutes,
// filled by an onRoute hook, so a route added tomorrow is covered without touching this file): every route ×
// every single scope and all scopes × a key with and without teamId. A request is refused with 403
// INSUFFICIENT_SCOPE exactly when the rules below say so, and a refused request changes nothing.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scope, ScopedRoute } from '../../../src/core/auth/scopes.js';
import { hasRank } from '../../../src/core/auth/roles.js';
import { createApiKeysService } from '../../../src/modules/api-keys/api-keys.service.js';
import { buildTestApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { createUser } from '../../helpers/factories.js';
import type { TestUser } from '../../helpers/factories.js';
import { createResource } from '../../resources/helpers.js';
import { createServer } from '../../servers/helpers.js';
import { addMember, createTeam } from '../../teams/helpers.js';

const SINGLE_SCOPES: Scope[] = ['read', 'write', 'upload', 'moderate', 'admin'];
const SCOPE_SETS: Scope[][] = [...SINGLE_SCOPES.map((scope) => [scope]), SINGLE_SCOPES];
const READS = new Set(['GET', 'HEAD']);
/** Valid in form, matches nothing. */
const UNKNOWN_ID = '0190a000-0000-7000-8000-000000000000';

/** The rules of §5, written out independently of src/core/auth/scopes.ts. */
function expectedRefusal(route: ScopedRoute, scopes: readonly Scope[], teamBound: boolean): string | null {
  const { facts } = route;
  const required: Scope =
    facts.declaredScope ??
    (facts.minimumRole !== null && hasRank(facts.minimumRole, 'ADMIN')
      ? 'admin'
      : facts.minimumRole !== null && hasRank(facts.minimumRole, 'MODERATOR')
        ? 'moderate'
        : READS.has(route.method)
          ? 'read'
          : facts.upload
            ? 'upload'
            : 'write');
  if (!scopes.includes(required)) return required;
  if (teamBound && !READS.has(route.method) && !facts.teamAware) return 'team';
  return null;
}

interface Key {
  scopes: Scope[];
  teamBound: boolean;
  secret: string;
}

describe('scope matrix over every route', () => {
  let t: TestApp;
  let me: TestUser;
  let owner: TestUser;
  let keys: Key[];
  let otherTeamKey: string;
  let ids: Record<string, string>;

  beforeAll(async () => {
    t = await buildTestApp();
    // An ADMIN, so that the role allows every scope and only the key limits what it does.
    [me, owner] = await Promise.all([createUser(t.app, { role: 'ADMIN' }), createUser(t.app)]);
    const team = await createTeam(t.app, owner);
    await addMember(t.app, team.id, owner, me, 'ADMIN');
    const otherTeam = await createTeam(t.app, me);
    const resource = await createResource(t.app, me, { ownerType: 'TEAM', ownerId: team.id });
    const server = await createServer(t.app, me, { ownerType: 'TEAM', ownerId: team.id });
    const { database, clock } = t.app.context;
    const service = createApiKeysService({ db: database.db, dialect: database.dialect, clock });
    const spare = await service.create(me.id, { name: 'spare' });
    // Created together: the per-account lock orders them, and no test depends on their order.
    keys = await Promise.all(
      SCOPE_SETS.flatMap((scopes) =>
        [false, true].map(async (teamBound) => {
          const created = await service.create(me.id, {
            name: `${scopes.join('+')}${teamBound ? ' team' : ''}`,
            scopes,
            ...(teamBound ? { teamId: team.id } : {}),
          });
          return { scopes, teamBound, secret: created.key };
        }),
      ),
    );
    otherTeamKey = (await service.create(me.id, { name: 'other team', teamId: otherTeam.id })).key;
    ids = {
      team: team.id,
      resource: resource.id,
      server: server.id,
      userId: owner.id,
      memberId: owner.id,
      keyId: spare.id,
      teamId: team.id,
      username: owner.username,
      slug: 'no-such-slug',
      status: 'PENDING',
      type: 'MOD',
    };
  }, 180_000);
  afterAll(async () => t?.close());

  function urlOf(route: ScopedRoute): string {
    return route.url.replace(/\*/g, 'x').replace(/:([A-Za-z]+)/g, (_, name: string) => {
      if (name === 'id') {
        if (route.url.startsWith('/teams/')) return ids['team']!;
        if (route.url.startsWith('/resources/')) return ids['resource']!;
        if (route.url.startsWith('/servers/')) return ids['server']!;
        return UNKNOWN_ID;
      }
      if (name === 'resourceId') return ids['resource']!;
      if (name === 'serverId') return ids['server']!;
      return ids[name] ?? UNKNOWN_ID;
    });
  }

  const send = (route: ScopedRoute, secret: string) =>
    t.app.inject({
      method: route.method as 'GET',
      url: urlOf(route),
      headers: { 'x-api-key': secret },
      ...(READS.has(route.method) ? {} : { payload: {} }),
    });

  /** Row counts and latest change of the main tables: a refused request must leave all of them as they were. */
  async function fingerprint(): Promise<unknown> {
    const { rows } = await sql<Record<string, unknown>>`select
      (select count(*) from events) as events,
      (select count(*) from users) as users,
      (select max(updated_at) from users) as users_at,
      (select count(*) from teams) as teams,
      (select max(updated_at) from teams) as teams_at,
      (select count(*) from team_members) as members,
      (select count(*) from team_invitations) as invitations,
      (select count(*) from resources) as resources,
      (select max(updated_at) from resources) as resources_at,
      (select count(*) from resource_versions) as versions,
      (select count(*) from servers) as servers,
      (select max(updated_at) from servers) as servers_at,
      (select count(*) from social_links) as links,
      (select count(*) from webhooks) as webhooks,
      (select count(*) from reports) as reports,
      (select count(*) from badges) as badges,
      (select count(*) from follows) as follows`.execute(t.app.context.database.db);
    return JSON.stringify(rows[0]);
  }

  it('covers every operation of the OpenAPI document, and upload routes are the multipart ones', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<
        string,
        Record<string, { description?: string; requestBody?: { content?: Record<string, unknown> } }>
      >;
    };
    const table = new Map(t.app.scopedRoutes.map((route) => [`${route.method} ${route.url}`, route]));
    let operations = 0;
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        operations += 1;
        const route = table.get(
          // The document names the CDN wildcard `{path}` (src/core/http/openapi-paths.ts).
          `${method.toUpperCase()} ${path.replace('/cdn/{path}', '/cdn/*').replace(/\{([^}]+)\}/g, ':$1')}`,
        );
        expect(route, `${method} ${path}`).toBeDefined();
        // Routes that read the multipart stream themselves have no body schema; their description says so.
        const multipart =
          operation.requestBody?.content?.['multipart/form-data'] !== undefined ||
          (operation.description ?? '').includes('multipart/form-data');
        expect(route!.facts.upload, `${method} ${path}`).toBe(multipart);
      }
    }
    expect(operations).toBeGreaterThan(150);
  });

  it('refuses exactly where the rules say, and a refused request changes nothing', async () => {
    const routes = t.app.scopedRoutes.filter(
      (route) => route.method !== 'HEAD' && route.method !== 'OPTIONS',
    );
    const counts = { routes: routes.length, refused: 0, allowed: 0 };
    const mismatches: string[] = [];
    for (const route of routes) {
      const cases = keys.map((key) => ({ key, expected: expectedRefusal(route, key.scopes, key.teamBound) }));
      // Refused requests first, bracketed by fingerprints; the clock moves so any write would show.
      t.clock.advance(1000);
      const before = await fingerprint();
      for (const { key, expected } of cases.filter((c) => c.expected !== null)) {
        const res = await send(route, key.secret);
        const body = res.json() as { code?: string; details?: { required?: string } };
        if (
          res.statusCode !== 403 ||
          body.code !== 'INSUFFICIENT_SCOPE' ||
          body.details?.required !== expected
        ) {
          mismatches.push(
            `${route.method} ${route.url} [${key.scopes.join(',')}${key.teamBound ? ' team' : ''}]: ` +
              `expected refusal (${expected}), got ${res.statusCode} ${res.body.slice(0, 120)}`,
          );
        }
        counts.refused += 1;
      }
      // A key bound to another team never gets a team-aware change through on this team's objects.
      if (route.facts.teamAware && !READS.has(route.method)) {
        const res = await send(route, otherTeamKey);
        if (res.statusCode < 300)
          mismatches.push(`${route.method} ${route.url} [other team]: ${res.statusCode}`);
      }
      expect(await fingerprint(), `${route.method} ${route.url}: a refused request changed something`).toBe(
        before,
      );
      for (const { key } of cases.filter((c) => c.expected === null)) {
        const res = await send(route, key.secret);
        const body = res.statusCode === 403 ? (res.json() as { code?: string }) : {};
        if (body.code === 'INSUFFICIENT_SCOPE') {
          mismatches.push(
            `${route.method} ${route.url} [${key.scopes.join(',')}${key.teamBound ? ' team' : ''}]: ` +
              `refused although allowed: ${res.body.slice(0, 120)}`,
          );
        }
        counts.allowed += 1;
      }
    }
    expect(mismatches).toEqual([]);
    // Every scope and the team rule were exercised somewhere.
    expect(counts.routes).toBeGreaterThan(150);
    expect(counts.refused).toBeGreaterThan(counts.routes * 4);
    expect(counts.allowed).toBeGreaterThan(counts.routes * 2);
    const requirements = new Set(routes.map((route) => expectedRefusal(route, [], false)));
    expect([...requirements].sort()).toEqual(['admin', 'moderate', 'read', 'upload', 'write']);
    expect(routes.filter((route) => route.facts.teamAware).length).toBeGreaterThan(40);
  }, 300_000);
});
