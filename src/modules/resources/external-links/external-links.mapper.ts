import type { ExternalLinkRow } from './external-links.repo.js';
import type { ExternalLinkType } from './external-links.schemas.js';

export const toExternalLink = (row: ExternalLinkRow) => ({
  id: row.id,
  title: row.title,
  url: row.url,
  type: row.type as ExternalLinkType,
  order: row.position,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});
export type ExternalLinkView = ReturnType<typeof toExternalLink>;
