// The audit log's vocabulary (spec/extensions.md §4): one action name per kind of moderation or admin action,
// `<subject>.<past tense>`, and the subject kinds they name. GET /admin/audit documents this list.

export const AUDIT_ACTIONS = [
  'user.role_changed',
  'user.status_changed',
  'user.trusted_changed',
  'badge.awarded',
  'badge.revoked',
  'badge.created',
  'badge.updated',
  'badge.deleted',
  'report.taken_under_review',
  'report.resolved',
  'report.dismissed',
  'report.deleted',
  'resource.approved',
  'resource.rejected',
  'resource.suspended',
  'resource.unsuspended',
  'version.approved',
  'version.rejected',
  'server.approved',
  'server.rejected',
  'server.suspended',
  'resource_tag.created',
  'resource_tag.updated',
  'resource_tag.deleted',
  'resource_category.created',
  'resource_category.updated',
  'resource_category.deleted',
  'game_version.created',
  'game_version.updated',
  'game_version.deleted',
  'server_tag.created',
  'server_tag.updated',
  'server_tag.deleted',
  'server_category.created',
  'server_category.updated',
  'server_category.deleted',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const AUDIT_SUBJECT_KINDS = [
  'USER',
  'BADGE',
  'REPORT',
  'RESOURCE',
  'VERSION',
  'SERVER',
  'RESOURCE_TAG',
  'RESOURCE_CATEGORY',
  'GAME_VERSION',
  'SERVER_TAG',
  'SERVER_CATEGORY',
] as const;
export type AuditSubjectKind = (typeof AUDIT_SUBJECT_KINDS)[number];

/** `created` / `updated` / `deleted` of one admin-managed catalog or badge definition. */
export type CatalogAuditKind =
  'resource_tag' | 'resource_category' | 'game_version' | 'server_tag' | 'server_category' | 'badge';
