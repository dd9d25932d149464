// Every failure the API reports is an AppError: an HTTP status plus a stable machine code (DESIGN §6).
import type { ErrorCode } from './error-codes.js';

export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const badRequest = (
  message: string,
  details?: Record<string, unknown>,
  code: ErrorCode = 'INVALID_REQUEST',
) => new AppError(400, code, message, details);

export const unauthorized = (message = 'Authentication required: send a valid x-api-key or bearer token') =>
  new AppError(401, 'UNAUTHORIZED', message);

export const forbidden = (message = 'You do not have permission to do this', code: ErrorCode = 'FORBIDDEN') =>
  new AppError(403, code, message);

export const notFound = (what = 'Resource') => new AppError(404, 'NOT_FOUND', `${what} not found`);

export const conflict = (message: string, code: ErrorCode = 'CONFLICT', details?: Record<string, unknown>) =>
  new AppError(409, code, message, details);

export const invalidTransition = (message: string) => new AppError(409, 'INVALID_STATUS_TRANSITION', message);

export const slugTaken = (slug: string) =>
  new AppError(409, 'SLUG_TAKEN', `The slug "${slug}" is already taken`, { slug });

export const payloadTooLarge = (message: string) => new AppError(413, 'PAYLOAD_TOO_LARGE', message);

export const unsupportedMediaType = (message: string) => new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', message);
