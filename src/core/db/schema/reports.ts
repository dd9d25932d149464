// Reports and badges.
// Row types as Kysely sees them; ../schema.ts gathers them into DB.
import type { ResourceType } from './resources.js';
import type { Generated } from 'kysely';

export type ReportTargetType = 'USER' | 'RESOURCE';
export type ReportStatus = 'PENDING' | 'UNDER_REVIEW' | 'RESOLVED' | 'DISMISSED';
export type ReportModerationAction = 'TAKE_UNDER_REVIEW' | 'RESOLVE' | 'DISMISS';
export type ReportUserAction = 'WARNING' | 'SUSPENSION' | 'BAN' | 'NONE';

export interface ReportsTable {
  id: string;
  reporter_id: string;
  target_type: ReportTargetType;
  /** Set for USER reports. */
  reported_user_id: string | null;
  /** Set for RESOURCE reports; no foreign key, the report outlives the resource. */
  resource_id: string | null;
  /** The resource's type when it was reported. */
  resource_type: ResourceType | null;
  reason: string;
  description: string | null;
  evidence: string | null;
  status: ReportStatus;
  resolution: string | null;
  moderator_notes: string | null;
  user_action: ReportUserAction | null;
  suspension_days: number | null;
  moderated_by: string | null;
  moderated_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface ReportEventsTable {
  id: string;
  report_id: string;
  action: ReportModerationAction;
  from_status: ReportStatus;
  to_status: ReportStatus;
  note: string | null;
  user_action: ReportUserAction | null;
  moderator_id: string | null;
  created_at: string;
}

export interface BadgesTable {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  icon_url: string | null;
  color: string | null;
  is_active: boolean;
  /** Rows in user_badges for the badge; moved in the same transaction as an award or a revocation. */
  awarded_count: Generated<number>;
  created_at: string;
  updated_at: string;
}

export interface UserBadgesTable {
  id: string;
  user_id: string;
  badge_id: string;
  awarded_by: string | null;
  reason: string | null;
  awarded_at: string;
}
