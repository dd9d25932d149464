// Deleting a resource: rows in one transaction, stored objects after the commit (DESIGN §4.6).
//
// What belongs to a resource is spread over modules (description images here, versions, files and gallery
// images in the versions module). Each registers a cleanup: `collect` runs inside the delete transaction, before
// the resource row goes, deletes (or lets cascade) its rows and returns the storage keys they referenced;
// `removeObjects` gets those keys after the commit. Rows of the resource's own tables (links, contributors,
// likes, favorites, moderation history) go by ON DELETE CASCADE.
import type { Kysely, Transaction } from 'kysely';
import type { Actor } from '../../core/auth/authenticate.js';
import type { ResourceAccess } from '../../core/auth/resource-access.js';
import { systemClock } from '../../core/clock.js';
import type { Clock } from '../../core/clock.js';
import type { DialectName } from '../../core/db/database.js';
import type { DB } from '../../core/db/schema.js';
import { notFound } from '../../core/http/errors.js';
import type { Storage } from '../../core/storage/storage.js';
import { recordResourceDeleted } from './resource-events.js';
import { releaseLinks } from './resource-links.repo.js';
import * as repo from './resources.repo.js';
import type { ResourceHead } from './resources.repo.js';

export interface ResourceCleanup {
  /** For logs when removing objects fails. */
  name: string;
  collect(trx: Transaction<DB>, resource: ResourceHead): Promise<string[]>;
  removeObjects(keys: string[]): Promise<void>;
}

export type ResourceDeletion = ReturnType<typeof createResourceDeletion>;

export function createResourceDeletion(deps: {
  db: Kysely<DB>;
  dialect: DialectName;
  storage: Storage;
  resourceAccess: ResourceAccess;
  /** The time resource.deleted carries; the app passes its clock (tests move it). */
  clock?: Clock;
  log?: (message: string, error: unknown) => void;
}) {
  const { db, dialect, storage, resourceAccess } = deps;
  const clock = deps.clock ?? systemClock;
  const cleanups: ResourceCleanup[] = [];

  return {
    /** Modules that keep rows and objects under a resource register here (order of registration = run order). */
    registerCleanup(cleanup: ResourceCleanup): void {
      cleanups.push(cleanup);
    },

    /** Owner rights only (the user owner, the owning team's OWNER or ADMIN). */
    async remove(actor: Actor, id: string): Promise<void> {
      const head = await repo.findResourceHead(db, dialect, id);
      if (head === undefined) throw notFound('Resource');
      await resourceAccess.authorize(actor, head, 'resource.delete');

      const collected: Array<{ cleanup: ResourceCleanup; keys: string[] }> = [];
      const deleted = await db.transaction().execute(async (trx) => {
        // Re-read under the lock: status and images may have changed since the check.
        const current = (await repo.lockResource(trx, dialect, id))
          ? await repo.findResourceHead(trx, dialect, id)
          : undefined;
        if (current === undefined) throw notFound('Resource');
        for (const cleanup of cleanups)
          collected.push({ cleanup, keys: await cleanup.collect(trx, current) });
        await releaseLinks(trx, current);
        await repo.deleteResourceRow(trx, id);
        await repo.moveStatusCounters(trx, current.type, current.status, null);
        if (current.owner_type === 'TEAM') await repo.moveTeamResourceCount(trx, current.owner_id, -1);
        await repo.bumpCatalogueVersion(trx);
        // One event for the whole deletion: the versions and files that cascade with it record none.
        await recordResourceDeleted(trx, { at: clock.now().toISOString(), actorId: actor.userId }, current);
        return current;
      });

      // The resource is gone whatever happens next: an object that fails to delete is an orphan to log, not an
      // error for a delete that succeeded.
      const removals = [
        ...[deleted.icon_key, deleted.banner_key].flatMap((key) =>
          key === null ? [] : [storage.delete(key)],
        ),
        ...collected.map(({ cleanup, keys }) => (keys.length > 0 ? cleanup.removeObjects(keys) : undefined)),
      ];
      const results = await Promise.allSettled(removals);
      for (const result of results) {
        if (result.status === 'rejected')
          deps.log?.('Could not delete an object of a deleted resource', result.reason);
      }
    },
  };
}
