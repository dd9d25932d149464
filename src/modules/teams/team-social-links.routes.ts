// Team social links: the shared social-links routes, mounted at /teams/:id/social-links. Reading is public;
// writing needs the team owner or an admin. An unknown team is 404 either way.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requireActor } from '../../core/auth/authenticate.js';
import { registerSocialLinkRoutes } from '../social-links/social-links.routes.js';
import { TEAM_PLATFORMS } from '../social-links/social-links.schemas.js';
import type { SocialLinksService } from '../social-links/social-links.service.js';
import type { TeamsService } from './teams.service.js';

const teamId = (request: FastifyRequest) => (request.params as { id: string }).id;

export async function teamSocialLinksRoutes(
  fastify: FastifyInstance,
  {
    teams,
    socialLinks,
  }: { teams: Pick<TeamsService, 'requireTeam' | 'requireManageable'>; socialLinks: SocialLinksService },
): Promise<void> {
  await registerSocialLinkRoutes(fastify, {
    path: '/teams/:id/social-links',
    ownerType: 'TEAM',
    platforms: TEAM_PLATFORMS,
    tag: 'teams',
    name: 'TeamSocialLink',
    service: socialLinks,
    readOwner: async (request) => (await teams.requireTeam(teamId(request))).id,
    // 401 before 404 before 403, as on every other team route.
    writeOwner: async (request) => (await teams.requireManageable(requireActor(request), teamId(request))).id,
    readIsPublic: true,
  });
}
