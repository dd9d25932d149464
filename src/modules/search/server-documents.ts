// Server search documents (schema/search.ts): what each APPROVED server contributes to GET /servers?search=,
// rewritten in the transaction of every change that could alter it (the server's text, tags, categories, status
// or owner; a catalog entry's name; the owner's names). Servers that are not APPROVED have no document, so every
// match is publicly visible.
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../core/db/schema.js';
import { rebuildDocuments, refreshDocuments, sourceRows } from './documents.js';
import type { DocumentKind, RebuildProgress } from './documents.js';
import type { DocumentIndex } from './directory-match.js';
import { indexText, MAX_BODY_WORDS, stripMarkdown } from './text.js';

type Executor = Kysely<DB> | Transaction<DB>;

export interface ServerSource {
  id: string;
  status: string;
  name: string;
  short_description: string | null;
  description: string | null;
  owner_username: string | null;
  owner_display_name: string | null;
  owner_team_name: string | null;
  /** Tag and category names. */
  catalog: string[];
  /** Tag and category terms (serverFacetTerm). */
  terms: string[];
}

/**
 * A tag or category of a server as a term of its document (migration 0040): on PostgreSQL a lexeme of its
 * tsvector, which no search word can reach (words are letters and digits only, search/text.ts).
 */
export const serverFacetTerm = (kind: 'tag' | 'category', id: string): string => `#${kind}/${id}`;

export const SERVER_INDEX: DocumentIndex = {
  table: 'server_search',
  fts: 'server_search_fts',
  columns: [
    { name: 'name_text', weight: 'A' },
    { name: 'keywords_text', weight: 'B' },
    { name: 'body_text', weight: 'C' },
    { name: 'owner_text', weight: 'D' },
  ],
  leadingVectors: { 1: 'name_words', 2: 'head_words' },
  vectors: 'server_search_vectors',
};

async function loadServerSources(db: Executor, ids: readonly string[]): Promise<ServerSource[]> {
  if (ids.length === 0) return [];
  const [rows, tags, categories] = await Promise.all([
    db
      .selectFrom('servers')
      .leftJoin('users as owner_user', (join) =>
        join.onRef('owner_user.id', '=', 'servers.owner_id').on('servers.owner_type', '=', 'USER'),
      )
      .leftJoin('teams as owner_team', (join) =>
        join.onRef('owner_team.id', '=', 'servers.owner_id').on('servers.owner_type', '=', 'TEAM'),
      )
      .select([
        'servers.id',
        'servers.status',
        'servers.name',
        'servers.short_description',
        'servers.description',
        'owner_user.username as owner_username',
        'owner_user.display_name as owner_display_name',
        'owner_team.name as owner_team_name',
      ])
      .where('servers.id', 'in', ids)
      .execute(),
    db
      .selectFrom('server_tag_links')
      .innerJoin('server_tags', 'server_tags.id', 'server_tag_links.tag_id')
      .select(['server_tag_links.server_id', 'server_tags.id', 'server_tags.name'])
      .where('server_tag_links.server_id', 'in', ids)
      .execute(),
    db
      .selectFrom('server_category_links')
      .innerJoin('server_categories', 'server_categories.id', 'server_category_links.category_id')
      .select(['server_category_links.server_id', 'server_categories.id', 'server_categories.name'])
      .where('server_category_links.server_id', 'in', ids)
      .execute(),
  ]);
  const names = new Map<string, string[]>();
  const terms = new Map<string, string[]>();
  const add = (map: Map<string, string[]>, serverId: string, value: string) => {
    const list = map.get(serverId) ?? [];
    list.push(value);
    map.set(serverId, list);
  };
  for (const [kind, links] of [
    ['tag', tags],
    ['category', categories],
  ] as const) {
    for (const link of links) {
      add(names, link.server_id, link.name);
      add(terms, link.server_id, serverFacetTerm(kind, link.id));
    }
  }
  return rows.map((row) =>
    Object.assign(row, { catalog: names.get(row.id) ?? [], terms: terms.get(row.id) ?? [] }),
  );
}

export const SERVER_DOCUMENTS: DocumentKind<ServerSource> = {
  name: 'servers',
  table: 'server_search',
  key: 'server_id',
  columns: [...SERVER_INDEX.columns.map((column) => column.name), 'facet_terms'],
  load: loadServerSources,
  idOf: (source) => source.id,
  document(source) {
    if (source.status !== 'APPROVED') return null;
    const owner = [source.owner_username, source.owner_display_name, source.owner_team_name];
    return {
      server_id: source.id,
      name_text: indexText(source.name),
      keywords_text: indexText([...source.catalog, source.short_description ?? ''].join(' ')),
      body_text: indexText(stripMarkdown(source.description ?? ''), MAX_BODY_WORDS),
      owner_text: indexText(owner.filter((part) => part !== null).join(' ')),
      // Sorted as migration 0040 fills them (byte order: the terms are ASCII).
      facet_terms: [...source.terms].sort().join(' '),
    };
  },
  ...sourceRows('servers', true),
};

/** The one call every server write makes, in its transaction, after the change. */
export const refreshServerSearch = (trx: Executor, serverIds: readonly string[]): Promise<void> =>
  refreshDocuments(trx, SERVER_DOCUMENTS, serverIds);

/** The servers carrying a tag or in a category: read them before a rename or delete, refresh them after. */
export async function serverIdsOfCatalogEntry(
  trx: Executor,
  kind: 'tag' | 'category',
  entryId: string,
): Promise<string[]> {
  const rows =
    kind === 'tag'
      ? await trx.selectFrom('server_tag_links').select('server_id').where('tag_id', '=', entryId).execute()
      : await trx
          .selectFrom('server_category_links')
          .select('server_id')
          .where('category_id', '=', entryId)
          .execute();
  return rows.map((row) => row.server_id);
}

/** The ids of the servers an owner has (their names are in those servers' documents). */
export async function serverIdsOfOwner(
  trx: Executor,
  ownerType: 'USER' | 'TEAM',
  ownerId: string,
): Promise<string[]> {
  const rows = await trx
    .selectFrom('servers')
    .select('id')
    .where('owner_type', '=', ownerType)
    .where('owner_id', '=', ownerId)
    .execute();
  return rows.map((row) => row.id);
}

export const rebuildServerSearch = (db: Kysely<DB>, onProgress?: (progress: RebuildProgress) => void) =>
  rebuildDocuments(db, SERVER_DOCUMENTS, onProgress);
