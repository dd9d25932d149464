// Teams, members and invitations.
// Row types as Kysely sees them; ../schema.ts gathers them into DB.
import type { Generated } from 'kysely';

export type TeamRole = 'MEMBER' | 'MODERATOR' | 'ADMIN' | 'OWNER';
export type TeamInvitationStatus = 'PENDING' | 'ACCEPTED' | 'DECLINED' | 'CANCELLED';

export interface TeamsTable {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  logo_key: string | null;
  banner_key: string | null;
  /** Mirrors the one team_members row with role OWNER; both change in the same transaction. */
  owner_id: string;
  member_count: Generated<number>;
  /** Moved by the resources module when a resource is created for / moved away from the team. */
  resource_count: Generated<number>;
  /** Moved by the servers module when a server is created for / moved away from the team. */
  server_count: Generated<number>;
  created_at: string;
  updated_at: string;
}

export interface TeamMembersTable {
  team_id: string;
  user_id: string;
  role: TeamRole;
  created_at: string;
}

export interface TeamInvitationsTable {
  id: string;
  team_id: string;
  user_id: string;
  invited_by: string;
  role: Exclude<TeamRole, 'OWNER'>;
  status: TeamInvitationStatus;
  expires_at: string;
  created_at: string;
  responded_at: string | null;
}
