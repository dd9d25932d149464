// The audit log (spec/extensions.md §4).
// Row types as Kysely sees them; ../schema.ts merges the tables below into DB.

/** One moderation or admin action. Append only: no route edits or deletes rows, and no foreign key cascades. */
export interface AuditLogTable {
  /** UUIDv7: time-ordered, the tie-breaker of the newest-first list. */
  id: string;
  at: string;
  /** Null for automatic actions (a trusted creator's version approved on submission). */
  actor_id: string | null;
  /** e.g. `user.role_changed`, `resource.approved`: the list is in modules/audit/actions.ts. */
  action: string;
  /** USER, RESOURCE, VERSION, SERVER, REPORT, BADGE, RESOURCE_TAG, … */
  subject_kind: string;
  subject_id: string;
  /** JSON object: the changed fields before the action; null when the subject did not exist. */
  before: string | null;
  /** JSON object: the changed fields after the action; null when the subject no longer exists. */
  after: string | null;
}

/** Table name → row type, merged into DB. */
export interface AuditTables {
  audit_log: AuditLogTable;
}
