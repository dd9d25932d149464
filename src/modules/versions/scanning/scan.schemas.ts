// The file object's `scan` (spec/extensions.md §2.4). Owned by the scanning work.
import { Type } from 'typebox';
import { Nullable, StringEnum, Timestamp, named } from '../../../core/http/schemas.js';

export const SCAN_STATUSES = ['NOT_SCANNED', 'PENDING', 'CLEAN', 'INFECTED', 'ERROR'] as const;

export const FileScan = named(
  'FileScan',
  Type.Object({
    status: StringEnum(SCAN_STATUSES, {
      description:
        'NOT_SCANNED when scanning is not configured; PENDING until clamd answered; ERROR is retried with backoff',
    }),
    signature: Nullable(Type.String({ description: 'The signature clamd matched (INFECTED only)' })),
    scannedAt: Nullable(Timestamp),
  }),
);
