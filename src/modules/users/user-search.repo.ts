// Account searches on the full-text index (user_search, search/user-documents.ts): GET /users/search and the
// search of GET /admin/users. Every word must match, the last one as a prefix; case and diacritics are folded.
import { sql } from 'kysely';
import type { Kysely, SqlBool, Transaction } from 'kysely';
import type { DialectName } from '../../core/db/database.js';
import { escapeLike } from '../../core/db/dialect.js';
import type { DB } from '../../core/db/schema.js';
import { documentMatches, relevanceTier } from '../search/directory-match.js';
import { parseSearch } from '../search/text.js';
import { USER_INDEX } from '../search/user-documents.js';
import type { UserRow } from './users.repo.js';

type Executor = Kysely<DB> | Transaction<DB>;

/**
 * Users (not banned) matching q by relevance tier — the exact username, then every word in the username, then
 * in the username and display name — then the most followed, then username. No word: nobody.
 */
export async function searchUsers(
  db: Executor,
  dialect: DialectName,
  q: string,
  limit: number,
): Promise<UserRow[]> {
  const search = parseSearch(q);
  if (search === null) return [];
  const exact = sql<SqlBool>`${sql.ref('users.username_key')} = ${q.trim().toLowerCase()}`;
  return db
    .selectFrom('user_search')
    .innerJoin('users', 'users.id', 'user_search.user_id')
    .selectAll('users')
    .where(documentMatches(dialect, USER_INDEX, 'user_search', search))
    .where('users.status', '!=', 'BANNED')
    .orderBy(relevanceTier(dialect, USER_INDEX, 'user_search', search, exact))
    .orderBy('users.follower_count', 'desc')
    .orderBy('users.username_key')
    .limit(limit)
    .execute();
}

/**
 * The ids of the accounts an admin search finds: a full-text match of the username or display name, or an email
 * that starts with the search (lower-cased, as emails are stored). Both sides are index lookups (the FTS index;
 * the unique email index as a range on SQLite, users_email_prefix_idx with LIKE 'x%' on PostgreSQL), so the list
 * and its total cost what they match, not the table.
 */
export function adminSearchIds(db: Executor, dialect: DialectName, input: string) {
  const prefix = input.trim().toLowerCase();
  const byEmail = db
    .selectFrom('users')
    .select('users.id')
    .where(
      dialect === 'postgres'
        ? sql<SqlBool>`${sql.ref('users.email')} like ${`${escapeLike(prefix)}%`} escape '\\'`
        : sql<SqlBool>`${sql.ref('users.email')} >= ${prefix} and ${sql.ref('users.email')} < ${`${prefix}\u{10FFFF}`}`,
    );
  const search = parseSearch(input);
  if (search === null) return byEmail;
  return db
    .selectFrom('user_search')
    .select('user_search.user_id as id')
    .where(documentMatches(dialect, USER_INDEX, 'user_search', search))
    .union(byEmail);
}
