import type { ReportReason } from './reports.schemas.js';
import type { ReportRow } from './reports.repo.js';

export const toReport = (row: ReportRow) => ({
  id: row.id,
  reporterId: row.reporter_id,
  targetType: row.target_type,
  reportedUserId: row.reported_user_id,
  resourceType: row.resource_type,
  resourceId: row.resource_id,
  reason: row.reason as ReportReason,
  description: row.description,
  evidence: row.evidence,
  status: row.status,
  resolution: row.resolution,
  moderatorNotes: row.moderator_notes,
  moderatedBy: row.moderated_by,
  moderatedAt: row.moderated_at,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export type ReportView = ReturnType<typeof toReport>;

export const toCreatedUserReport = (row: ReportRow) => ({
  id: row.id,
  reporterId: row.reporter_id,
  reportedUserId: row.reported_user_id!,
  reason: row.reason as ReportReason,
  status: row.status,
  createdAt: row.created_at,
});

export const toCreatedResourceReport = (row: ReportRow) => ({
  id: row.id,
  reporterId: row.reporter_id,
  resourceType: row.resource_type!,
  resourceId: row.resource_id!,
  reason: row.reason as ReportReason,
  status: row.status,
  createdAt: row.created_at,
});
