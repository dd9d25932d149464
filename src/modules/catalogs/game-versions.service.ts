// Game versions (DESIGN §8): the catalog resources and versions declare compatibility with; public reads,
// admin writes. Names are unique (409 NAME_TAKEN): the resource list filters by name.
import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.js';
import type { DialectName } from '../../core/db/database.js';
import { isUniqueViolation } from '../../core/db/dialect.js';
import type { DB } from '../../core/db/schema.js';
import { conflict, notFound } from '../../core/http/errors.js';
import { newId } from '../../core/ids.js';
import { changedFields, recordCatalogAudit } from '../audit/record.js';
import { resourcesLinkedTo } from '../resources/catalog-refs.repo.js';
import { refreshDerived } from '../resources/refresh-derived.js';
import { bumpCatalogueVersion } from '../resources/resources.repo.js';
import { toGameVersion } from './catalogs.mapper.js';
import * as repo from './game-versions.repo.js';

/** Stored as the canonical ISO form, so both dialects read back the same text. */
const isoOrNull = (at: string | null | undefined) =>
  at === undefined || at === null ? null : new Date(at).toISOString();

const nameTaken = (name: string) =>
  conflict(`A game version named "${name}" already exists`, 'NAME_TAKEN', { name });

export interface GameVersionInput {
  name: string;
  releaseOrder?: number;
  releasedAt?: string | null;
}

export type GameVersionsService = ReturnType<typeof createGameVersionsService>;

export function createGameVersionsService({
  db,
  dialect,
  clock,
}: {
  db: Kysely<DB>;
  dialect: DialectName;
  clock: Clock;
}) {
  async function guardName<T>(name: string | undefined, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (name !== undefined && isUniqueViolation(error)) throw nameTaken(name);
      throw error;
    }
  }

  async function requireVersion(id: string) {
    const row = await repo.findGameVersion(db, id);
    if (row === undefined) throw notFound('Game version');
    return row;
  }

  return {
    list: async () => (await repo.listGameVersions(db)).map(toGameVersion),

    async create(actorId: string, input: GameVersionInput) {
      if (await repo.nameTaken(db, input.name)) throw nameTaken(input.name);
      const now = clock.now().toISOString();
      const row = {
        id: newId(),
        name: input.name,
        release_order: input.releaseOrder ?? (await repo.nextReleaseOrder(db)),
        released_at: isoOrNull(input.releasedAt),
        created_at: now,
        updated_at: now,
      };
      await guardName(input.name, () =>
        db.transaction().execute(async (trx) => {
          await repo.insertGameVersion(trx, row);
          await recordCatalogAudit(trx, 'game_version', 'created', {
            actorId,
            subjectId: row.id,
            before: null,
            after: { name: row.name, releaseOrder: row.release_order },
            at: now,
          });
        }),
      );
      return toGameVersion(row);
    },

    async update(actorId: string, id: string, patch: Partial<GameVersionInput>) {
      const current = await requireVersion(id);
      if (patch.name !== undefined && (await repo.nameTaken(db, patch.name, id))) throw nameTaken(patch.name);
      const changes = {
        ...(patch.name !== undefined ? { name: patch.name } : {}),
        ...(patch.releaseOrder !== undefined ? { release_order: patch.releaseOrder } : {}),
        ...(patch.releasedAt !== undefined ? { released_at: isoOrNull(patch.releasedAt) } : {}),
        updated_at: clock.now().toISOString(),
      };
      const updated = await guardName(patch.name, () =>
        db.transaction().execute(async (trx) => {
          if (!(await repo.updateGameVersion(trx, id, changes))) return false;
          await recordCatalogAudit(trx, 'game_version', 'updated', {
            actorId,
            subjectId: id,
            ...changedFields(current, changes),
            at: changes.updated_at,
          });
          // The resources show the version's name, newest first.
          await refreshDerived(trx, dialect, await resourcesLinkedTo(trx, 'gameVersion', id));
          await bumpCatalogueVersion(trx);
          return true;
        }),
      );
      if (!updated) throw notFound('Game version');
      return toGameVersion(await requireVersion(id));
    },

    /** Resources that listed it simply lose it. */
    async remove(actorId: string, id: string): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const linked = await resourcesLinkedTo(trx, 'gameVersion', id);
        const current = await repo.findGameVersion(trx, id);
        if (current === undefined || !(await repo.deleteGameVersion(trx, id))) throw notFound('Game version');
        await recordCatalogAudit(trx, 'game_version', 'deleted', {
          actorId,
          subjectId: id,
          before: { name: current.name },
          after: null,
          at: clock.now().toISOString(),
        });
        await refreshDerived(trx, dialect, linked);
        await bumpCatalogueVersion(trx);
      });
    },
  };
}
