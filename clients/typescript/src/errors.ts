// Every non-2xx answer becomes an ApiError carrying the server's error body: `{statusCode, error, message, code,
// details?, requestId?}`.
import type { ErrorCode } from './types.js';

/** Code given to answers without the API's error body (a proxy's 502 page, an empty 500…). */
export const UNEXPECTED_RESPONSE = 'UNEXPECTED_RESPONSE';

export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    /** HTTP status. */
    readonly status: number,
    /** Stable machine code, e.g. NOT_FOUND, SLUG_TAKEN, INSUFFICIENT_SCOPE. */
    readonly code: ErrorCode,
    message: string,
    /** E.g. the invalid fields, or the scope a key lacks. */
    readonly details: Record<string, unknown> | undefined,
    /** The request id to quote when reporting a problem (body, else the x-request-id header). */
    readonly requestId: string | undefined,
  ) {
    super(message);
  }

  /** Reads the error body of a failed response (consumes it). */
  static async from(response: Response): Promise<ApiError> {
    const headerId = response.headers.get('x-request-id') ?? undefined;
    const text = await response.text().catch(() => '');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (isErrorBody(body)) {
      return new ApiError(response.status, body.code, body.message, body.details, body.requestId ?? headerId);
    }
    const summary = text.trim().slice(0, 200) || response.statusText;
    return new ApiError(
      response.status,
      UNEXPECTED_RESPONSE,
      `HTTP ${response.status}: ${summary}`,
      undefined,
      headerId,
    );
  }
}

interface ErrorBody {
  code: string;
  message: string;
  details?: Record<string, unknown>;
  requestId?: string;
}

function isErrorBody(value: unknown): value is ErrorBody {
  if (typeof value !== 'object' || value === null) return false;
  const body = value as Record<string, unknown>;
  return typeof body['code'] === 'string' && typeof body['message'] === 'string';
}
