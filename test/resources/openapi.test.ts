// Every resource, catalog and game-version route reaches the OpenAPI document with its operationId, tag, summary,
// security and error responses.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { loadOpenApi } from '../helpers/openapi.js';
import type { OpenApiDocument } from '../helpers/openapi.js';

/** gated: signed in and a role or a permission on the object (403 declared). */
type Auth = 'none' | 'optional' | 'required' | 'gated';
// [method, path, operationId, tag, auth]
const ROUTES: Array<[string, string, string, string, Auth]> = [
  ['get', '/resources', 'listResources', 'resources', 'none'],
  ['get', '/resources/categories', 'listResourceCategories', 'resources', 'none'],
  ['post', '/resources/categories', 'createResourceCategory', 'resources', 'gated'],
  ['patch', '/resources/categories/{id}', 'updateResourceCategory', 'resources', 'gated'],
  ['delete', '/resources/categories/{id}', 'deleteResourceCategory', 'resources', 'gated'],
  ['post', '/resources', 'createResource', 'resources', 'gated'],
  ['get', '/resources/me', 'listMyResources', 'resources', 'required'],
  ['get', '/resources/{id}', 'getResource', 'resources', 'optional'],
  ['get', '/resources/slug/{slug}', 'getResourceBySlug', 'resources', 'optional'],
  ['patch', '/resources/{id}', 'updateResource', 'resources', 'gated'],
  ['delete', '/resources/{id}', 'deleteResource', 'resources', 'gated'],
  ['post', '/resources/{id}/icon', 'uploadResourceIcon', 'resources', 'gated'],
  ['delete', '/resources/{id}/icon', 'deleteResourceIcon', 'resources', 'gated'],
  ['post', '/resources/{id}/banner', 'uploadResourceBanner', 'resources', 'gated'],
  ['delete', '/resources/{id}/banner', 'deleteResourceBanner', 'resources', 'gated'],
  ['get', '/resources/user/{userId}', 'listUserResources', 'resources', 'optional'],
  ['get', '/resources/team/{teamId}', 'listTeamResources', 'resources', 'optional'],
  ['get', '/teams/{id}/resources', 'listResourcesOfTeam', 'resources', 'optional'],
  ['get', '/resources/moderation/pending', 'listPendingResources', 'resources', 'gated'],
  ['get', '/resources/moderation/status/{status}', 'listResourcesByStatus', 'resources', 'gated'],
  ['patch', '/resources/moderation/{id}/moderate', 'moderateResource', 'resources', 'gated'],
  ['get', '/resources/moderation/{id}/history', 'getResourceModerationHistory', 'resources', 'gated'],
  ['get', '/resources/{id}/moderation/thread', 'getResourceModerationThread', 'resources', 'required'],
  [
    'post',
    '/resources/{id}/moderation/thread/messages',
    'postResourceModerationMessage',
    'resources',
    'gated',
  ],
  ['get', '/resources/{id}/external-links', 'listResourceExternalLinks', 'resources', 'optional'],
  ['post', '/resources/{id}/external-links', 'createResourceExternalLink', 'resources', 'gated'],
  [
    'patch',
    '/resources/{id}/external-links/reorder',
    'reorderResourceExternalLinks',
    'resources',
    'required',
  ],
  ['patch', '/resources/{id}/external-links/{linkId}', 'updateResourceExternalLink', 'resources', 'gated'],
  [
    'delete',
    '/resources/{id}/external-links/{linkId}',
    'deleteResourceExternalLink',
    'resources',
    'required',
  ],
  ['post', '/resources/{resourceId}/contributors', 'addResourceContributor', 'resources', 'gated'],
  ['get', '/resources/{resourceId}/contributors', 'listResourceContributors', 'resources', 'required'],
  [
    'patch',
    '/resources/{resourceId}/contributors/{userId}',
    'updateResourceContributorRole',
    'resources',
    'required',
  ],
  [
    'delete',
    '/resources/{resourceId}/contributors/{userId}',
    'removeResourceContributor',
    'resources',
    'required',
  ],
  ['post', '/resources/{resourceId}/likes', 'addLikeToResource', 'resources', 'required'],
  ['delete', '/resources/{resourceId}/likes', 'removeLikeFromResource', 'resources', 'required'],
  ['get', '/resources/{resourceId}/likes/me', 'getMyResourceLike', 'resources', 'required'],
  ['get', '/resources/{resourceId}/likes', 'listResourceLikes', 'resources', 'optional'],
  ['post', '/resources/{resourceId}/favorites', 'addFavoriteToResource', 'resources', 'required'],
  ['delete', '/resources/{resourceId}/favorites', 'removeFavoriteFromResource', 'resources', 'required'],
  ['get', '/resources/{resourceId}/favorites/me', 'getMyResourceFavorite', 'resources', 'required'],
  ['get', '/user/favorites', 'listMyFavoriteResources', 'resources', 'required'],
  [
    'post',
    '/resources/description-images/{resourceId}/upload',
    'uploadResourceDescriptionImage',
    'resources',
    'required',
  ],
  [
    'get',
    '/resources/description-images/{resourceId}/temporary',
    'listTemporaryResourceDescriptionImages',
    'resources',
    'required',
  ],
  [
    'delete',
    '/resources/description-images/{resourceId}/{imageId}',
    'deleteResourceDescriptionImage',
    'resources',
    'required',
  ],
  ['get', '/resource-tags', 'listResourceTags', 'resource-tags', 'none'],
  ['get', '/resource-tags/search', 'searchResourceTags', 'resource-tags', 'none'],
  ['get', '/resource-tags/popular/{type}', 'listPopularResourceTags', 'resource-tags', 'none'],
  ['get', '/resource-tags/slug/{slug}', 'getResourceTagBySlug', 'resource-tags', 'none'],
  ['get', '/resource-tags/{id}', 'getResourceTag', 'resource-tags', 'none'],
  ['post', '/resource-tags', 'createResourceTag', 'resource-tags', 'gated'],
  ['patch', '/resource-tags/{id}', 'updateResourceTag', 'resource-tags', 'gated'],
  ['delete', '/resource-tags/{id}', 'deleteResourceTag', 'resource-tags', 'gated'],
  ['get', '/game-versions', 'listGameVersions', 'game-versions', 'none'],
  ['post', '/game-versions', 'createGameVersion', 'game-versions', 'gated'],
  ['patch', '/game-versions/{id}', 'updateGameVersion', 'game-versions', 'gated'],
  ['delete', '/game-versions/{id}', 'deleteGameVersion', 'game-versions', 'gated'],
];

describe('OpenAPI document', () => {
  let t: TestApp;
  let document: OpenApiDocument;

  beforeAll(async () => {
    t = await buildTestApp();
    document = await loadOpenApi(t.app);
  });
  afterAll(async () => t.close());

  it('declares the resources, resource-tags and game-versions tags', () => {
    const names = document.tags.map((tag) => tag.name);
    for (const tag of ['resources', 'resource-tags', 'game-versions']) expect(names).toContain(tag);
  });

  it.each(ROUTES)('%s %s is %s', (method, path, operationId, tag, auth) => {
    const operation = document.paths[path]?.[method];
    expect(operation, `${method} ${path} missing`).toBeDefined();
    expect(operation!.operationId).toBe(operationId);
    expect(operation!.tags).toEqual([tag]);
    expect(operation!.summary?.length).toBeGreaterThan(0);
    const statuses = Object.keys(operation!.responses ?? {});
    expect(statuses.some((status) => status.startsWith('2'))).toBe(true);
    if (auth === 'required' || auth === 'gated') {
      expect(operation!.security?.some((entry) => Object.keys(entry).length > 0)).toBe(true);
      expect(operation!.security).not.toContainEqual({});
      expect(statuses).toContain('401');
    }
    if (auth === 'gated') expect(statuses).toContain('403');
    if (auth === 'optional') expect(operation!.security).toContainEqual({});
    if (
      /\{(id|resourceId|slug|userId|teamId|linkId|imageId)\}/.test(path) &&
      !path.startsWith('/resources/moderation/status')
    ) {
      expect(statuses).toContain('404');
    }
  });

  it('has no resource or catalog operation beyond the list above', () => {
    const ours = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([, operation]) =>
          operation.tags?.some((tag) => ['resources', 'resource-tags', 'game-versions'].includes(tag)),
        )
        .map(([method]) => `${method} ${path}`),
    );
    expect(ours.sort()).toEqual(ROUTES.map(([method, path]) => `${method} ${path}`).sort());
  });
});
