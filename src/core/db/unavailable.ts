// Which errors mean "the database is away for now" rather than "this request is wrong" or "our code is wrong".
// They are answered 503 SERVICE_UNAVAILABLE with Retry-After: the client may simply try again in a moment.

/** Seconds a client is asked to wait before retrying a request refused because the database is away. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

// PostgreSQL SQLSTATEs: class 08 (connection exception), 57P01 admin_shutdown (pg_terminate_backend, a fast
// shutdown), 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up, recovery), 53300
// too_many_connections, 3D000 invalid_catalog_name (the database was dropped or is being recreated).
const PG_UNAVAILABLE = /^(08...|57P0[123]|53300|3D000)$/;

// Socket errors while reaching the database server.
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);

// node-postgres reports a lost or unobtainable connection with plain Errors that carry no code.
const PG_CONNECTION_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'is not queryable',
  'Client was closed',
  // 55000 for ALLOW_CONNECTIONS false (maintenance); the code alone also covers unrelated errors.
  'is not currently accepting connections',
];

function isUnavailable(error: { code?: unknown; message?: unknown }): boolean {
  const code = typeof error.code === 'string' ? error.code : undefined;
  if (code !== undefined) {
    // SQLite: another process held the write lock for longer than busy_timeout.
    if (code.startsWith('SQLITE_BUSY')) return true;
    if (PG_UNAVAILABLE.test(code) || NETWORK_CODES.has(code)) return true;
  }
  const message = typeof error.message === 'string' ? error.message : '';
  return PG_CONNECTION_MESSAGES.some((fragment) => message.includes(fragment));
}

/** True when the error, or one it wraps (through `cause`), passes the test. */
function inCauses(error: unknown, test: (error: { code?: unknown; message?: unknown }) => boolean): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    if (test(current as { code?: unknown; message?: unknown })) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** True for an error (or one it wraps, through `cause`) that means the database cannot be reached right now. */
export const isDatabaseUnavailable = (error: unknown): boolean => inCauses(error, isUnavailable);

/** Seconds a client is asked to wait before retrying a request whose transaction lost to a concurrent one. */
export const CONFLICT_RETRY_AFTER_SECONDS = 1;

// PostgreSQL SQLSTATEs 40001 serialization_failure and 40P01 deadlock_detected: the server rolled the whole
// transaction back because it collided with a concurrent one; nothing of it was written, and the same request may
// succeed at once. (A deadlock still means two code paths lock rows in different orders: it is logged as an error.)
const PG_CONFLICT = /^40(001|P01)$/;

/** True for an error (or one it wraps) that means the transaction was rolled back for a concurrent one. */
export const isTransactionConflict = (error: unknown): boolean =>
  inCauses(error, (candidate) => typeof candidate.code === 'string' && PG_CONFLICT.test(candidate.code));
