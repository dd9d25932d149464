// Every server, server-tag and server-category route reaches the OpenAPI document with its operationId, tag,
// summary and declared error responses; nothing else carries these tags.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { loadOpenApi } from '../helpers/openapi.js';
import type { OpenApiDocument } from '../helpers/openapi.js';

// [method, path, operationId, tag, authenticated (401 declared), has a server/catalog id (404 declared)]
const ROUTES: Array<[string, string, string, string, boolean, boolean]> = [
  ['get', '/servers', 'listServers', 'servers', false, false],
  ['get', '/servers/slug/{slug}', 'getServerBySlug', 'servers', false, true],
  ['get', '/servers/{id}', 'getServer', 'servers', false, true],
  ['get', '/servers/{id}/stats', 'getServerStats', 'servers', false, true],
  ['post', '/servers/{id}/votes', 'voteForServer', 'servers', true, true],
  ['get', '/servers/{id}/votes', 'listServerVotes', 'servers', true, true],
  ['put', '/servers/{id}/votifier', 'putServerVotifier', 'servers', true, true],
  ['get', '/servers/{id}/votifier', 'getServerVotifier', 'servers', true, true],
  ['delete', '/servers/{id}/votifier', 'deleteServerVotifier', 'servers', true, true],
  ['post', '/servers', 'createServer', 'servers', true, false],
  ['patch', '/servers/{id}', 'updateServer', 'servers', true, true],
  ['delete', '/servers/{id}', 'deleteServer', 'servers', true, true],
  ['post', '/servers/{id}/transfer-ownership', 'transferServerOwnership', 'servers', true, true],
  ['post', '/servers/{id}/logo', 'uploadServerLogo', 'servers', true, true],
  ['delete', '/servers/{id}/logo', 'deleteServerLogo', 'servers', true, true],
  ['post', '/servers/{id}/banner', 'uploadServerBanner', 'servers', true, true],
  ['delete', '/servers/{id}/banner', 'deleteServerBanner', 'servers', true, true],
  ['post', '/servers/{id}/status', 'reportServerStatus', 'servers', true, true],
  ['post', '/servers/{id}/keys', 'createServerKey', 'servers', true, true],
  ['get', '/servers/{id}/keys', 'listServerKeys', 'servers', true, true],
  ['delete', '/servers/{id}/keys/{keyId}', 'deleteServerKey', 'servers', true, true],
  ['post', '/servers/heartbeat', 'sendServerHeartbeat', 'servers', false, false],
  ['get', '/servers/{id}/rank', 'getServerRank', 'servers', false, true],
  ['get', '/servers/{id}/moderation/thread', 'getServerModerationThread', 'servers', true, true],
  ['post', '/servers/{id}/moderation/thread/messages', 'postServerModerationMessage', 'servers', true, true],
  ['get', '/servers/user/{userId}', 'listUserServers', 'servers', false, true],
  ['get', '/users/me/servers', 'listMyServers', 'servers', true, false],
  ['get', '/teams/{id}/servers', 'listTeamServers', 'servers', false, true],
  ['post', '/servers/moderation/{id}/approve', 'approveServer', 'servers', true, true],
  ['post', '/servers/moderation/{id}/reject', 'rejectServer', 'servers', true, true],
  ['post', '/servers/moderation/{id}/suspend', 'suspendServer', 'servers', true, true],
  ['get', '/servers/moderation/{id}/history', 'getServerModerationHistory', 'servers', true, true],
  ['get', '/servers/moderation/status/{status}', 'listServersByModerationStatus', 'servers', true, false],
  ['get', '/servers/{id}/social-links', 'listServerSocialLinks', 'servers', false, true],
  ['post', '/servers/{id}/social-links', 'createServerSocialLink', 'servers', true, true],
  ['patch', '/servers/{id}/social-links/{linkId}', 'updateServerSocialLink', 'servers', true, true],
  ['delete', '/servers/{id}/social-links/{linkId}', 'deleteServerSocialLink', 'servers', true, true],
  ['patch', '/servers/{id}/social-links/reorder', 'reorderServerSocialLinks', 'servers', true, true],
  [
    'post',
    '/servers/description-images/{serverId}/upload',
    'uploadServerDescriptionImage',
    'servers',
    true,
    true,
  ],
  [
    'get',
    '/servers/description-images/{serverId}/temporary',
    'listTemporaryServerDescriptionImages',
    'servers',
    true,
    true,
  ],
  [
    'delete',
    '/servers/description-images/{serverId}/{imageId}',
    'deleteServerDescriptionImage',
    'servers',
    true,
    true,
  ],
  ['get', '/server-tags', 'listServerTags', 'server-catalogs', false, false],
  ['get', '/server-tags/search', 'searchServerTags', 'server-catalogs', false, false],
  ['get', '/server-tags/popular', 'listPopularServerTags', 'server-catalogs', false, false],
  ['get', '/server-tags/{slug}', 'getServerTag', 'server-catalogs', false, true],
  ['post', '/server-tags', 'createServerTag', 'server-catalogs', true, false],
  ['patch', '/server-tags/{slug}', 'updateServerTag', 'server-catalogs', true, true],
  ['delete', '/server-tags/{slug}', 'deleteServerTag', 'server-catalogs', true, true],
  ['get', '/server-categories', 'listServerCategories', 'server-catalogs', false, false],
  ['get', '/server-categories/{slug}', 'getServerCategory', 'server-catalogs', false, true],
  ['post', '/server-categories', 'createServerCategory', 'server-catalogs', true, false],
  ['patch', '/server-categories/{slug}', 'updateServerCategory', 'server-catalogs', true, true],
  ['delete', '/server-categories/{slug}', 'deleteServerCategory', 'server-catalogs', true, true],
];

describe('OpenAPI document', () => {
  let t: TestApp;
  let document: OpenApiDocument;

  beforeAll(async () => {
    t = await buildTestApp();
    document = await loadOpenApi(t.app);
  });
  afterAll(async () => t.close());

  it('declares the servers and server-catalogs tags', () => {
    expect(document.tags.map((tag) => tag.name)).toEqual(
      expect.arrayContaining(['servers', 'server-catalogs']),
    );
  });

  it.each(ROUTES)('%s %s is %s', (method, path, operationId, tag, authenticated, identified) => {
    const operation = document.paths[path]?.[method];
    expect(operation, `${method} ${path} missing`).toBeDefined();
    expect(operation!.operationId).toBe(operationId);
    expect(operation!.tags).toEqual([tag]);
    expect(operation!.summary?.length).toBeGreaterThan(0);
    const statuses = Object.keys(operation!.responses ?? {});
    expect(statuses.some((status) => status.startsWith('2'))).toBe(true);
    if (authenticated) {
      expect(operation!.security).toBeDefined();
      expect(statuses).toContain('401');
      // The moderation queue and history answer 403 to non-moderators; a thread hides itself with 404.
      if (method !== 'get' || path.startsWith('/servers/moderation')) expect(statuses).toContain('403');
    }
    if (identified) expect(statuses).toContain('404');
    if (['post', 'patch'].includes(method)) expect(statuses).toContain('400');
  });

  it('has no servers or server-catalogs operation beyond the list above', () => {
    const tagged = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([, operation]) =>
          operation.tags?.some((tag) => tag === 'servers' || tag === 'server-catalogs'),
        )
        .map(([method]) => `${method} ${path}`),
    );
    expect(tagged.sort()).toEqual(ROUTES.map(([method, path]) => `${method} ${path}`).sort());
    const ids = Object.values(document.paths).flatMap((methods) =>
      Object.values(methods).map((operation) => operation.operationId),
    );
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('names the shared server shapes as components', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    const schemas = Object.keys((response.json() as { components: { schemas: object } }).components.schemas);
    expect(schemas).toEqual(
      expect.arrayContaining([
        'Server',
        'ServerListItem',
        'ServerSummary',
        'ServerOwner',
        'ServerTag',
        'ServerCategory',
      ]),
    );
  });
});
