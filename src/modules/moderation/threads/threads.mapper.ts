// Thread message rows → API objects.
import type { Static } from 'typebox';
import type { Role } from '../../../core/db/schema.js';
import type { ThreadMessage } from './threads.schemas.js';
import type { MessageRow } from './threads.repo.js';

export type ThreadMessageView = Static<typeof ThreadMessage>;

export function toThreadMessage(row: MessageRow): ThreadMessageView {
  return {
    id: row.id,
    author:
      row.author_id === null || row.author_username === null
        ? null
        : { id: row.author_id, username: row.author_username, role: row.author_role as Role },
    body: row.body,
    versionId: row.version_id,
    internal: Boolean(row.internal),
    automatic: Boolean(row.automatic),
    createdAt: row.created_at,
  };
}
