// Every machine code an error body may carry (DESIGN §6). AppError and errorBody accept only these, so the type
// checker refuses a code that is not listed here, the OpenAPI document's Error.code is this enum, and the typed
// client's `ApiError.code` is the same union.
export const ERROR_CODES = [
  // By status, when nothing more precise applies.
  'INVALID_REQUEST',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'NOT_ACCEPTABLE',
  'REQUEST_TIMEOUT',
  'CONFLICT',
  'PAYLOAD_TOO_LARGE',
  'URI_TOO_LONG',
  'UNSUPPORTED_MEDIA_TYPE',
  'RANGE_NOT_SATISFIABLE',
  'RATE_LIMITED',
  'HEADERS_TOO_LARGE',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
  'SERVER_BUSY',
  // The client went away before the answer (logged and counted; nobody reads the body).
  'CLIENT_CLOSED_REQUEST',
  // Accounts, keys and permissions.
  'INVALID_CREDENTIALS',
  'ACCOUNT_SUSPENDED',
  'ACCOUNT_BANNED',
  'ACCOUNT_ALREADY_BANNED',
  'INSUFFICIENT_SCOPE',
  'SCOPE_NOT_ALLOWED',
  'USERNAME_TAKEN',
  'EMAIL_TAKEN',
  // Objects and their states.
  'SLUG_TAKEN',
  'NAME_TAKEN',
  'VERSION_NUMBER_TAKEN',
  'INVALID_STATUS_TRANSITION',
  'LIMIT_REACHED',
  'LAST_FILE',
  'NO_FILES',
  'FILE_INFECTED',
  'UNSAFE_ARCHIVE',
  'IMAGE_IN_USE',
  'TEMPORARY_IMAGE_LIMIT',
  // Teams, contributors, badges, reports.
  'TEAM_NOT_EMPTY',
  'OWNER_MUST_TRANSFER',
  'ALREADY_OWNER',
  'ALREADY_MEMBER',
  'ALREADY_INVITED',
  'ALREADY_CONTRIBUTOR',
  'INVITATION_EXPIRED',
  'BADGE_INACTIVE',
  'BADGE_ALREADY_AWARDED',
  'REPORT_ALREADY_OPEN',
  'SELF_REPORT',
  // Servers, outbound connections, signed URLs, idempotency.
  'SERVER_NOT_APPROVED',
  'VOTE_COOLDOWN',
  'OUTBOUND_TARGET_REFUSED',
  'INVALID_SIGNATURE',
  'WEBHOOK_INACTIVE',
  'IDEMPOTENCY_KEY_REUSED',
  'IDEMPOTENCY_KEY_IN_USE',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];
