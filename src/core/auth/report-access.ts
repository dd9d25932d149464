// Who may see, cancel and decide a report (DESIGN §8 "Reports", §7 roles). The rules are pure functions
// (unit-tested); createReportAccess only adds the one fact that needs a query: whether a moderator is on the
// owner side of a reported resource.
import type { Role } from '../db/schema.js';
import { forbidden, notFound } from '../http/errors.js';
import type { Access, OwnerRef } from './access.js';
import type { Actor } from './authenticate.js';
import { hasRank } from './roles.js';

export interface ReportParties {
  reporterId: string;
  /** USER reports only. */
  reportedUserId: string | null;
}

/** The reporter and MODERATOR+ see a report; to anyone else it does not exist. */
export const canViewReport = (actor: Actor, report: ReportParties): boolean =>
  report.reporterId === actor.userId || hasRank(actor.role, 'MODERATOR');

/** 404 unless the caller may see the report. */
export function authorizeReportView(actor: Actor, report: ReportParties): void {
  if (!canViewReport(actor, report)) throw notFound('Report');
}

/** Only the reporter cancels; a moderator who can see the report gets 403, anyone else 404. */
export function authorizeReportCancel(actor: Actor, report: ReportParties): void {
  authorizeReportView(actor, report);
  if (report.reporterId !== actor.userId) throw forbidden('Only the reporter can cancel a report');
}

/**
 * Whether a moderator with `actorRole` may apply a WARNING, SUSPENSION or BAN to an account with `targetRole`:
 * the same rule as account administration — a lower rank than the moderator's, or anyone for a SUPER_ADMIN
 * (nobody acts on themselves: that is refused earlier, as a report about oneself).
 */
export const canActOnAccount = (actorRole: Role, targetRole: Role): boolean =>
  actorRole === 'SUPER_ADMIN' || !hasRank(targetRole, actorRole);

/** What a report is about, as far as conflicts of interest go. */
export type ReportSubject =
  | { kind: 'USER'; userId: string }
  /** owner is null when the resource no longer exists. */
  | { kind: 'RESOURCE'; owner: OwnerRef | null };

export type ReportAccess = ReturnType<typeof createReportAccess>;

export function createReportAccess({ access }: { access: Pick<Access, 'ownerRights'> }) {
  /** Whether the actor is the reported user, or on the owner side of the reported resource. */
  async function isSubject(actor: Actor, subject: ReportSubject): Promise<boolean> {
    if (subject.kind === 'USER') return subject.userId === actor.userId;
    if (subject.owner === null) return false;
    return (await access.ownerRights(actor.userId, subject.owner)) !== 'none';
  }

  /**
   * A moderator never decides (or deletes) a report they filed or one about themselves, their own resource or
   * their team's (403). The MODERATOR+ gate is the route's preHandler.
   */
  async function authorizeDecision(actor: Actor, reporterId: string, subject: ReportSubject): Promise<void> {
    if (reporterId === actor.userId) throw forbidden('You cannot moderate a report you filed');
    if (await isSubject(actor, subject)) throw forbidden('You cannot moderate a report about yourself');
  }

  /** 403 when the moderator's rank does not reach over the reported account. */
  function authorizeUserAction(actor: Actor, targetRole: Role): void {
    if (!canActOnAccount(actor.role, targetRole)) {
      throw forbidden('You can only act on accounts of a lower role than yours');
    }
  }

  return { isSubject, authorizeDecision, authorizeUserAction };
}
