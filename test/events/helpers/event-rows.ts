// Reading the `events` table straight from the database in tests, with the columns as plain values on both
// databases: created_at as an ISO string, data parsed, subject_public a boolean. And making a table vanish for a
// moment, to see that a change whose transaction fails leaves no event behind.
import { sql } from 'kysely';
import { expect } from 'vitest';
import type { App } from '../../../src/app.js';
import type { DB, EventsTable } from '../../../src/core/db/schema.js';

export type EventRow = Omit<EventsTable, 'data' | 'subject_public'> & {
  data: Record<string, unknown>;
  subject_public: boolean;
};

/** Which rows to read; every given field must match. */
export interface EventFilter {
  type?: string | readonly string[];
  subjectId?: string;
  resourceId?: string;
  serverId?: string;
  teamId?: string;
  userId?: string;
  /** Only the events recorded after this id (a mark taken with lastId()). */
  afterId?: string;
}

export type EventRows = ReturnType<typeof eventRows>;

export function eventRows(app: App) {
  const { db } = app.context.database;

  async function where(filter: EventFilter): Promise<EventRow[]> {
    let query = db.selectFrom('events').selectAll();
    const { type } = filter;
    if (typeof type === 'string') query = query.where('type', '=', type);
    else if (type !== undefined) query = query.where('type', 'in', [...type]);
    if (filter.subjectId !== undefined) query = query.where('subject_id', '=', filter.subjectId);
    if (filter.resourceId !== undefined) query = query.where('resource_id', '=', filter.resourceId);
    if (filter.serverId !== undefined) query = query.where('server_id', '=', filter.serverId);
    if (filter.teamId !== undefined) query = query.where('team_id', '=', filter.teamId);
    if (filter.userId !== undefined) query = query.where('user_id', '=', filter.userId);
    if (filter.afterId !== undefined) query = query.where('id', '>', filter.afterId);
    const rows = await query.orderBy('id').execute();
    return rows.map((row) => ({
      ...row,
      created_at: new Date(row.created_at).toISOString(),
      data: JSON.parse(row.data) as Record<string, unknown>,
      subject_public: Boolean(row.subject_public),
    }));
  }

  return {
    /** The matching events, oldest first. */
    where,

    /** The types of the matching events, oldest first. */
    async types(filter: EventFilter): Promise<string[]> {
      return (await where(filter)).map((row) => row.type);
    },

    /** The one event of a type about a subject; fails the test unless there is exactly one. */
    async only(type: string, subjectId: string): Promise<EventRow> {
      const rows = await where({ type, subjectId });
      expect(rows, type).toHaveLength(1);
      return rows[0]!;
    },

    async count(): Promise<number> {
      const row = await db
        .selectFrom('events')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    /** The newest event id, or '' when there is none: a mark for `afterId`. */
    async lastId(): Promise<string> {
      const row = await db
        .selectFrom('events')
        .select('id')
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
      return row?.id ?? '';
    },
  };
}

/** Runs `run` while `table` is renamed away, so that a write to it fails inside the transaction under test. */
export async function withTableAway(app: App, table: keyof DB, run: () => Promise<void>): Promise<void> {
  const { db } = app.context.database;
  const away = `${table}_away`;
  await sql`alter table ${sql.table(table)} rename to ${sql.table(away)}`.execute(db);
  try {
    await run();
  } finally {
    await sql`alter table ${sql.table(away)} rename to ${sql.table(table)}`.execute(db);
  }
}
