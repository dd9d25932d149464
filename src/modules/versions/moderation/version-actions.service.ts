// Status moves of a version (interface "Resource version status", DESIGN §8 "Versions"): submit, resubmit and
// archive by the owner side; approve and reject by moderators. The machine is versions.states.ts; each move is a
// conditional update on the status read, under the resource lock, and is recorded in
// version_moderation_events.
import type { Kysely, Transaction } from 'kysely';
import type { Actor } from '../../../core/auth/authenticate.js';
import type { VersionAccess } from '../../../core/auth/version-access.js';
import type { Clock } from '../../../core/clock.js';
import type { DialectName } from '../../../core/db/database.js';
import type { DB, ResourceVersionsTable } from '../../../core/db/schema.js';
import { conflict, notFound } from '../../../core/http/errors.js';
import { newId } from '../../../core/ids.js';
import { postAutomaticMessage } from '../../moderation/threads/automatic.js';
import type { ResourceHead } from '../../resources/resources.repo.js';
import { recordAudit } from '../../audit/record.js';
import { listFiles } from '../version-files/version-files.repo.js';
import { autoApproveIfTrusted } from './auto-approval.js';
import { recordLatestChanged, recordVersionEvent } from '../version-events.js';
import type { LatestMove, VersionEventType } from '../version-events.js';
import type { VersionView } from '../versions.mapper.js';
import * as repo from '../versions.repo.js';
import type { VersionRow } from '../versions.repo.js';
import { lockHead, notInStatus } from '../versions.service.js';
import type { VersionsService } from '../versions.service.js';
import { transition } from '../versions.states.js';
import type { VersionAction } from '../versions.states.js';
import type { Updateable } from 'kysely';

type Patch = Updateable<ResourceVersionsTable>;

interface ActionPlan {
  /** Extra columns written with the new status. */
  patch?: (now: string) => Patch;
  /** Follow-up writes in the same transaction (latest version); how the latest version moved, if it did. */
  after?: (trx: Transaction<DB>, head: ResourceHead, moved: VersionRow) => Promise<LatestMove | null>;
  /** Kept in the moderation history. */
  reason?: string | null;
  /** Carried by the event (a rejection's reason). */
  eventReason?: string;
}

const EVENT_OF: Record<VersionAction, VersionEventType> = {
  submit: 'version.submitted',
  resubmit: 'version.submitted',
  approve: 'version.approved',
  reject: 'version.rejected',
  archive: 'version.archived',
};

/** Spec §2.4: a version with an INFECTED file cannot be submitted or approved. */
const blocksInfected = (action: VersionAction) =>
  action === 'submit' || action === 'resubmit' || action === 'approve';

function refuseInfected(files: Array<{ id: string; scan_status: string }>): void {
  const infected = files.filter((file) => file.scan_status === 'INFECTED').map((file) => file.id);
  if (infected.length > 0) {
    throw conflict('A file of this version is infected (malware scan)', 'FILE_INFECTED', {
      fileIds: infected,
    });
  }
}

export type VersionActionsService = ReturnType<typeof createVersionActionsService>;

export function createVersionActionsService(deps: {
  db: Kysely<DB>;
  dialect: DialectName;
  clock: Clock;
  versionAccess: VersionAccess;
  versions: Pick<VersionsService, 'requireVersion' | 'view'>;
}) {
  const { db, dialect, clock, versionAccess, versions } = deps;

  async function apply(
    actor: Actor,
    resourceId: string,
    versionId: string,
    action: VersionAction,
    plan: ActionPlan = {},
  ): Promise<VersionView> {
    const { head, version } = await versions.requireVersion(resourceId, versionId);
    if (action === 'approve' || action === 'reject') await versionAccess.authorizeModerate(actor, head);
    else await versionAccess.authorizeEdit(actor, head, version.status);

    await db.transaction().execute(async (trx) => {
      const locked = await lockHead(trx, dialect, resourceId);
      const current = await repo.findVersion(trx, resourceId, versionId);
      if (current === undefined) throw notFound('Version');
      const files = await listFiles(trx, versionId);
      const result = transition(current.status, action, { fileCount: files.length });
      if (!result.ok) {
        if (result.reason === 'NO_FILES') {
          throw conflict(`A version needs at least one file to ${action}`, 'NO_FILES');
        }
        throw notInStatus(action, current.status);
      }
      if (blocksInfected(action)) refuseInfected(files);
      const now = clock.now().toISOString();
      const moved = await repo.updateVersionIn(trx, versionId, [current.status], {
        ...plan.patch?.(now),
        status: result.to,
        updated_at: now,
      });
      if (!moved) throw notInStatus(action, current.status);
      const after: VersionRow = { ...current, status: result.to };
      const change = { at: now, actorId: actor.userId };
      await recordVersionEvent(trx, EVENT_OF[action], change, locked, after, plan.eventReason);
      const latest = (await plan.after?.(trx, locked, after)) ?? null;
      if (latest !== null) await recordLatestChanged(trx, change, locked, latest);
      await repo.insertModerationEvent(trx, {
        id: newId(),
        version_id: versionId,
        action: action.toUpperCase(),
        from_status: current.status,
        to_status: result.to,
        reason: plan.reason ?? null,
        actor_id: actor.userId,
        created_at: now,
      });
      if (action === 'approve' || action === 'reject') {
        await postAutomaticMessage(trx, {
          subjectKind: 'RESOURCE',
          subjectId: resourceId,
          versionId,
          action,
          reason: plan.reason ?? null,
          notes: null,
          moderatorId: actor.userId,
          at: now,
        });
        await recordAudit(trx, {
          actorId: actor.userId,
          action: action === 'approve' ? 'version.approved' : 'version.rejected',
          subjectKind: 'VERSION',
          subjectId: versionId,
          before: { status: current.status },
          after: { status: result.to, ...(action === 'reject' ? { reason: plan.reason ?? null } : {}) },
          at: now,
        });
      }
      // A trusted creator's clean submission is approved in this same transaction (auto-approval.ts).
      if (action === 'submit' || action === 'resubmit') {
        await autoApproveIfTrusted(trx, { submitterId: actor.userId, head: locked, version: after, at: now });
      }
    });
    return versions.view(resourceId, versionId);
  }

  return {
    submit: (actor: Actor, resourceId: string, versionId: string, submissionNote?: string) =>
      apply(actor, resourceId, versionId, 'submit', {
        patch: (now) => ({
          submission_note: submissionNote === undefined || submissionNote === '' ? null : submissionNote,
          submitted_at: now,
        }),
        reason: submissionNote ?? null,
      }),

    resubmit: (actor: Actor, resourceId: string, versionId: string) =>
      apply(actor, resourceId, versionId, 'resubmit', { patch: (now) => ({ submitted_at: now }) }),

    /** DESIGN §8: the first approved version becomes latest when the resource has none. */
    approve: (actor: Actor, resourceId: string, versionId: string) =>
      apply(actor, resourceId, versionId, 'approve', {
        patch: (now) => ({ approved_at: now, rejection_reason: null }),
        after: async (trx, head, moved) =>
          (await repo.setLatestVersionIfNone(trx, head.id, moved.id)) ? { to: moved, fromId: null } : null,
      }),

    reject: (actor: Actor, resourceId: string, versionId: string, reason: string) =>
      apply(actor, resourceId, versionId, 'reject', {
        patch: () => ({ rejection_reason: reason }),
        reason,
        eventReason: reason,
      }),

    /** DESIGN §8: APPROVED → ARCHIVED by the owner side; an archived version is no longer latest. */
    archive: (actor: Actor, resourceId: string, versionId: string) =>
      apply(actor, resourceId, versionId, 'archive', {
        after: async (trx, head, moved) =>
          (await repo.clearLatestVersionIf(trx, head.id, moved.id)) ? { to: null, from: moved } : null,
      }),
  };
}
