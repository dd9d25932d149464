// The file object's `scan` (spec/extensions.md §2.4). Owned by the scanning work.
import { Type } from 'typebox';
import { Nullable, StringEnum, named } from '../../../core/http/schemas.js';

export const SCAN_STATUSES = ['NOT_SCANNED', 'PENDING', 'CLEAN', 'INFECTED', 'ERROR'] as const;

/**
 * Why a scan is in ERROR. TOO_LARGE: the file is larger than clamd's stream limit (StreamMaxLength) and is not
 * retried; SCANNER_UNAVAILABLE: clamd could not be reached or went quiet; SCAN_FAILED: clamd answered with an error
 * or the stored file could not be read. The last two are retried with backoff.
 */
export const SCAN_ERROR_REASONS = ['TOO_LARGE', 'SCANNER_UNAVAILABLE', 'SCAN_FAILED'] as const;
export type ScanErrorReason = (typeof SCAN_ERROR_REASONS)[number];

export const FileScan = named(
  'FileScan',
  Type.Object({
    status: StringEnum(SCAN_STATUSES, {
      description:
        'NOT_SCANNED when scanning is not configured (CLAMAV_URL); PENDING until clamd answered; INFECTED files ' +
        'are never served and block submit and approval; ERROR is retried with backoff unless `reason` is TOO_LARGE',
    }),
    signature: Nullable(Type.String({ description: 'The signature clamd matched (INFECTED only)' })),
    reason: Nullable(
      StringEnum(SCAN_ERROR_REASONS, {
        description:
          'ERROR only. TOO_LARGE: larger than the scanner accepts, not retried; SCANNER_UNAVAILABLE and ' +
          'SCAN_FAILED: retried with backoff',
      }),
    ),
    scannedAt: Nullable(
      Type.String({
        format: 'date-time',
        description: 'When clamd last answered for this file (for ERROR: the last attempt)',
      }),
    ),
  }),
);
