import type { ModerationEventWithModeratorRow } from './moderation.repo.js';

export const toModerationEvent = (row: ModerationEventWithModeratorRow) => ({
  id: row.id,
  action: row.action,
  fromStatus: row.from_status,
  toStatus: row.to_status,
  reason: row.reason,
  notes: row.notes,
  moderator:
    row.moderator_id === null ? null : { id: row.moderator_id, username: row.moderator_username ?? '' },
  createdAt: row.created_at,
});
