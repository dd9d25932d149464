// recordAudit: one audit_log row in the caller's transaction, so an entry exists if and only if its action
// committed (spec/extensions.md §4). Every moderation and admin service calls it next to its change.
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../core/db/schema.js';
import { newId } from '../../core/ids.js';
import type { AuditAction, AuditSubjectKind, CatalogAuditKind } from './actions.js';

type Executor = Kysely<DB> | Transaction<DB>;

/** A small summary: the changed fields only. */
export type AuditSummary = Record<string, unknown> | null;

export interface AuditEntry {
  /** Null for automatic actions (a trusted creator's version approved on submission). */
  actorId: string | null;
  action: AuditAction;
  subjectKind: AuditSubjectKind;
  subjectId: string;
  before: AuditSummary;
  after: AuditSummary;
  /** The action's time, from the service's clock. */
  at: string;
}

export async function recordAudit(trx: Executor, entry: AuditEntry): Promise<void> {
  await trx
    .insertInto('audit_log')
    .values({
      id: newId(),
      at: entry.at,
      actor_id: entry.actorId,
      action: entry.action,
      subject_kind: entry.subjectKind,
      subject_id: entry.subjectId,
      before: entry.before === null ? null : JSON.stringify(entry.before),
      after: entry.after === null ? null : JSON.stringify(entry.after),
    })
    .execute();
}

const camel = (column: string) =>
  column.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase());

/**
 * Only the fields a change touches, named as the API names them (camelCase): `before` keeps the old values of the
 * columns `patch` sets, `after` the new ones. Unchanged values and updated_at are left out.
 */
export function changedFields(
  current: Record<string, unknown>,
  patch: Record<string, unknown>,
): { before: Record<string, unknown>; after: Record<string, unknown> } {
  const before: Record<string, unknown> = {};
  const after: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(patch)) {
    if (value === undefined || field === 'updated_at' || current[field] === value) continue;
    before[camel(field)] = current[field] ?? null;
    after[camel(field)] = value;
  }
  return { before, after };
}

const SUBJECT_OF: Record<CatalogAuditKind, AuditSubjectKind> = {
  resource_tag: 'RESOURCE_TAG',
  resource_category: 'RESOURCE_CATEGORY',
  game_version: 'GAME_VERSION',
  server_tag: 'SERVER_TAG',
  server_category: 'SERVER_CATEGORY',
  badge: 'BADGE',
};

/** A catalog entry (or badge definition) created, updated or deleted by an admin. */
export async function recordCatalogAudit(
  trx: Executor,
  kind: CatalogAuditKind,
  change: 'created' | 'updated' | 'deleted',
  entry: { actorId: string; subjectId: string; before: AuditSummary; after: AuditSummary; at: string },
): Promise<void> {
  await recordAudit(trx, {
    ...entry,
    action: `${kind}.${change}` as AuditAction,
    subjectKind: SUBJECT_OF[kind],
  });
}
