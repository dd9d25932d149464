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
import { createServerAccess } from '../core/auth/server-access.js';
import { serverCategoriesRoutes } from './servers/catalogs/categories.routes.js';
import { createServerCatalogsService } from './servers/catalogs/catalogs.service.js';
import { serverTagsRoutes } from './servers/catalogs/tags.routes.js';
import { serverModerationRoutes } from './servers/moderation/moderation.routes.js';
import { createServerModerationService } from './servers/moderation/moderation.service.js';
import { createDirectoryCache } from '../core/http/page-cache.js';
import { createObjectCache } from '../core/http/object-cache.js';
import { serverDescriptionImagesRoutes } from './servers/server-description-images.routes.js';
import { serverImagesRoutes } from './servers/server-images.routes.js';
import { serverListsRoutes } from './servers/server-lists.routes.js';
import { createServerListsService } from './servers/server-lists.service.js';
import { serverSocialLinksRoutes } from './servers/server-social-links.routes.js';
import { serversRoutes } from './servers/servers.routes.js';
import { createServersService } from './servers/servers.service.js';
import { serverStatusRoutes } from './servers/status/status.routes.js';
import { createServerStatusService } from './servers/status/status.service.js';
import { createServerTransfer } from './servers/transfer-server-ownership.js';
import { badgeAwardsRoutes } from './badges/awards/awards.routes.js';
import { createBadgeAwardsService } from './badges/awards/awards.service.js';
import { createBadgeReader } from './badges/badge-reader.js';
import { badgesRoutes } from './badges/badges.routes.js';
import { createBadgesService } from './badges/badges.service.js';
import { createReportAccess } from '../core/auth/report-access.js';
import { createResourceAccess } from '../core/auth/resource-access.js';
import { reportModerationRoutes } from './reports/moderation/moderation.routes.js';
import { createReportModerationService } from './reports/moderation/moderation.service.js';
import { reportsRoutes } from './reports/reports.routes.js';
import { createReportsService } from './reports/reports.service.js';
import { followsRoutes } from './users/follows/follows.routes.js';
import { createFollowsService } from './users/follows/follows.service.js';
import { liftExpiredSuspensions } from './users/users.repo.js';
import { usersRoutes } from './users/users.routes.js';
import { createUsersService } from './users/users.service.js';
import { requireActor } from '../core/auth/authenticate.js';
import { gameVersionsRoutes } from './catalogs/game-versions.routes.js';
import { createGameVersionsService } from './catalogs/game-versions.service.js';
import { resourceCategoriesRoutes } from './catalogs/resource-categories.routes.js';
import { createResourceCategoriesService } from './catalogs/resource-categories.service.js';
import { resourceTagsRoutes } from './catalogs/resource-tags.routes.js';
import { createResourceTagsService } from './catalogs/resource-tags.service.js';
import { resourceContributorsRoutes } from './resources/contributors/contributors.routes.js';
import { createContributorsService } from './resources/contributors/contributors.service.js';
import { createResourceDeletion } from './resources/delete-resource.js';
import { resourceExternalLinksRoutes } from './resources/external-links/external-links.routes.js';
import { createExternalLinksService } from './resources/external-links/external-links.service.js';
import { resourceModerationRoutes } from './resources/moderation/moderation.routes.js';
import { createModerationService } from './resources/moderation/moderation.service.js';
import { resourceDescriptionImagesRoutes } from './resources/resource-description-images.routes.js';
import { resourceListsRoutes } from './resources/resource-lists.routes.js';
import { createResourceListsService } from './resources/resource-lists.service.js';
import { resourcesRoutes } from './resources/resources.routes.js';
import { createResourcesService } from './resources/resources.service.js';
import { readCatalogueVersion } from './resources/resources.repo.js';
import { resourceSocialRoutes } from './resources/social/social.routes.js';
import { createSocialService } from './resources/social/social.service.js';
import { createVersionAccess } from '../core/auth/version-access.js';
import { sweepStorage } from '../core/storage/sweep.js';
import { galleriesRoutes } from './galleries/galleries.routes.js';
import { feedsRoutes } from './feeds/feeds.routes.js';
import { createFeedsService } from './feeds/feeds.service.js';
import { createGalleriesService } from './galleries/galleries.service.js';
import { downloadsRoutes } from './versions/downloads/downloads.routes.js';
import { createDownloadsService } from './versions/downloads/downloads.service.js';
import { versionActionsRoutes } from './versions/moderation/version-actions.routes.js';
import { createVersionActionsService } from './versions/moderation/version-actions.service.js';
import { versionFilesRoutes } from './versions/version-files/version-files.routes.js';
import { createVersionFilesService } from './versions/version-files/version-files.service.js';
import { versionsRoutes } from './versions/versions.routes.js';
import { createVersionsService } from './versions/versions.service.js';
import { registerEvents } from './events/register.js';
import { registerWebhooks } from './webhooks/register.js';
import { registerServerKeys } from './servers/keys/register.js';
import { registerServerHistory } from './servers/history/register.js';
import { registerServerVotes } from './servers/votes/register.js';
import { registerServerRank } from './servers/rank/register.js';
import { registerModerationQueue } from './moderation/queue/register.js';
import { registerModerationThreads } from './moderation/threads/register.js';
import { registerAudit } from './audit/register.js';
import { registerFileLookups } from './versions/lookup/register.js';
import { registerDependencies } from './versions/dependencies/register.js';
import { registerInspection } from './versions/inspection/register.js';
import { registerScanning } from './versions/scanning/register.js';
import { registerSearchUpkeep } from './search/register.js';
import type { SharedServices } from './shared-services.js';

export async function registerModules(app: FastifyInstance, context: AppContext): Promise<void> {
  const { database, storage, clock, scheduler } = context;
  const { db, dialect } = database;
  const urls = createMediaUrls(storage);
  const badges = createBadgeReader({ db, dialect });
  const access = createAccess({ db });

  const users = createUsersService({ db, dialect, storage, urls, clock, badges });
  const socialLinks = createSocialLinksService({ db, dialect, clock });
  const descriptionImages = createDescriptionImagesService({ db, dialect, storage, clock, urls });

  await app.register(systemRoutes, context);
  await app.register(authRoutes, { auth: createAuthService({ db, clock }), users });
  await app.register(apiKeysRoutes, { apiKeys: createApiKeysService({ db, dialect, clock }) });
  // Anonymous single-object reads (profiles, resources, servers) kept until the database changes.
  const objects = createObjectCache({ changes: database.changes });
  await app.register(usersRoutes, { users, objects });
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

  // Resources (DESIGN §8): the catalogue and its moderation, external links, contributors, likes and favorites,
  // description images, and the resource tag, category and game-version catalogs. Modules that keep rows or
  // objects under a resource (versions, files, galleries) register a cleanup with resourceDeletion.
  const resourceAccess = createResourceAccess({ db, access });
  const resources = createResourcesService({
    db,
    dialect,
    storage,
    urls,
    clock,
    resourceAccess,
    descriptionImages,
  });
  const resourceDeletion = createResourceDeletion({
    db,
    dialect,
    storage,
    resourceAccess,
    clock,
    log: (message, error) => app.log.warn({ err: error }, message),
  });
  resourceDeletion.registerCleanup({
    name: 'description-images',
    collect: (trx, resource) => descriptionImages.deleteRowsOf(trx, 'RESOURCE', resource.id),
    removeObjects: (keys) => descriptionImages.deleteObjects(keys),
  });
  const resourceLists = createResourceListsService({
    db,
    dialect,
    urls,
    resourceAccess,
    log: (message) => app.log.warn(message),
    workMemMb: context.config.databaseWorkMemMb,
  });
  const resourceParts = { db, dialect, clock, urls, resourceAccess, resources };
  await app.register(resourcesRoutes, { resources, deletion: resourceDeletion, objects });
  // The rendered pages of GET /resources, filed under the catalogue version (resources.repo.ts).
  const resourceCatalogue = createDirectoryCache({
    clock,
    readVersion: () => readCatalogueVersion(db, dialect),
    changes: database.changes,
  });
  await app.register(resourceListsRoutes, { lists: resourceLists, cache: resourceCatalogue });
  await app.register(resourceModerationRoutes, {
    moderation: createModerationService({ db, dialect, clock, resources }),
    lists: resourceLists,
  });
  await app.register(resourceExternalLinksRoutes, {
    externalLinks: createExternalLinksService(resourceParts),
  });
  await app.register(resourceContributorsRoutes, { contributors: createContributorsService(resourceParts) });
  await app.register(resourceSocialRoutes, { social: createSocialService(resourceParts) });
  await app.register(resourceDescriptionImagesRoutes, { resources, resourceAccess, descriptionImages });
  await app.register(resourceCategoriesRoutes, {
    categories: createResourceCategoriesService({ db, dialect, clock }),
  });
  await app.register(resourceTagsRoutes, { resourceTags: createResourceTagsService({ db, dialect, clock }) });
  await app.register(gameVersionsRoutes, { gameVersions: createGameVersionsService({ db, dialect, clock }) });

  // Versions, their files and downloads (DESIGN §8 "Versions", "Downloads"), and resource galleries. Their rows
  // go with a deleted resource by cascade; the cleanups hand the stored objects to the deletion.
  const versionAccess = createVersionAccess({ resourceAccess });
  const objectLog = (message: string, error: unknown) => app.log.warn({ err: error }, message);
  const versions = createVersionsService({
    db,
    dialect,
    storage,
    clock,
    versionAccess,
    resources,
    log: objectLog,
  });
  const galleries = createGalleriesService({
    db,
    dialect,
    storage,
    clock,
    urls,
    resourceAccess,
    resources,
    log: objectLog,
  });
  resourceDeletion.registerCleanup({
    name: 'version-files',
    collect: (trx, resource) => versions.collectForResourceDeletion(trx, resource.id),
    removeObjects: (keys) => versions.removeObjects(keys),
  });
  resourceDeletion.registerCleanup({
    name: 'gallery-images',
    collect: (trx, resource) => galleries.collectForResourceDeletion(trx, resource.id),
    removeObjects: (keys) => galleries.removeObjects(keys),
  });
  await app.register(versionsRoutes, { versions });
  await app.register(versionActionsRoutes, {
    actions: createVersionActionsService({ db, dialect, clock, versionAccess, versions }),
  });
  await app.register(versionFilesRoutes, {
    files: createVersionFilesService({
      db,
      dialect,
      storage,
      clock,
      maxFileBytes: context.config.maxFileBytes,
      versions,
      scanOnUpload: context.config.clamav !== undefined,
    }),
    maxFileBytes: context.config.maxFileBytes,
  });
  await app.register(downloadsRoutes, {
    downloads: createDownloadsService({
      db,
      dialect,
      storage,
      clock,
      versionAccess,
      versions,
      changes: database.changes,
    }),
  });
  await app.register(galleriesRoutes, { galleries });
  await app.register(feedsRoutes, {
    feeds: createFeedsService({ db, dialect, clock, publicUrl: context.config.publicUrl }),
  });

  // Reports and their moderation (DESIGN §8 "Reports"); badges and awards (DESIGN §8 "Badges").
  await app.register(reportsRoutes, {
    reports: createReportsService({ db, clock, resourceAccess }),
  });
  await app.register(reportModerationRoutes, {
    moderation: createReportModerationService({
      db,
      clock,
      urls,
      reportAccess: createReportAccess({ access }),
    }),
  });
  await app.register(badgesRoutes, { badges: createBadgesService({ db, clock }) });
  await app.register(badgeAwardsRoutes, { awards: createBadgeAwardsService({ db, dialect, clock }) });

  // Servers (DESIGN §8 "Servers"): the directory, moderation, status and ranks, social links, description
  // images, and the server tag and category catalogs.
  const serverAccess = createServerAccess({ db, access });
  const servers = createServersService({
    db,
    dialect,
    storage,
    urls,
    clock,
    access,
    serverAccess,
    descriptionImages,
  });
  const serverLists = createServerListsService({ db, dialect, urls, serverAccess });
  const serverStatus = createServerStatusService({ db, clock, serverAccess });
  const serverCatalogs = createServerCatalogsService({ db, dialect, clock });
  await app.register(serversRoutes, {
    servers,
    transfer: createServerTransfer({ db, dialect, clock, access, serverAccess }),
    objects,
  });
  await app.register(serverListsRoutes, {
    lists: serverLists,
    directory: createDirectoryCache({
      clock,
      readVersion: serverLists.directoryVersion,
      changes: database.changes,
    }),
  });
  await app.register(serverImagesRoutes, { servers });
  await app.register(serverStatusRoutes, { status: serverStatus });
  await app.register(serverModerationRoutes, {
    moderation: createServerModerationService({ db, dialect, clock, urls, servers }),
  });
  await app.register(serverSocialLinksRoutes, { serverAccess, socialLinks });
  await app.register(serverDescriptionImagesRoutes, { serverAccess, descriptionImages });
  await app.register(serverTagsRoutes, { catalogs: serverCatalogs });
  await app.register(serverCategoriesRoutes, { catalogs: serverCatalogs });
  // Events, webhooks and feeds (spec/extensions.md §1).
  await registerEvents(app, context);
  await registerWebhooks(app, context, { access, resourceAccess, serverAccess });

  const shared: SharedServices = {
    access,
    resourceAccess,
    serverAccess,
    versionAccess,
    urls,
    resources,
    servers,
    versions,
  };
  // The live server directory (spec/extensions.md §3): keys and heartbeats, history, votes, rank.
  await registerServerKeys(app, context, shared);
  await registerServerHistory(app, context, shared);
  await registerServerVotes(app, context, shared);
  await registerServerRank(app, context, shared);
  // Moderation in the open (spec/extensions.md §4): queue positions and statistics, threads, the audit log.
  await registerModerationQueue(app, context, shared);
  await registerModerationThreads(app, context, shared);
  await registerAudit(app, context, shared);
  // Files that launchers can trust (spec/extensions.md §2): lookups, dependencies, inspection, scanning.
  await registerFileLookups(app, context, shared);
  await registerDependencies(app, context, shared);
  await registerInspection(app, context, shared);
  await registerScanning(app, context, shared);
  // The search indexes' background upkeep (search/register.ts).
  registerSearchUpkeep(app, context);

  scheduler.register({
    name: 'mark-silent-servers-offline',
    // Every 10 s, so the directory shows a dead server offline soon after its 3 minutes (the event is dated at
    // the boundary either way); one indexed update that touches only the servers that just went silent.
    intervalMs: 10_000,
    run: () => serverStatus.sweepSilentServers(),
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
  scheduler.register({
    // Objects no row points at and unfinished uploads, older than STORAGE_SWEEP_GRACE_HOURS (crash leftovers).
    name: 'sweep-storage',
    intervalMs: 24 * 60 * 60 * 1000,
    run: async () => {
      const graceMs = context.config.storageSweepGraceMs;
      app.log.info({ sweep: await sweepStorage({ db, storage, clock, graceMs }) }, 'storage swept');
    },
  });
}
