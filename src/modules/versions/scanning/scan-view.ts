// The file object's `scan` from its row (spec/extensions.md §2.4). An ERROR row keeps its reason in
// scan_signature (a file has a signature only when INFECTED and a reason only when ERROR, so one column holds
// either); the view names them apart.
import type { FileScanStatus } from '../../../core/db/schema/versions.js';
import { SCAN_ERROR_REASONS } from './scan.schemas.js';
import type { ScanErrorReason } from './scan.schemas.js';

interface ScanColumns {
  scan_status: FileScanStatus;
  scan_signature: string | null;
  scanned_at: string | null;
}

const isReason = (value: string | null): value is ScanErrorReason =>
  (SCAN_ERROR_REASONS as readonly (string | null)[]).includes(value);

export function scanOf(row: ScanColumns) {
  return {
    status: row.scan_status,
    signature: row.scan_status === 'INFECTED' ? row.scan_signature : null,
    reason: row.scan_status === 'ERROR' && isReason(row.scan_signature) ? row.scan_signature : null,
    scannedAt: row.scanned_at,
  };
}
