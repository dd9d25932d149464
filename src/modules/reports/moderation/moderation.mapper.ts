import type { MediaUrls } from '../../../core/media-urls.js';
import { toUserSummary } from '../../users/users.mapper.js';
import type { UserRow } from '../../users/users.repo.js';
import { toReport } from '../reports.mapper.js';
import type { ModerationRow, ReportEventRow } from './moderation.repo.js';

// Object.assign onto fresh objects: a spread followed by properties is V8's slow path on Node 20.
export const toModerationReport = (row: ModerationRow, urls: MediaUrls) =>
  Object.assign(toReport(row), {
    userAction: row.user_action,
    suspensionDays: row.suspension_days,
    reporter: {
      id: row.reporter_id,
      username: row.reporter_username,
      displayName: row.reporter_display_name,
      image: urls.avatar(row.reporter_image_key),
    },
    reportedUser:
      row.reported_user_id !== null && row.reported_username !== null
        ? {
            id: row.reported_user_id,
            username: row.reported_username,
            displayName: row.reported_display_name,
            image: urls.avatar(row.reported_image_key),
          }
        : null,
    resource: toReportedResource(row),
  });

function toReportedResource(row: ModerationRow) {
  if (row.current_resource_id === null) return null;
  return {
    id: row.current_resource_id,
    name: row.current_resource_name!,
    slug: row.current_resource_slug!,
    type: row.current_resource_type!,
    status: row.current_resource_status!,
  };
}

export const toHistoryEntry = (row: ReportEventRow) => ({
  action: row.action,
  fromStatus: row.from_status,
  toStatus: row.to_status,
  note: row.note,
  userAction: row.user_action,
  moderator:
    row.moderator_id !== null && row.moderator_username !== null
      ? { id: row.moderator_id, username: row.moderator_username }
      : null,
  createdAt: row.created_at,
});

export interface ModerationDetailParts {
  /** The reported user, or the user who owns the reported resource. */
  reportedUser: { row: UserRow; previousReports: number } | null;
  /** Owner of the reported resource (null for user reports and deleted resources). */
  resourceOwner: { type: 'USER' | 'TEAM'; id: string; name: string } | null;
  history: ReportEventRow[];
}

export function toModerationDetail(row: ModerationRow, urls: MediaUrls, parts: ModerationDetailParts) {
  const resource = toReportedResource(row);
  return Object.assign(toModerationReport(row, urls), {
    reportedUser:
      parts.reportedUser === null
        ? null
        : Object.assign(toUserSummary(parts.reportedUser.row, urls), {
            role: parts.reportedUser.row.role,
            status: parts.reportedUser.row.status,
            previousReports: parts.reportedUser.previousReports,
          }),
    resource:
      resource === null || parts.resourceOwner === null
        ? null
        : Object.assign(resource, {
            resourceTypeAtReport: row.resource_type ?? resource.type,
            owner: parts.resourceOwner,
          }),
    history: parts.history.map(toHistoryEntry),
  });
}
