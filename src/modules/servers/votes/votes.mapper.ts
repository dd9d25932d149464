import type { ServerVotifiersTable } from '../../../core/db/schema.js';
import type { VoteListRow } from './votes.repo.js';

/** A vote as the owner side sees it: the only view that names the voter. */
export const toVote = (row: VoteListRow) => ({
  id: row.id,
  username: row.username,
  user: { id: row.user_id, username: row.account_username },
  createdAt: row.created_at,
  delivery:
    row.delivery_status === null
      ? null
      : {
          status: row.delivery_status,
          attempts: row.delivery_attempts,
          lastError: row.delivery_last_error,
        },
});

/** Never the token. */
export const toVotifier = (row: ServerVotifiersTable) => ({
  host: row.host,
  port: row.port,
  enabled: Boolean(row.enabled),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});
