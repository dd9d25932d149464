import type { MediaUrls } from '../../../core/media-urls.js';
import type { InvitationRow, InvitationWithTeamRow, InvitationWithUserRow } from './invitations.repo.js';

export const toInvitation = (row: InvitationRow) => ({
  id: row.id,
  teamId: row.team_id,
  userId: row.user_id,
  role: row.role,
  status: row.status,
  expiresAt: row.expires_at,
  createdAt: row.created_at,
});

/** As the team sees it: who was invited. */
export const toTeamInvitation = (row: InvitationWithUserRow, urls: MediaUrls) => ({
  id: row.id,
  user: {
    id: row.user_id,
    username: row.username,
    displayName: row.display_name,
    image: urls.avatar(row.image_key),
  },
  role: row.role,
  status: row.status,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
});

/** As the invitee sees it: which team. */
export const toMyInvitation = (row: InvitationWithTeamRow, urls: MediaUrls) => ({
  id: row.id,
  team: { id: row.team_id, name: row.team_name, slug: row.team_slug, logoUrl: urls.url(row.team_logo_key) },
  role: row.role,
  status: row.status,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
});
