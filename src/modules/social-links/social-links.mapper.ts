import type { SocialLinkRow } from './social-links.repo.js';

export interface SocialLinkView {
  id: string;
  platform: string;
  url: string;
  order: number;
}

export const toSocialLink = (
  row: Pick<SocialLinkRow, 'id' | 'platform' | 'url' | 'position'>,
): SocialLinkView => ({
  id: row.id,
  platform: row.platform,
  url: row.url,
  order: row.position,
});
