// The report status machine (interface "Report status", DESIGN §8 "Reports"), as pure functions.
import type { ReportModerationAction, ReportStatus } from '../../core/db/schema.js';

export const REPORT_STATUSES = [
  'PENDING',
  'UNDER_REVIEW',
  'RESOLVED',
  'DISMISSED',
] as const satisfies readonly ReportStatus[];
export const MODERATION_ACTIONS = [
  'TAKE_UNDER_REVIEW',
  'RESOLVE',
  'DISMISS',
] as const satisfies readonly ReportModerationAction[];

/** PENDING and UNDER_REVIEW: at most one such report per reporter and target. */
export const OPEN_REPORT_STATUSES = ['PENDING', 'UNDER_REVIEW'] as const satisfies readonly ReportStatus[];

export const isOpen = (status: ReportStatus): boolean =>
  (OPEN_REPORT_STATUSES as readonly ReportStatus[]).includes(status);

/**
 * Where an action takes a report, or null when the action is not allowed from that status (409):
 * TAKE_UNDER_REVIEW only from PENDING; RESOLVE and DISMISS from PENDING or UNDER_REVIEW; nothing leaves a
 * closed (RESOLVED or DISMISSED) report.
 */
export function nextReportStatus(from: ReportStatus, action: ReportModerationAction): ReportStatus | null {
  switch (action) {
    case 'TAKE_UNDER_REVIEW':
      return from === 'PENDING' ? 'UNDER_REVIEW' : null;
    case 'RESOLVE':
      return isOpen(from) ? 'RESOLVED' : null;
    case 'DISMISS':
      return isOpen(from) ? 'DISMISSED' : null;
  }
}

/** Only the reporter's own PENDING report can be cancelled (deleted). */
export const canCancel = (status: ReportStatus): boolean => status === 'PENDING';
