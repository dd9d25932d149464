import type { Insertable, Kysely, Transaction } from 'kysely';
import type { DB, ResourceModerationEventsTable, ResourceStatus } from '../../../core/db/schema.js';

type Executor = Kysely<DB> | Transaction<DB>;

export async function insertEvent(
  db: Executor,
  row: Insertable<ResourceModerationEventsTable>,
): Promise<void> {
  await db.insertInto('resource_moderation_events').values(row).execute();
}

export interface ModerationEventRow {
  id: string;
  action: ResourceModerationEventsTable['action'];
  from_status: ResourceStatus;
  to_status: ResourceStatus;
  reason: string | null;
  moderator_id: string | null;
  moderator_username: string | null;
  created_at: string;
}

/** The history of one resource, oldest first, with each moderator's username. */
export function listEvents(db: Executor, resourceId: string): Promise<ModerationEventRow[]> {
  return db
    .selectFrom('resource_moderation_events as e')
    .leftJoin('users as u', 'u.id', 'e.moderator_id')
    .select([
      'e.id',
      'e.action',
      'e.from_status',
      'e.to_status',
      'e.reason',
      'e.moderator_id',
      'u.username as moderator_username',
      'e.created_at',
    ])
    .where('e.resource_id', '=', resourceId)
    .orderBy('e.created_at')
    .orderBy('e.id')
    .execute();
}
