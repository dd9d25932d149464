// The reports module's entries in the event log (spec/extensions.md §1.1). A report's events belong to its
// reporter alone (and moderators): they are placed under the reporter, never under the reported user or
// resource, whose side must not learn of the report.
import type { Transaction } from 'kysely';
import type { DB } from '../../core/db/schema.js';
import { recordEvent } from '../../core/events/record.js';
import type { ReportRow } from './reports.repo.js';

export async function recordReportEvent(
  trx: Transaction<DB>,
  type: 'report.created' | 'report.updated',
  change: {
    at: string;
    actorId: string;
    report: Pick<ReportRow, 'id' | 'reporter_id'>;
    data: Record<string, unknown>;
  },
): Promise<void> {
  await recordEvent(trx, {
    type,
    at: change.at,
    actorId: change.actorId,
    subjectId: change.report.id,
    data: change.data,
    placement: { userId: change.report.reporter_id, subjectPublic: false },
    audienceUserId: change.report.reporter_id,
  });
}
