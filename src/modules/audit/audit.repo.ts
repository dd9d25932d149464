// Reads of the audit log: one page and its total under the same filter, newest first (at, then id).
import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { DB } from '../../core/db/schema.js';

export interface AuditFilter {
  actorId?: string;
  action?: string;
  subjectKind?: string;
  subjectId?: string;
  /** ISO timestamps, inclusive. */
  since?: string;
  until?: string;
}

function filtered<O>(query: SelectQueryBuilder<DB, 'audit_log', O>, filter: AuditFilter) {
  let q = query;
  if (filter.actorId !== undefined) q = q.where('audit_log.actor_id', '=', filter.actorId);
  if (filter.action !== undefined) q = q.where('audit_log.action', '=', filter.action);
  if (filter.subjectKind !== undefined) q = q.where('audit_log.subject_kind', '=', filter.subjectKind);
  if (filter.subjectId !== undefined) q = q.where('audit_log.subject_id', '=', filter.subjectId);
  if (filter.since !== undefined) q = q.where('audit_log.at', '>=', filter.since);
  if (filter.until !== undefined) q = q.where('audit_log.at', '<=', filter.until);
  return q;
}

/** The actor's current username comes with each row (one join, no query per entry). */
export async function listAudit(db: Kysely<DB>, filter: AuditFilter, limit: number, offset: number) {
  return filtered(
    db
      .selectFrom('audit_log')
      .leftJoin('users', 'users.id', 'audit_log.actor_id')
      .selectAll('audit_log')
      .select('users.username as actor_username'),
    filter,
  )
    .orderBy('audit_log.at', 'desc')
    .orderBy('audit_log.id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
}

export async function countAudit(db: Kysely<DB>, filter: AuditFilter): Promise<number> {
  const row = await filtered(
    db.selectFrom('audit_log').select((eb) => eb.fn.countAll<number>().as('total')),
    filter,
  ).executeTakeFirstOrThrow();
  return Number(row.total);
}

export type AuditRow = Awaited<ReturnType<typeof listAudit>>[number];
