// GET /admin/audit: the log, newest first, filtered; read only (entries are never edited or deleted).
import type { Kysely } from 'kysely';
import type { DB } from '../../core/db/schema.js';
import { badRequest } from '../../core/http/errors.js';
import { countAudit, listAudit } from './audit.repo.js';
import type { AuditFilter, AuditRow } from './audit.repo.js';
import type { AuditAction, AuditSubjectKind } from './actions.js';

const parseSummary = (text: string | null) =>
  text === null ? null : (JSON.parse(text) as Record<string, unknown>);

function toEntry(row: AuditRow) {
  return {
    id: row.id,
    at: row.at,
    actor: row.actor_id === null ? null : { id: row.actor_id, username: row.actor_username ?? null },
    action: row.action as AuditAction,
    subjectKind: row.subject_kind as AuditSubjectKind,
    subjectId: row.subject_id,
    before: parseSummary(row.before),
    after: parseSummary(row.after),
  };
}

/** Timestamps compare as canonical ISO text on SQLite: normalize what the caller wrote. */
function instant(field: 'since' | 'until', value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const time = new Date(value).getTime();
  if (Number.isNaN(time)) {
    throw badRequest(`${field} is not a valid time`, {
      fields: { [`querystring.${field}`]: 'invalid time' },
    });
  }
  return new Date(time).toISOString();
}

export type AuditService = ReturnType<typeof createAuditService>;

export function createAuditService({ db }: { db: Kysely<DB> }) {
  return {
    async list(query: AuditFilter & { limit?: number; offset?: number }) {
      const since = instant('since', query.since);
      const until = instant('until', query.until);
      if (since !== undefined && until !== undefined && since > until) {
        throw badRequest('since must not be after until', { fields: { 'querystring.since': 'after until' } });
      }
      const filter: AuditFilter = {
        ...(query.actorId !== undefined ? { actorId: query.actorId } : {}),
        ...(query.action !== undefined ? { action: query.action } : {}),
        ...(query.subjectKind !== undefined ? { subjectKind: query.subjectKind } : {}),
        ...(query.subjectId !== undefined ? { subjectId: query.subjectId } : {}),
        ...(since !== undefined ? { since } : {}),
        ...(until !== undefined ? { until } : {}),
      };
      const limit = query.limit ?? 20;
      const offset = query.offset ?? 0;
      const [rows, total] = await Promise.all([listAudit(db, filter, limit, offset), countAudit(db, filter)]);
      return { entries: rows.map(toEntry), total };
    },
  };
}
