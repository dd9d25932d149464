// Reports as their reporters see them (DESIGN §8 "Reports"): filing one about a user or a resource, listing
// and reading your own, cancelling a PENDING one. Moderation lives in ./moderation.
import type { Kysely } from 'kysely';
import type { Actor } from '../../core/auth/authenticate.js';
import { authorizeReportCancel, authorizeReportView } from '../../core/auth/report-access.js';
import { resourceGrants } from '../../core/auth/resource-access.js';
import type { ResourceAccess } from '../../core/auth/resource-access.js';
import type { Clock } from '../../core/clock.js';
import { isUniqueViolation } from '../../core/db/dialect.js';
import type { DB } from '../../core/db/schema.js';
import { badRequest, conflict, invalidTransition, notFound } from '../../core/http/errors.js';
import { newId } from '../../core/ids.js';
import { findUserById } from '../users/users.repo.js';
import { recordReportEvent } from './report-events.js';
import { toCreatedResourceReport, toCreatedUserReport, toReport } from './reports.mapper.js';
import * as repo from './reports.repo.js';
import type { ReportRow } from './reports.repo.js';
import type { ResourceReportReason, UserReportReason } from './reports.schemas.js';
import { canCancel } from './reports.states.js';

export interface NewUserReport {
  reason: UserReportReason;
  description?: string;
  evidence?: string;
}

export interface NewResourceReport {
  reason: ResourceReportReason;
  description?: string;
}

const alreadyOpen = () =>
  conflict(
    'You already have an open report about this; wait for it to be handled or cancel it',
    'REPORT_ALREADY_OPEN',
  );

function requireDescriptionForOther(reason: string, description: string | undefined): void {
  if (reason === 'OTHER' && (description === undefined || description === '')) {
    throw badRequest('A description is required when the reason is OTHER', {
      fields: { 'body.description': 'is required when reason is OTHER' },
    });
  }
}

export type ReportsService = ReturnType<typeof createReportsService>;

export function createReportsService(deps: { db: Kysely<DB>; clock: Clock; resourceAccess: ResourceAccess }) {
  const { db, clock, resourceAccess } = deps;

  /**
   * Inserts a PENDING report and counts it. The one-open-report rule is checked first for a clear answer, and
   * enforced by the partial unique index when two identical reports race.
   */
  async function file(
    row: ReportRow,
    target: { reportedUserId: string } | { resourceId: string },
  ): Promise<ReportRow> {
    try {
      await db.transaction().execute(async (trx) => {
        if ((await repo.findOpenReport(trx, row.reporter_id, target)) !== undefined) throw alreadyOpen();
        await repo.insertReport(trx, row);
        await repo.moveStatusCounters(trx, [{ status: 'PENDING', delta: 1 }]);
        await recordReportEvent(trx, 'report.created', {
          at: row.created_at,
          actorId: row.reporter_id,
          report: row,
          data: {
            targetType: row.target_type,
            resourceId: row.resource_id,
            reportedUserId: row.reported_user_id,
            reason: row.reason,
          },
        });
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw alreadyOpen();
      throw error;
    }
    return row;
  }

  function newRow(actor: Actor, fields: Partial<ReportRow> & Pick<ReportRow, 'target_type' | 'reason'>) {
    const now = clock.now().toISOString();
    return {
      id: newId(),
      reporter_id: actor.userId,
      reported_user_id: null,
      resource_id: null,
      resource_type: null,
      description: null,
      evidence: null,
      status: 'PENDING',
      resolution: null,
      moderator_notes: null,
      user_action: null,
      suspension_days: null,
      moderated_by: null,
      moderated_at: null,
      created_at: now,
      updated_at: now,
      ...fields,
    } satisfies ReportRow;
  }

  async function requireVisible(actor: Actor, reportId: string): Promise<ReportRow> {
    const row = await repo.findReport(db, reportId);
    if (row === undefined) throw notFound('Report');
    authorizeReportView(actor, { reporterId: row.reporter_id, reportedUserId: row.reported_user_id });
    return row;
  }

  return {
    /** Banned accounts have no profile, so they cannot be reported either (404). */
    async reportUser(actor: Actor, userId: string, input: NewUserReport) {
      if (userId === actor.userId) throw badRequest('You cannot report yourself', undefined, 'SELF_REPORT');
      requireDescriptionForOther(input.reason, input.description);
      const target = await findUserById(db, userId);
      if (target === undefined || target.status === 'BANNED') throw notFound('User');
      const row = newRow(actor, {
        target_type: 'USER',
        reported_user_id: userId,
        reason: input.reason,
        description: input.description ?? null,
        evidence: input.evidence ?? null,
      });
      return toCreatedUserReport(await file(row, { reportedUserId: userId }));
    },

    /**
     * A resource the caller may not see is 404, like a missing one. Its owner (the user owner, or the owning
     * team's OWNER or ADMIN) cannot report it (400). The report keeps the resource's type at this moment.
     */
    async reportResource(actor: Actor, resourceId: string, input: NewResourceReport) {
      requireDescriptionForOther(input.reason, input.description);
      const resource = await repo.findReportedResource(db, resourceId);
      if (resource === undefined) throw notFound('Resource');
      const facts = await resourceAccess.facts(actor, resource);
      if (!resourceGrants(facts, 'resource.view')) throw notFound('Resource');
      if (facts.ownerRights === 'owner') {
        throw badRequest('You cannot report your own resource', undefined, 'SELF_REPORT');
      }
      const row = newRow(actor, {
        target_type: 'RESOURCE',
        resource_id: resource.id,
        resource_type: resource.type,
        reason: input.reason,
        description: input.description ?? null,
      });
      return toCreatedResourceReport(await file(row, { resourceId }));
    },

    async listMine(actor: Actor, limit: number, offset: number) {
      const [rows, total] = await Promise.all([
        repo.listReportsOfReporter(db, actor.userId, limit, offset),
        repo.countReportsOfReporter(db, actor.userId),
      ]);
      return { reports: rows.map(toReport), total };
    },

    async get(actor: Actor, reportId: string) {
      return toReport(await requireVisible(actor, reportId));
    },

    /**
     * The reporter withdraws a PENDING report: the row goes (its history is empty at that point). No event:
     * report.updated tells moderator actions only.
     */
    async cancel(actor: Actor, reportId: string): Promise<void> {
      const report = await repo.findReport(db, reportId);
      if (report === undefined) throw notFound('Report');
      authorizeReportCancel(actor, {
        reporterId: report.reporter_id,
        reportedUserId: report.reported_user_id,
      });
      const notCancellable = (status: string) =>
        invalidTransition(`Only a PENDING report can be cancelled; this one is ${status}`);
      if (!canCancel(report.status)) throw notCancellable(report.status);
      await db.transaction().execute(async (trx) => {
        if (!(await repo.deletePendingReport(trx, reportId))) {
          const current = await repo.findReport(trx, reportId);
          if (current === undefined) throw notFound('Report');
          throw notCancellable(current.status);
        }
        await repo.moveStatusCounters(trx, [{ status: 'PENDING', delta: -1 }]);
      });
    },
  };
}
