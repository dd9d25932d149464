// User search documents (schema/search.ts): every account has one, whatever its status (the admin list finds
// banned accounts too; GET /users/search leaves them out when it reads), rewritten in the transaction of each
// change to the username or display name.
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../core/db/schema.js';
import { rebuildDocuments, refreshDocuments, sourceRows } from './documents.js';
import type { DocumentKind, RebuildProgress } from './documents.js';
import type { DocumentIndex } from './directory-match.js';
import { indexText, words } from './text.js';

type Executor = Kysely<DB> | Transaction<DB>;

interface UserSource {
  id: string;
  username: string;
  display_name: string | null;
}

export const USER_INDEX: DocumentIndex = {
  table: 'user_search',
  fts: 'user_search_fts',
  columns: [
    { name: 'name_text', weight: 'A' },
    { name: 'display_text', weight: 'B' },
  ],
};

/**
 * A username as words: its parts in order ("Cool_Builder99" → cool, builder99; kept whole, so the name typed as
 * it is matches as a phrase), then the other ways to type it: its camel-case parts (CoolBuilder → cool, builder)
 * and the whole name without underscores (coolbuilder99).
 */
export function usernameText(username: string): string {
  const parts = words(username);
  const camel = username.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/([A-Za-z])(\d)/g, '$1 $2');
  const joined = username.replace(/_/g, '');
  const others = words(`${camel} ${joined}`).filter((word) => !parts.includes(word));
  return [...parts, ...new Set(others)].join(' ');
}

export const USER_DOCUMENTS: DocumentKind<UserSource> = {
  name: 'users',
  table: 'user_search',
  key: 'user_id',
  columns: USER_INDEX.columns.map((column) => column.name),
  load: (db, ids) =>
    ids.length === 0
      ? Promise.resolve([])
      : db.selectFrom('users').select(['id', 'username', 'display_name']).where('id', 'in', ids).execute(),
  idOf: (source) => source.id,
  document: (source) => ({
    user_id: source.id,
    name_text: usernameText(source.username),
    display_text: indexText(source.display_name ?? ''),
  }),
  ...sourceRows('users'),
};

/** The one call every account write that changes a name makes, in its transaction, after the change. */
export const refreshUserSearch = (trx: Executor, userIds: readonly string[]): Promise<void> =>
  refreshDocuments(trx, USER_DOCUMENTS, userIds);

export const rebuildUserSearch = (db: Kysely<DB>, onProgress?: (progress: RebuildProgress) => void) =>
  rebuildDocuments(db, USER_DOCUMENTS, onProgress);
