import type { MediaUrls } from '../../core/media-urls.js';
import type { SocialLinkView } from '../social-links/social-links.mapper.js';
import type { TeamMemberView } from './members/members.mapper.js';
import type { UserTeamRow } from './members/members.repo.js';
import type { TeamRow } from './teams.repo.js';

export const toTeamListItem = (row: TeamRow, urls: MediaUrls) => ({
  id: row.id,
  name: row.name,
  slug: row.slug,
  description: row.description,
  logoUrl: urls.url(row.logo_key),
  bannerUrl: urls.url(row.banner_key),
  ownerId: row.owner_id,
  memberCount: row.member_count,
  resourceCount: row.resource_count,
  serverCount: row.server_count,
  createdAt: row.created_at,
});

export const toTeam = (
  row: TeamRow,
  urls: MediaUrls,
  members: TeamMemberView[],
  socialLinks: SocialLinkView[],
) =>
  // Object.assign onto the fresh list item: a spread followed by properties is V8's slow path on Node 20.
  Object.assign(toTeamListItem(row, urls), { updatedAt: row.updated_at, members, socialLinks });

export type TeamView = ReturnType<typeof toTeam>;

export const toMyTeam = (row: UserTeamRow, urls: MediaUrls) => ({
  id: row.id,
  name: row.name,
  slug: row.slug,
  role: row.role,
  logoUrl: urls.url(row.logo_key),
});
