import type { Kysely } from 'kysely';
import type { DB } from '../../core/db/schema.js';
import type { EventType } from '../../core/events/catalogue.js';

export interface EventFilter {
  types?: readonly EventType[];
  resourceId?: string;
  serverId?: string;
  teamId?: string;
  userId?: string;
}

/**
 * Events after `after` and before `before` (both ids), oldest first, matching the filter. The subject filters
 * use the partial (column, id) indexes; without one the scan walks the primary key from the cursor.
 */
export function readEventsPage(
  db: Kysely<DB>,
  filter: EventFilter,
  range: { after: string | undefined; before: string | undefined },
  limit: number,
) {
  return (
    db
      .selectFrom('events')
      .selectAll()
      .where('audience', '!=', 'NONE')
      .$if(range.after !== undefined, (query) => query.where('id', '>', range.after!))
      .$if(range.before !== undefined, (query) => query.where('id', '<', range.before!))
      // An empty list (`types=` or blanks) is no filter: IN () is an error on PostgreSQL.
      .$if(filter.types !== undefined && filter.types.length > 0, (query) =>
        query.where('type', 'in', filter.types!),
      )
      .$if(filter.resourceId !== undefined, (query) => query.where('resource_id', '=', filter.resourceId!))
      .$if(filter.serverId !== undefined, (query) => query.where('server_id', '=', filter.serverId!))
      .$if(filter.teamId !== undefined, (query) => query.where('team_id', '=', filter.teamId!))
      .$if(filter.userId !== undefined, (query) => query.where('user_id', '=', filter.userId!))
      .orderBy('id')
      .limit(limit)
      .execute()
  );
}
