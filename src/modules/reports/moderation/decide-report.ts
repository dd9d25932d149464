// PATCH /reports/moderation/:reportId: move a report through its status machine, record the step in its
// history and, on RESOLVE of a user report, apply the user action to the reported account.
import type { Kysely, Updateable } from 'kysely';
import type { Actor } from '../../../core/auth/authenticate.js';
import type { ReportAccess, ReportSubject } from '../../../core/auth/report-access.js';
import { DAY_MS } from '../../../core/clock.js';
import type { Clock } from '../../../core/clock.js';
import type { DB, ReportModerationAction, ReportsTable, ReportUserAction } from '../../../core/db/schema.js';
import { badRequest, conflict, invalidTransition, notFound } from '../../../core/http/errors.js';
import { newId } from '../../../core/ids.js';
import { DEFAULT_SUSPENSION_DAYS, applyAccountStatusIn } from '../../admin/account-status.js';
import type { AuditAction } from '../../audit/actions.js';
import { recordAudit } from '../../audit/record.js';
import type { UserRow } from '../../users/users.repo.js';
import { recordReportEvent } from '../report-events.js';
import * as reportsRepo from '../reports.repo.js';
import type { ReportRow } from '../reports.repo.js';
import { nextReportStatus } from '../reports.states.js';
import * as repo from './moderation.repo.js';

export interface Decision {
  action: ReportModerationAction;
  resolution?: string;
  moderatorNotes?: string;
  userAction?: ReportUserAction;
  suspensionDays?: number;
}

export interface DecisionIo {
  load(): Promise<ReportRow>;
  subjectOf(report: ReportRow): Promise<ReportSubject>;
  loadUser(userId: string): Promise<UserRow | undefined>;
}

const invalidField = (field: string, message: string) =>
  badRequest(`${field} ${message}`, { fields: { [`body.${field}`]: message } });

/** The body rules that need no report: which fields go with which action. */
function checkDecision(decision: Decision): void {
  if (decision.userAction !== undefined && decision.action !== 'RESOLVE') {
    throw invalidField('userAction', 'goes only with action RESOLVE');
  }
  if (decision.suspensionDays !== undefined && decision.userAction !== 'SUSPENSION') {
    throw invalidField('suspensionDays', 'goes only with userAction SUSPENSION');
  }
  if (decision.resolution !== undefined && decision.action === 'TAKE_UNDER_REVIEW') {
    throw invalidField('resolution', 'goes only with action RESOLVE or DISMISS');
  }
}

const MESSAGES: Record<ReportModerationAction, string> = {
  TAKE_UNDER_REVIEW: 'Report taken under review',
  RESOLVE: 'Report resolved',
  DISMISS: 'Report dismissed',
};

const AUDIT_ACTION: Record<ReportModerationAction, AuditAction> = {
  TAKE_UNDER_REVIEW: 'report.taken_under_review',
  RESOLVE: 'report.resolved',
  DISMISS: 'report.dismissed',
};

const USER_ACTION_MESSAGES: Record<ReportUserAction, string> = {
  WARNING: '; a warning was recorded against the account',
  SUSPENSION: '; the account is suspended',
  BAN: '; the account is banned and its keys and tokens are revoked',
  NONE: '',
};

/**
 * Checks in order: body 400 → 404 → 403 (the moderator filed the report or is its subject; the reported
 * account's rank) → 400 (userAction on a resource report) → 409 (transition; suspending a banned account).
 * The status change is a conditional update, so of two concurrent decisions one wins; only the winner applies
 * its user action, in the same transaction, with the audit entries of both (report.<decision>, and
 * user.status_changed for a suspension or ban).
 */
export async function decideReport(
  deps: { db: Kysely<DB>; clock: Clock; reportAccess: ReportAccess },
  actor: Actor,
  decision: Decision,
  io: DecisionIo,
) {
  const { db, clock, reportAccess } = deps;
  checkDecision(decision);
  const report = await io.load();
  await reportAccess.authorizeDecision(actor, report.reporter_id, await io.subjectOf(report));
  const { userAction } = decision;
  if (userAction !== undefined && report.target_type !== 'USER') {
    throw invalidField('userAction', 'applies to user reports only');
  }
  let target: UserRow | undefined;
  if (userAction !== undefined && userAction !== 'NONE') {
    target = await io.loadUser(report.reported_user_id!);
    if (target === undefined) throw notFound('User');
    reportAccess.authorizeUserAction(actor, target.role);
  }
  const next = nextReportStatus(report.status, decision.action);
  if (next === null) {
    throw invalidTransition(`${decision.action} is not allowed on a ${report.status} report`);
  }
  if (userAction === 'SUSPENSION' && target?.status === 'BANNED') {
    throw conflict('The account is already banned; resolve with BAN or NONE', 'ACCOUNT_ALREADY_BANNED');
  }

  const now = clock.now();
  const at = now.toISOString();
  const suspensionDays =
    userAction === 'SUSPENSION' ? (decision.suspensionDays ?? DEFAULT_SUSPENSION_DAYS) : null;
  const changes: Updateable<ReportsTable> = {
    status: next,
    moderated_by: actor.userId,
    moderated_at: at,
    updated_at: at,
    ...(decision.resolution !== undefined ? { resolution: decision.resolution } : {}),
    ...(decision.moderatorNotes !== undefined
      ? { moderator_notes: decision.moderatorNotes === '' ? null : decision.moderatorNotes }
      : {}),
    ...(userAction !== undefined ? { user_action: userAction, suspension_days: suspensionDays } : {}),
  };
  await db.transaction().execute(async (trx) => {
    if (!(await repo.moveReportStatus(trx, report.id, report.status, changes))) {
      const current = await reportsRepo.findReport(trx, report.id);
      if (current === undefined) throw notFound('Report');
      throw invalidTransition(`${decision.action} is not allowed on a ${current.status} report`);
    }
    await repo.insertEvent(trx, {
      id: newId(),
      report_id: report.id,
      action: decision.action,
      from_status: report.status,
      to_status: next,
      note:
        decision.moderatorNotes === undefined || decision.moderatorNotes === ''
          ? null
          : decision.moderatorNotes,
      user_action: userAction ?? null,
      moderator_id: actor.userId,
      created_at: at,
    });
    await reportsRepo.moveStatusCounters(trx, [
      { status: report.status, delta: -1 },
      { status: next, delta: 1 },
    ]);
    await recordReportEvent(trx, 'report.updated', {
      at,
      actorId: actor.userId,
      report,
      data: { fromStatus: report.status, toStatus: next },
    });
    await recordAudit(trx, {
      actorId: actor.userId,
      action: AUDIT_ACTION[decision.action],
      subjectKind: 'REPORT',
      subjectId: report.id,
      before: { status: report.status },
      after: {
        status: next,
        ...(decision.resolution !== undefined ? { resolution: decision.resolution } : {}),
        ...(userAction !== undefined ? { userAction, suspensionDays } : {}),
      },
      at,
    });
    if (target !== undefined && userAction === 'SUSPENSION') {
      const requested = now.getTime() + suspensionDays! * DAY_MS;
      // A report never shortens a suspension that already runs longer.
      const running =
        target.status === 'SUSPENDED' && target.suspended_until !== null
          ? new Date(target.suspended_until).getTime()
          : 0;
      const change = {
        status: 'SUSPENDED' as const,
        suspendedUntil: new Date(Math.max(requested, running)).toISOString(),
      };
      await applyAccountStatusIn(trx, clock, target.id, change, actor.userId);
    } else if (target !== undefined && userAction === 'BAN') {
      await applyAccountStatusIn(trx, clock, target.id, { status: 'BANNED' }, actor.userId);
    }
  });

  const updated = { ...report, ...changes } as ReportRow;
  return {
    message: MESSAGES[decision.action] + (userAction === undefined ? '' : USER_ACTION_MESSAGES[userAction]),
    report: {
      id: updated.id,
      status: updated.status,
      resolution: updated.resolution,
      moderatedBy: updated.moderated_by,
      moderatedAt: updated.moderated_at,
      userAction: updated.user_action,
    },
  };
}
