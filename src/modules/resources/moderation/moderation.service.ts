// Moderation of resources (DESIGN §8): the status machine in moderation.states.ts, every action appended to the
// history in the transaction that changes the status, the status counters moved with it.
import type { Kysely } from 'kysely';
import type { Actor } from '../../../core/auth/authenticate.js';
import type { Clock } from '../../../core/clock.js';
import type { DialectName } from '../../../core/db/database.js';
import type { DB } from '../../../core/db/schema.js';
import { invalidTransition } from '../../../core/http/errors.js';
import { newId } from '../../../core/ids.js';
import { recordAudit } from '../../audit/record.js';
import { postAutomaticMessage } from '../../moderation/threads/automatic.js';
import { refreshResourceSearch } from '../../search/resource-documents.js';
import { recordResourceModerated } from '../resource-events.js';
import type { ResourceView } from '../resources.mapper.js';
import { bumpCatalogueVersion, moveStatus, moveStatusCounters } from '../resources.repo.js';
import type { ResourcesService } from '../resources.service.js';
import { insertEvent, listEvents } from './moderation.repo.js';
import { acceptedStatuses, nextStatus } from './moderation.states.js';
import type { ModerationAction } from './moderation.states.js';

const RESOURCE_AUDIT_ACTION = {
  APPROVE: 'resource.approved',
  REJECT: 'resource.rejected',
  SUSPEND: 'resource.suspended',
  UNSUSPEND: 'resource.unsuspended',
} as const satisfies Record<ModerationAction, string>;

export type ModerationService = ReturnType<typeof createModerationService>;

export function createModerationService(deps: {
  db: Kysely<DB>;
  dialect: DialectName;
  clock: Clock;
  resources: Pick<ResourcesService, 'requireHead' | 'view'>;
}) {
  const { db, dialect, clock, resources } = deps;

  return {
    /** MODERATOR+ (route preHandler). Anything outside the transition table is 409 INVALID_STATUS_TRANSITION. */
    async moderate(
      actor: Actor,
      id: string,
      action: ModerationAction,
      reason: string | undefined,
    ): Promise<ResourceView> {
      const head = await resources.requireHead(id);
      const to = nextStatus(head.status, action);
      if (to === null) {
        throw invalidTransition(
          `${action} is not possible for a ${head.status} resource; it needs ${acceptedStatuses(action).join(' or ')}`,
        );
      }
      const at = clock.now().toISOString();
      const note = reason === undefined || reason === '' ? null : reason;
      await db.transaction().execute(async (trx) => {
        if (!(await moveStatus(trx, id, head.status, to, at))) {
          throw invalidTransition(
            'The status of this resource was changed by another request; reload and retry',
          );
        }
        await moveStatusCounters(trx, head.type, head.status, to);
        // Only APPROVED resources have a search document: approving writes it, the other moves remove it.
        await refreshResourceSearch(trx, dialect, [id]);
        await bumpCatalogueVersion(trx);
        await insertEvent(trx, {
          id: newId(),
          resource_id: id,
          action,
          from_status: head.status,
          to_status: to,
          reason: note,
          moderator_id: actor.userId,
          created_at: at,
        });
        await postAutomaticMessage(trx, {
          subjectKind: 'RESOURCE',
          subjectId: id,
          versionId: null,
          action,
          reason: note,
          notes: null,
          moderatorId: actor.userId,
          at,
        });
        await recordResourceModerated(
          trx,
          { at, actorId: actor.userId },
          { ...head, status: to },
          { action, fromStatus: head.status, reason: note },
        );
        await recordAudit(trx, {
          actorId: actor.userId,
          action: RESOURCE_AUDIT_ACTION[action],
          subjectKind: 'RESOURCE',
          subjectId: id,
          before: { status: head.status },
          after: { status: to, reason: note },
          at,
        });
      });
      return resources.view(id);
    },

    async history(id: string) {
      await resources.requireHead(id);
      const rows = await listEvents(db, id);
      return rows.map((row) => ({
        id: row.id,
        action: row.action,
        fromStatus: row.from_status,
        toStatus: row.to_status,
        reason: row.reason,
        moderator:
          row.moderator_id === null ? null : { id: row.moderator_id, username: row.moderator_username ?? '' },
        createdAt: row.created_at,
      }));
    },
  };
}
