import type { Insertable, Kysely, Selectable, Transaction } from 'kysely';
import type { DB, ServerModerationEventsTable } from '../../../core/db/schema.js';

type Executor = Kysely<DB> | Transaction<DB>;
export type ModerationEventRow = Selectable<ServerModerationEventsTable>;

export interface ModerationEventWithModeratorRow extends ModerationEventRow {
  moderator_username: string | null;
}

export async function insertModerationEvent(
  db: Executor,
  row: Insertable<ServerModerationEventsTable>,
): Promise<void> {
  await db.insertInto('server_moderation_events').values(row).execute();
}

/** The history of one server, oldest first, with each moderator's username. */
export function listModerationEvents(
  db: Executor,
  serverId: string,
): Promise<ModerationEventWithModeratorRow[]> {
  return db
    .selectFrom('server_moderation_events')
    .leftJoin('users', 'users.id', 'server_moderation_events.moderator_id')
    .selectAll('server_moderation_events')
    .select('users.username as moderator_username')
    .where('server_moderation_events.server_id', '=', serverId)
    .orderBy('server_moderation_events.created_at')
    .orderBy('server_moderation_events.id')
    .execute();
}
