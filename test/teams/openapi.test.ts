// Every team route reaches the OpenAPI document with an operationId, the teams tag, a summary, and a declared
// response for its error statuses.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { loadOpenApi } from '../helpers/openapi.js';
import type { OpenApiDocument } from '../helpers/openapi.js';

// [method, path, operationId, authenticated]
const TEAM_ROUTES: Array<[string, string, string, boolean]> = [
  ['get', '/teams', 'listTeams', false],
  ['get', '/teams/me', 'listMyTeams', true],
  ['get', '/teams/slug/{slug}', 'getTeamBySlug', false],
  ['post', '/teams', 'createTeam', true],
  ['patch', '/teams/{id}', 'updateTeam', true],
  ['delete', '/teams/{id}', 'deleteTeam', true],
  ['post', '/teams/{id}/logo', 'uploadTeamLogo', true],
  ['delete', '/teams/{id}/logo', 'deleteTeamLogo', true],
  ['post', '/teams/{id}/banner', 'uploadTeamBanner', true],
  ['delete', '/teams/{id}/banner', 'deleteTeamBanner', true],
  ['post', '/teams/{id}/invitations', 'createTeamInvitation', true],
  ['get', '/teams/{id}/invitations', 'listTeamInvitations', true],
  ['delete', '/teams/{id}/invitations/{invitationId}', 'cancelTeamInvitation', true],
  ['get', '/teams/invitations/me', 'listMyTeamInvitations', true],
  ['post', '/teams/invitations/{invitationId}/respond', 'respondToTeamInvitation', true],
  ['patch', '/teams/{id}/members/{memberId}', 'updateTeamMemberRole', true],
  ['delete', '/teams/{id}/members/{memberId}', 'removeTeamMember', true],
  ['delete', '/teams/{id}/leave', 'leaveTeam', true],
  ['get', '/teams/{id}/social-links', 'listTeamSocialLinks', false],
  ['post', '/teams/{id}/social-links', 'createTeamSocialLink', true],
  ['patch', '/teams/{id}/social-links/{linkId}', 'updateTeamSocialLink', true],
  ['delete', '/teams/{id}/social-links/{linkId}', 'deleteTeamSocialLink', true],
  ['patch', '/teams/{id}/social-links/reorder', 'reorderTeamSocialLinks', true],
];

describe('OpenAPI document', () => {
  let t: TestApp;
  let document: OpenApiDocument;

  beforeAll(async () => {
    t = await buildTestApp();
    document = await loadOpenApi(t.app);
  });
  afterAll(async () => t.close());

  it('declares the teams tag', () => {
    expect(document.tags.map((tag) => tag.name)).toContain('teams');
  });

  it.each(TEAM_ROUTES)('%s %s is %s, tagged and summarized', (method, path, operationId, authenticated) => {
    const operation = document.paths[path]?.[method];
    expect(operation, `${method} ${path} missing`).toBeDefined();
    expect(operation!.operationId).toBe(operationId);
    expect(operation!.tags).toEqual(['teams']);
    expect(operation!.summary?.length).toBeGreaterThan(0);
    const statuses = Object.keys(operation!.responses ?? {});
    expect(statuses.some((status) => status.startsWith('2'))).toBe(true);
    if (authenticated) {
      expect(operation!.security).toBeDefined();
      expect(statuses).toContain('401');
    }
    if (path.includes('{id}')) {
      expect(statuses).toContain('404');
      if (authenticated) expect(statuses).toContain('403');
    }
  });

  it('has no team operation beyond the list above, and no duplicate operationId anywhere', () => {
    const teamOperations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([, operation]) => operation.tags?.includes('teams'))
        .map(([method]) => `${method} ${path}`),
    );
    expect(teamOperations.sort()).toEqual(TEAM_ROUTES.map(([method, path]) => `${method} ${path}`).sort());
    const ids = Object.values(document.paths).flatMap((methods) =>
      Object.values(methods).map((operation) => operation.operationId),
    );
    expect(new Set(ids).size).toBe(ids.length);
  });
});
