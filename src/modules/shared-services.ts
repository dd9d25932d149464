// The services every domain registered after the core ones may build on: access rules, media URLs and the
// main objects' services. index.ts builds them once and hands the same set to each domain's registration.
import type { Access } from '../core/auth/access.js';
import type { ResourceAccess } from '../core/auth/resource-access.js';
import type { ServerAccess } from '../core/auth/server-access.js';
import type { VersionAccess } from '../core/auth/version-access.js';
import type { MediaUrls } from '../core/media-urls.js';
import type { ResourcesService } from './resources/resources.service.js';
import type { ServersService } from './servers/servers.service.js';
import type { VersionsService } from './versions/versions.service.js';

export interface SharedServices {
  access: Access;
  resourceAccess: ResourceAccess;
  serverAccess: ServerAccess;
  versionAccess: VersionAccess;
  urls: MediaUrls;
  resources: ResourcesService;
  servers: ServersService;
  versions: VersionsService;
}
