// The URL map: every module, its services and its routes, registered in one place.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app.js';
import { createAccess } from '../core/auth/access.js';
import { createMediaUrls } from '../core/media-urls.js';
import { adminUsersRoutes } from './admin/admin-users.routes.js';
import { createAdminUsersService } from './admin/admin-users.service.js';
import { apiKeysRoutes } from './api-keys/api-keys.routes.js';
import { createApiKeysService } from './api-keys/api-keys.service.js';
import { createDescriptionImagesService } from './description-images/description-images.service.js';
import { deleteExpiredSessions } from './auth/auth.repo.js';
import { authRoutes } from './auth/auth.routes.js';
import { createAuthService } from './auth/auth.service.js';
import { registerSocialLinkRoutes } from './social-links/social-links.routes.js';
import { USER_PLATFORMS } from './social-links/social-links.schemas.js';
import { createSocialLinksService } from './social-links/social-links.service.js';
import { systemRoutes } from './system/system.routes.js';
import { teamInvitationsRoutes } from './teams/invitations/invitations.routes.js';
import { createInvitationsService } from './teams/invitations/invitations.service.js';
import { teamMembersRoutes } from './teams/members/members.routes.js';
import { createMembersService } from './teams/members/members.service.js';
import { teamSocialLinksRoutes } from './teams/team-social-links.routes.js';
import { teamsRoutes } from './teams/teams.routes.js';
import { createTeamsService } from './teams/teams.service.js';
import { noBadges } from './users/badge-reader.js';
import { followsRoutes } from './users/follows/follows.routes.js';
import { createFollowsService } from './users/follows/follows.service.js';
import { liftExpiredSuspensions } from './users/users.repo.js';
import { usersRoutes } from './users/users.routes.js';
import { createUsersService } from './users/users.service.js';
import { requireActor } from '../core/auth/authenticate.js';

export async function registerModules(app: FastifyInstance, context: AppContext): Promise<void> {
  const { database, storage, clock, scheduler } = context;
  const { db, dialect } = database;
  const urls = createMediaUrls(storage);
  const badges = noBadges;
  const access = createAccess({ db });

  const users = createUsersService({ db, dialect, storage, urls, clock, badges });
  const socialLinks = createSocialLinksService({ db, dialect, clock });
  const descriptionImages = createDescriptionImagesService({ db, dialect, storage, clock, urls });

  await app.register(systemRoutes, context);
  await app.register(authRoutes, { auth: createAuthService({ db, clock }), users });
  await app.register(apiKeysRoutes, { apiKeys: createApiKeysService({ db, dialect, clock }) });
  await app.register(usersRoutes, { users });
  await app.register(followsRoutes, { follows: createFollowsService({ db, clock, urls }) });
  await app.register(async (scope) => {
    const ownProfile = async (request: Parameters<typeof requireActor>[0]) => requireActor(request).userId;
    await registerSocialLinkRoutes(scope, {
      path: '/users/me/social-links',
      ownerType: 'USER',
      platforms: USER_PLATFORMS,
      tag: 'users',
      name: 'ProfileSocialLink',
      service: socialLinks,
      readOwner: ownProfile,
      writeOwner: ownProfile,
      readIsPublic: false,
    });
  });
  const teams = createTeamsService({ db, dialect, storage, urls, clock, access });
  await app.register(teamsRoutes, { teams });
  await app.register(teamInvitationsRoutes, {
    invitations: createInvitationsService({ db, clock, urls, access, teams }),
  });
  await app.register(teamMembersRoutes, {
    members: createMembersService({ db, clock, urls, access, teams }),
  });
  await app.register(teamSocialLinksRoutes, { teams, socialLinks });
  await app.register(adminUsersRoutes, {
    adminUsers: createAdminUsersService({ db, dialect, clock, urls, badges }),
  });

  scheduler.register({
    name: 'purge-temporary-description-images',
    intervalMs: 60 * 60 * 1000,
    run: async () => void (await descriptionImages.purgeStale()),
  });
  scheduler.register({
    // Suspended accounts can write again as soon as suspendedUntil passes (authentication checks the time);
    // this makes their status say so too, within a minute.
    name: 'lift-expired-suspensions',
    intervalMs: 60 * 1000,
    run: async () => void (await liftExpiredSuspensions(db, clock.now().toISOString())),
  });
  scheduler.register({
    name: 'purge-expired-sessions',
    intervalMs: 60 * 60 * 1000,
    run: async () => void (await deleteExpiredSessions(db, clock.now().toISOString())),
  });
}
