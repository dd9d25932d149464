// Votes, the monthly counter and Votifier settings: Kysely queries only.
import { sql } from 'kysely';
import type { Kysely, Transaction } from 'kysely';
import type { DB, ServerVotesTable, ServerVotifiersTable } from '../../../core/db/schema.js';
import { SERVER_EVENT_COLUMNS } from '../server-events.js';

type Executor = Kysely<DB> | Transaction<DB>;

/** The server a vote is for, with the columns its event needs. */
export function findVoteTarget(trx: Executor, serverId: string) {
  return trx.selectFrom('servers').select(SERVER_EVENT_COLUMNS).where('id', '=', serverId).executeTakeFirst();
}

/** The latest vote since `since` by this account and by this client key for the server (both cooldowns). */
export async function latestVotes(
  trx: Executor,
  serverId: string,
  voter: { userId: string; clientKey: string },
  since: string,
): Promise<{ byUser: string | null; byClient: string | null }> {
  const row = await trx
    .selectNoFrom((eb) => [
      eb
        .selectFrom('server_votes')
        .select((inner) => inner.fn.max('created_at').as('at'))
        .where('server_id', '=', serverId)
        .where('user_id', '=', voter.userId)
        .where('created_at', '>', since)
        .as('by_user'),
      eb
        .selectFrom('server_votes')
        .select((inner) => inner.fn.max('created_at').as('at'))
        .where('server_id', '=', serverId)
        .where('client_key', '=', voter.clientKey)
        .where('created_at', '>', since)
        .as('by_client'),
    ])
    .executeTakeFirstOrThrow();
  return { byUser: row.by_user ?? null, byClient: row.by_client ?? null };
}

export async function hasEnabledVotifier(trx: Executor, serverId: string): Promise<boolean> {
  const row = await trx
    .selectFrom('server_votifiers')
    .select('enabled')
    .where('server_id', '=', serverId)
    .executeTakeFirst();
  return Boolean(row?.enabled);
}

export async function insertVote(trx: Executor, vote: ServerVotesTable): Promise<void> {
  await trx.insertInto('server_votes').values(vote).execute();
}

/** Counts one vote: this month's counter restarts at 1 when the stored month is an older one. */
export function countVote(trx: Executor, serverId: string, month: string) {
  return trx
    .updateTable('servers')
    .set({
      vote_count: sql<number>`case when vote_month = ${month} then vote_count + 1 else 1 end`,
      vote_month: month,
      total_votes: sql<number>`total_votes + 1`,
    })
    .where('id', '=', serverId)
    .returning(['vote_count', 'total_votes'])
    .executeTakeFirstOrThrow();
}

/** Zeroes the counters of every server whose counter belongs to an earlier month; how many it changed. */
export async function resetStaleVoteCounts(db: Executor, month: string): Promise<number> {
  const result = await db
    .updateTable('servers')
    .set({ vote_count: 0 })
    .where('vote_count', '<>', 0)
    .where('vote_month', '<>', month)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Drops the voter addresses of votes older than `before` (cooldowns need a day of them, deliveries at most the
 * retry schedule's 31 hours): a vote keeps who voted for the owner's list, not where from. Pending deliveries
 * keep theirs until they settle.
 */
export async function forgetVoterAddresses(db: Executor, before: string): Promise<number> {
  const result = await db
    .updateTable('server_votes')
    .set({ client_key: null, address: null })
    .where('created_at', '<', before)
    .where('address', 'is not', null)
    .where((eb) => eb.or([eb('delivery_status', 'is', null), eb('delivery_status', '!=', 'PENDING')]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export interface VoteListRow {
  id: string;
  username: string;
  user_id: string;
  account_username: string;
  created_at: string;
  delivery_status: ServerVotesTable['delivery_status'];
  delivery_attempts: number;
  delivery_last_error: string | null;
}

/** One page of a server's votes, newest first, each with the voter's account (one join). */
export function listVotes(db: Executor, serverId: string, limit: number, offset: number) {
  return db
    .selectFrom('server_votes as v')
    .innerJoin('users as u', 'u.id', 'v.user_id')
    .select([
      'v.id',
      'v.username',
      'v.user_id',
      'u.username as account_username',
      'v.created_at',
      'v.delivery_status',
      'v.delivery_attempts',
      'v.delivery_last_error',
    ])
    .where('v.server_id', '=', serverId)
    .orderBy('v.created_at', 'desc')
    .orderBy('v.id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute() as Promise<VoteListRow[]>;
}

export async function countVotes(db: Executor, serverId: string): Promise<number> {
  const row = await db
    .selectFrom('server_votes')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('server_id', '=', serverId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export function findVotifier(db: Executor, serverId: string): Promise<ServerVotifiersTable | undefined> {
  return db.selectFrom('server_votifiers').selectAll().where('server_id', '=', serverId).executeTakeFirst();
}

export async function insertVotifier(db: Executor, row: ServerVotifiersTable): Promise<void> {
  await db.insertInto('server_votifiers').values(row).execute();
}

export async function updateVotifier(
  db: Executor,
  serverId: string,
  changes: Pick<ServerVotifiersTable, 'host' | 'port' | 'token_sealed' | 'enabled' | 'updated_at'>,
): Promise<void> {
  await db.updateTable('server_votifiers').set(changes).where('server_id', '=', serverId).execute();
}

export async function deleteVotifier(db: Executor, serverId: string): Promise<boolean> {
  const result = await db.deleteFrom('server_votifiers').where('server_id', '=', serverId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
