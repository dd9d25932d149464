// The moderators' side of reports (DESIGN §8 "Reports"): the queue, the detail with history, decisions and
// permanent deletion. Deciding a report and applying its user action is in decide-report.ts.
import type { Kysely } from 'kysely';
import type { Actor } from '../../../core/auth/authenticate.js';
import type { ReportAccess, ReportSubject } from '../../../core/auth/report-access.js';
import type { Clock } from '../../../core/clock.js';
import type { DB } from '../../../core/db/schema.js';
import { notFound } from '../../../core/http/errors.js';
import type { MediaUrls } from '../../../core/media-urls.js';
import { recordAudit } from '../../audit/record.js';
import { findUserById } from '../../users/users.repo.js';
import { listDuplicateMatches } from '../../versions/duplicates/duplicate-matches.js';
import type { UserRow } from '../../users/users.repo.js';
import * as reportsRepo from '../reports.repo.js';
import type { ReportRow } from '../reports.repo.js';
import { decideReport } from './decide-report.js';
import type { Decision } from './decide-report.js';
import { toModerationDetail, toModerationReport } from './moderation.mapper.js';
import type { ModerationDetailParts } from './moderation.mapper.js';
import * as repo from './moderation.repo.js';
import type { ModerationFilter, ModerationRow } from './moderation.repo.js';

export type ReportModerationService = ReturnType<typeof createReportModerationService>;

export function createReportModerationService(deps: {
  db: Kysely<DB>;
  clock: Clock;
  urls: MediaUrls;
  reportAccess: ReportAccess;
}) {
  const { db, clock, urls, reportAccess } = deps;

  /** Who the report is about: the reported user, or the current owner of the reported resource. */
  async function subjectOf(report: ReportRow): Promise<ReportSubject> {
    if (report.target_type === 'USER') return { kind: 'USER', userId: report.reported_user_id! };
    const resource =
      report.resource_id === null
        ? undefined
        : await reportsRepo.findReportedResource(db, report.resource_id);
    return {
      kind: 'RESOURCE',
      owner: resource === undefined ? null : { ownerType: resource.owner_type, ownerId: resource.owner_id },
    };
  }

  async function requireReport(reportId: string): Promise<ReportRow> {
    const report = await reportsRepo.findReport(db, reportId);
    if (report === undefined) throw notFound('Report');
    return report;
  }

  async function reportedUserOf(row: ModerationRow, userId: string) {
    const [user, previousReports] = await Promise.all([
      findUserById(db, userId),
      repo.countReportsAgainst(db, userId, row.id),
    ]);
    return user === undefined ? null : { row: user, previousReports };
  }

  /** The reported user; for a resource report, the resource's owner (and the owner's account if a user). */
  async function parties(row: ModerationRow): Promise<Omit<ModerationDetailParts, 'history'>> {
    if (row.target_type === 'USER') {
      return { reportedUser: await reportedUserOf(row, row.reported_user_id!), resourceOwner: null };
    }
    const ownerId = row.current_resource_owner_id;
    if (ownerId === null) return { reportedUser: null, resourceOwner: null };
    if (row.current_resource_owner_type === 'USER') {
      const reportedUser = await reportedUserOf(row, ownerId);
      return {
        reportedUser,
        resourceOwner: { type: 'USER', id: ownerId, name: reportedUser?.row.username ?? ownerId },
      };
    }
    const teamName = await repo.findTeamName(db, ownerId);
    return { reportedUser: null, resourceOwner: { type: 'TEAM', id: ownerId, name: teamName ?? ownerId } };
  }

  return {
    async list(filter: ModerationFilter, limit: number, offset: number) {
      const [rows, total] = await Promise.all([
        repo.listForModeration(db, filter, limit, offset),
        reportsRepo.readStatusTotal(db, filter.status),
      ]);
      return { reports: rows.map((row) => toModerationReport(row, urls)), total };
    },

    async detail(reportId: string) {
      const row = await repo.findModerationRow(db, reportId);
      if (row === undefined) throw notFound('Report');
      // A re-upload report shows the duplicates around the reported resource (§2.4).
      const resourceId = row.reason === 'REUPLOADED_WORK' ? row.current_resource_id : null;
      const [known, history, matches] = await Promise.all([
        parties(row),
        repo.listEvents(db, row.id),
        resourceId === null ? undefined : listDuplicateMatches(db, resourceId),
      ]);
      const detail = toModerationDetail(row, urls, { ...known, history });
      return matches === undefined ? detail : Object.assign(detail, { matches });
    },

    async decide(actor: Actor, reportId: string, decision: Decision) {
      return decideReport({ db, clock, reportAccess }, actor, decision, {
        load: () => requireReport(reportId),
        subjectOf,
        loadUser: (userId: string): Promise<UserRow | undefined> => findUserById(db, userId),
      });
    },

    /** Admin or super admin (route gate); not a report they filed or one about them. History goes with it. */
    async remove(actor: Actor, reportId: string): Promise<void> {
      const report = await requireReport(reportId);
      await reportAccess.authorizeDecision(actor, report.reporter_id, await subjectOf(report));
      await db.transaction().execute(async (trx) => {
        const status = await repo.deleteReport(trx, reportId);
        if (status === undefined) throw notFound('Report');
        await reportsRepo.moveStatusCounters(trx, [{ status, delta: -1 }]);
        await recordAudit(trx, {
          actorId: actor.userId,
          action: 'report.deleted',
          subjectKind: 'REPORT',
          subjectId: reportId,
          before: { status, targetType: report.target_type },
          after: null,
          at: clock.now().toISOString(),
        });
      });
    },
  };
}
