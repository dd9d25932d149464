import { byTeamRoleDescending } from '../../../core/auth/access.js';
import type { MediaUrls } from '../../../core/media-urls.js';
import type { MemberWithUserRow } from './members.repo.js';

export const toTeamMember = (row: MemberWithUserRow, urls: MediaUrls) => ({
  userId: row.user_id,
  role: row.role,
  teamId: row.team_id,
  user: {
    id: row.user_id,
    username: row.username,
    displayName: row.display_name,
    image: urls.avatar(row.image_key),
  },
  joinedAt: row.created_at,
});

export type TeamMemberView = ReturnType<typeof toTeamMember>;

/** OWNER first, then by role rank; within a rank the order the rows came in (oldest membership first). */
export const toTeamMembers = (rows: readonly MemberWithUserRow[], urls: MediaUrls): TeamMemberView[] =>
  [...rows].sort((a, b) => byTeamRoleDescending(a.role, b.role)).map((row) => toTeamMember(row, urls));
