// Kysely queries of the moderation threads. A thread is the messages of one resource or one server.
import type { Insertable, Kysely, Transaction } from 'kysely';
import type { DB, ModerationMessagesTable, ResourceStatus, ServerStatus } from '../../../core/db/schema.js';

type Executor = Kysely<DB> | Transaction<DB>;

export type ThreadKind = 'RESOURCE' | 'SERVER';

/** What a thread hangs under: its owner and status place the thread's events. */
export interface ThreadSubject {
  kind: ThreadKind;
  id: string;
  status: ResourceStatus | ServerStatus;
  owner_type: 'USER' | 'TEAM';
  owner_id: string;
}

const SUBJECT_TABLE = { RESOURCE: 'resources', SERVER: 'servers' } as const;
const SUBJECT_COLUMN = { RESOURCE: 'resource_id', SERVER: 'server_id' } as const;

export async function findSubject(
  db: Executor,
  kind: ThreadKind,
  id: string,
): Promise<ThreadSubject | undefined> {
  const row = await db
    .selectFrom(SUBJECT_TABLE[kind])
    .select(['id', 'status', 'owner_type', 'owner_id'])
    .where('id', '=', id)
    .executeTakeFirst();
  return row && { kind, ...row };
}

export interface ThreadVersion {
  id: string;
  status: string;
  version_number: string;
}

/** The version, only if it belongs to this resource. */
export function findVersionOf(
  db: Executor,
  resourceId: string,
  versionId: string,
): Promise<ThreadVersion | undefined> {
  return db
    .selectFrom('resource_versions')
    .select(['id', 'status', 'version_number'])
    .where('id', '=', versionId)
    .where('resource_id', '=', resourceId)
    .executeTakeFirst();
}

export async function insertMessage(db: Executor, row: Insertable<ModerationMessagesTable>): Promise<void> {
  await db.insertInto('moderation_messages').values(row).execute();
}

export interface MessageRow {
  id: string;
  version_id: string | null;
  author_id: string | null;
  author_username: string | null;
  author_role: string | null;
  body: string;
  internal: boolean | number;
  automatic: boolean | number;
  created_at: string;
}

function messages(db: Executor) {
  return db
    .selectFrom('moderation_messages as m')
    .leftJoin('users as u', 'u.id', 'm.author_id')
    .select([
      'm.id',
      'm.version_id',
      'm.author_id',
      'u.username as author_username',
      'u.role as author_role',
      'm.body',
      'm.internal',
      'm.automatic',
      'm.created_at',
    ]);
}

export interface ThreadPage {
  withInternal: boolean;
  limit: number;
  offset: number;
}

/** One page of a thread, oldest first, with each author (one query, by the thread's index). */
export function listMessages(
  db: Executor,
  kind: ThreadKind,
  subjectId: string,
  page: ThreadPage,
): Promise<MessageRow[]> {
  return messages(db)
    .where(`m.${SUBJECT_COLUMN[kind]}`, '=', subjectId)
    .$if(!page.withInternal, (query) => query.where('m.internal', '=', false))
    .orderBy('m.created_at')
    .orderBy('m.id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

/** How many messages the reader sees in the thread (bounded by the thread's index, never the whole table). */
export async function countMessages(
  db: Executor,
  kind: ThreadKind,
  subjectId: string,
  withInternal: boolean,
): Promise<number> {
  const row = await db
    .selectFrom('moderation_messages')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where(SUBJECT_COLUMN[kind], '=', subjectId)
    .$if(!withInternal, (query) => query.where('internal', '=', false))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export const findMessage = (db: Executor, id: string): Promise<MessageRow | undefined> =>
  messages(db).where('m.id', '=', id).executeTakeFirst();
