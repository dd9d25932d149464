// Idempotency-Key answers (issue 12 conventions).
// Row types as Kysely sees them; ../schema.ts merges the tables below into DB. Owned by the HTTP conventions work.

export interface IdempotencyKeysTable {
  /** `user:<id>` for an authenticated caller, `ip:<address>` otherwise. */
  caller: string;
  key: string;
  /** SHA-256 of method, path, query and the canonical JSON body. */
  fingerprint: string;
  /** Null while the first request is still running. */
  status_code: number | null;
  location: string | null;
  /** The answer's body, AES-256-GCM under SECRET (secret-box.ts). */
  body_sealed: string | null;
  created_at: string;
}

/** Table name → row type, merged into DB. */
export interface IdempotencyTables {
  idempotency_keys: IdempotencyKeysTable;
}
