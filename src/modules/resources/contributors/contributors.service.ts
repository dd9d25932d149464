// Contributors of a resource: the resource owner adds them (CONTRIBUTOR or MAINTAINER); the owner side with
// owner rights or a MAINTAINER changes roles and removes them; a contributor may always leave. Permissions come
// from core/auth/resource-access.ts.
import type { Kysely } from 'kysely';
import type { Actor } from '../../../core/auth/authenticate.js';
import type { ResourceAccess } from '../../../core/auth/resource-access.js';
import type { Clock } from '../../../core/clock.js';
import type { DialectName } from '../../../core/db/database.js';
import type { DB, ResourceContributorRole } from '../../../core/db/schema.js';
import { badRequest, conflict, notFound } from '../../../core/http/errors.js';
import { newId } from '../../../core/ids.js';
import type { MediaUrls } from '../../../core/media-urls.js';
import { findUserById } from '../../users/users.repo.js';
import { lockResource } from '../resources.repo.js';
import type { ResourcesService } from '../resources.service.js';
import { toContributor } from './contributors.mapper.js';
import type { ContributorView } from './contributors.mapper.js';
import * as repo from './contributors.repo.js';

export type ContributorsService = ReturnType<typeof createContributorsService>;

export function createContributorsService(deps: {
  db: Kysely<DB>;
  dialect: DialectName;
  clock: Clock;
  urls: MediaUrls;
  resourceAccess: ResourceAccess;
  resources: Pick<ResourcesService, 'requireHead'>;
}) {
  const { db, dialect, clock, urls, resourceAccess, resources } = deps;

  async function requireContributor(resourceId: string, userId: string) {
    const row = await repo.findContributor(db, resourceId, userId);
    if (row === undefined) throw notFound('Contributor');
    return row;
  }

  return {
    async list(actor: Actor, resourceId: string): Promise<ContributorView[]> {
      await resourceAccess.authorizeView(actor, await resources.requireHead(resourceId));
      return (await repo.listContributors(db, resourceId)).map((row) => toContributor(row, urls));
    },

    async add(
      actor: Actor,
      resourceId: string,
      input: { userId: string; role: ResourceContributorRole },
    ): Promise<ContributorView> {
      const head = await resources.requireHead(resourceId);
      await resourceAccess.authorize(actor, head, 'resource.contributors.add');
      const user = await findUserById(db, input.userId);
      if (user === undefined || user.status === 'BANNED') throw notFound('User');
      if (head.owner_type === 'USER' && head.owner_id === input.userId) {
        throw badRequest('The owner of a resource cannot also be its contributor', {
          fields: { 'body.userId': 'is the owner' },
        });
      }
      const now = clock.now().toISOString();
      const inserted = await db.transaction().execute(async (trx) => {
        if (!(await lockResource(trx, dialect, resourceId))) throw notFound('Resource');
        return repo.insertContributor(trx, {
          id: newId(),
          resource_id: resourceId,
          user_id: input.userId,
          role: input.role,
          created_at: now,
          updated_at: now,
        });
      });
      if (!inserted) throw conflict('This user already is a contributor', 'ALREADY_CONTRIBUTOR');
      return toContributor(await requireContributor(resourceId, input.userId), urls);
    },

    async changeRole(actor: Actor, resourceId: string, userId: string, role: ResourceContributorRole) {
      const head = await resources.requireHead(resourceId);
      await resourceAccess.authorize(actor, head, 'resource.contributors.manage');
      await requireContributor(resourceId, userId);
      const at = clock.now().toISOString();
      if (!(await repo.updateContributorRole(db, resourceId, userId, role, at)))
        throw notFound('Contributor');
      const row = await requireContributor(resourceId, userId);
      return { id: row.id, role: row.role, updatedAt: row.updated_at };
    },

    /** Removing yourself is leaving, which every contributor may do. */
    async remove(actor: Actor, resourceId: string, userId: string): Promise<void> {
      const head = await resources.requireHead(resourceId);
      if (userId === actor.userId) await resourceAccess.authorizeView(actor, head);
      else await resourceAccess.authorize(actor, head, 'resource.contributors.manage');
      if (!(await repo.deleteContributor(db, resourceId, userId))) throw notFound('Contributor');
    },
  };
}
