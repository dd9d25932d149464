// Queries behind queue positions and moderation statistics (spec/extensions.md §4). Each queue is read through
// the index its moderation list already uses: (status, waiting since, id) — see migration 0014.
import { sql } from 'kysely';
import type { Kysely, RawBuilder } from 'kysely';
import { readCounterSum } from '../../../core/db/counters.js';
import { dialectOf, prepared } from '../../../core/db/prepared.js';
import type { DB } from '../../../core/db/schema.js';

export type QueueKind = 'resources' | 'versions' | 'servers';

/**
 * Where each queue lives and what its "waiting since" column is: the column the moderation list of that kind
 * orders PENDING by, oldest first (resources: creation, as GET /resources/moderation/status/PENDING lists them;
 * versions: the last submission; servers: the last status change, as GET /servers/moderation/status/PENDING).
 */
const QUEUES: Record<QueueKind, { table: string; since: string }> = {
  resources: { table: 'resources', since: 'created_at' },
  versions: { table: 'resource_versions', since: 'submitted_at' },
  servers: { table: 'servers', since: 'status_updated_at' },
};

const count = async (db: Kysely<DB>, query: RawBuilder<{ n: number | string }>): Promise<number> => {
  const { rows } = await query.execute(db);
  return Number(rows[0]?.n ?? 0);
};

/**
 * The PENDING items of the kind before (`<`) or after (`>`) the point (waiting since, id) in queue order: a range
 * count on the (status, since, id) index, read from the index alone. The row-value comparison is what lets both
 * SQLite and PostgreSQL seek the range (a plain `status = 'PENDING'` count may be planned as a table scan when
 * the queue is a large part of the table). The point is values or, in positionOf, the outer row's columns.
 */
function pendingRange(
  kind: QueueKind,
  operator: '<' | '>',
  since: RawBuilder<unknown>,
  id: RawBuilder<unknown>,
) {
  const { table, since: column } = QUEUES[kind];
  return sql<{ n: number }>`
    select count(*) as n from ${sql.table(table)} queued
    where queued.status = 'PENDING'
      and (${sql.ref(`queued.${column}`)}, queued.id) ${sql.raw(operator)} (${since}, ${id})
  `;
}

/** How many PENDING items of the kind are ahead of (`ahead`) or behind (`behind`) (since, id). */
export function countAround(
  db: Kysely<DB>,
  kind: QueueKind,
  side: 'ahead' | 'behind',
  since: string,
  id: string,
): Promise<number> {
  return count(db, pendingRange(kind, side === 'ahead' ? '<' : '>', sql`${since}`, sql`${id}`));
}

export interface PositionRow {
  since: string | Date | null;
  ahead: number | string;
  /** Resources: the PENDING counter (the total). Versions and servers: the PENDING items behind this one. */
  rest: number | string;
}

/**
 * The queue position of one PENDING item as one prepared statement (issue 18: it is read on every owner-side or
 * contributor read of a PENDING object): the item's waiting-since, and beside it pendingRange as scalar
 * subqueries for the items ahead and the rest. PostgreSQL seeks the whole row-value range; SQLite, comparing
 * with the outer row, seeks (status, waiting since) and checks the id on the way, which costs only the entries
 * that share the item's waiting-since to the millisecond. Resources keep a PENDING counter for the total; for
 * the others the items behind are a second range count on the same index, so the two together read each pending
 * index entry once.
 */
const positionStatement = (kind: QueueKind) =>
  prepared<PositionRow, [string]>(1, (db, _dialect, id) => {
    const { table, since } = QUEUES[kind];
    const point = [sql.ref(`item.${since}`), sql.ref('item.id')] as const;
    const rest =
      kind === 'resources'
        ? sql`select coalesce(sum(value), 0) from counters where name = 'resources.status.PENDING'`
        : pendingRange(kind, '>', ...point);
    const query = sql<PositionRow>`
      select ${sql.ref(`item.${since}`)} as since, (${pendingRange(kind, '<', ...point)}) as ahead, (${rest}) as rest
      from ${sql.table(table)} item
      where item.id = ${id} and item.status = 'PENDING'
    `;
    return { compile: () => query.compile(db) };
  });

const POSITIONS: Record<QueueKind, ReturnType<typeof positionStatement>> = {
  resources: positionStatement('resources'),
  versions: positionStatement('versions'),
  servers: positionStatement('servers'),
};

/** The position row of a PENDING item; undefined when it is not (or no longer) PENDING. */
export async function positionOf(
  db: Kysely<DB>,
  kind: QueueKind,
  id: string,
): Promise<PositionRow | undefined> {
  return (await POSITIONS[kind](db, dialectOf(db), id))[0];
}

/** PENDING items of the kind: the status counter for resources, the index range for the others. */
export function countPending(db: Kysely<DB>, kind: QueueKind): Promise<number> {
  if (kind === 'resources') return readCounterSum(db, ['resources.status.PENDING']);
  return count(
    db,
    sql<{ n: number }>`select count(*) as n from ${sql.table(QUEUES[kind].table)} where status = 'PENDING'`,
  );
}

/** Open reports (PENDING and UNDER_REVIEW), from the report status counters. */
export const countOpenReports = (db: Kysely<DB>): Promise<number> =>
  readCounterSum(db, ['reports.status.PENDING', 'reports.status.UNDER_REVIEW']);

export interface ReviewRow {
  entered_at: string | Date | null;
  decided_at: string | Date;
}

/**
 * Every review decided in [from, to], with when the item entered the queue. A review is a moderator's decision
 * on a PENDING item; the queue was entered at the item's creation or its latest resubmission before the
 * decision (versions: the latest submission). Reads the window through the created_at index of the history
 * table and one indexed lookup per decision.
 */
export async function listReviews(
  db: Kysely<DB>,
  kind: QueueKind | 'reports',
  from: string,
  to: string,
): Promise<ReviewRow[]> {
  const query = REVIEWS[kind](from, to);
  const { rows } = await query.execute(db);
  return rows;
}

/**
 * Decisions on PENDING resources or servers (their histories have the same shape): each waited from the latest
 * RESUBMIT before it, or from the object's creation.
 */
const ownedReviews = (
  events: string,
  objects: string,
  idColumn: string,
  from: string,
  to: string,
) => sql<ReviewRow>`
  select e.created_at as decided_at,
    coalesce((select max(r.created_at) from ${sql.table(events)} r
              where ${sql.ref(`r.${idColumn}`)} = ${sql.ref(`e.${idColumn}`)} and r.action = 'RESUBMIT'
                and r.created_at <= e.created_at),
             s.created_at) as entered_at
  from ${sql.table(events)} e join ${sql.table(objects)} s on s.id = ${sql.ref(`e.${idColumn}`)}
  where e.created_at >= ${from} and e.created_at <= ${to}
    and e.from_status = 'PENDING' and e.action in ('APPROVE', 'REJECT', 'SUSPEND')
`;

const REVIEWS: Record<QueueKind | 'reports', (from: string, to: string) => RawBuilder<ReviewRow>> = {
  resources: (from, to) => ownedReviews('resource_moderation_events', 'resources', 'resource_id', from, to),
  servers: (from, to) => ownedReviews('server_moderation_events', 'servers', 'server_id', from, to),
  // An approval without an actor is automatic (a trusted creator's version): no moderator reviewed it.
  versions: (from, to) => sql<ReviewRow>`
    select e.created_at as decided_at,
      (select max(r.created_at) from version_moderation_events r
       where r.version_id = e.version_id and r.action in ('SUBMIT', 'RESUBMIT')
         and r.created_at <= e.created_at) as entered_at
    from version_moderation_events e
    where e.created_at >= ${from} and e.created_at <= ${to}
      and e.action in ('APPROVE', 'REJECT') and e.actor_id is not null
  `,
  reports: (from, to) => sql<ReviewRow>`
    select e.created_at as decided_at, r.created_at as entered_at
    from report_events e join reports r on r.id = e.report_id
    where e.created_at >= ${from} and e.created_at <= ${to} and e.action in ('RESOLVE', 'DISMISS')
  `,
};
