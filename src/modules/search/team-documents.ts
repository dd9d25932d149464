// Team search documents (schema/search.ts): every team has one (GET /teams lists them all), rewritten in the
// transaction of each change to its name or description; deleting a team cascades to its document.
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../core/db/schema.js';
import { rebuildDocuments, refreshDocuments, sourceRows } from './documents.js';
import type { DocumentKind, RebuildProgress } from './documents.js';
import type { DocumentIndex } from './directory-match.js';
import { indexText, stripMarkdown } from './text.js';

type Executor = Kysely<DB> | Transaction<DB>;

interface TeamSource {
  id: string;
  name: string;
  slug: string;
  description: string | null;
}

export const TEAM_INDEX: DocumentIndex = {
  table: 'team_search',
  fts: 'team_search_fts',
  columns: [
    { name: 'name_text', weight: 'A' },
    { name: 'slug_text', weight: 'B' },
    { name: 'body_text', weight: 'C' },
  ],
};

export const TEAM_DOCUMENTS: DocumentKind<TeamSource> = {
  name: 'teams',
  table: 'team_search',
  key: 'team_id',
  columns: TEAM_INDEX.columns.map((column) => column.name),
  load: (db, ids) =>
    ids.length === 0
      ? Promise.resolve([])
      : db.selectFrom('teams').select(['id', 'name', 'slug', 'description']).where('id', 'in', ids).execute(),
  idOf: (source) => source.id,
  // The slug's words too, so a team is also found by the slug its URL shows.
  document: (source) => ({
    team_id: source.id,
    name_text: indexText(source.name),
    slug_text: indexText(source.slug),
    body_text: indexText(stripMarkdown(source.description ?? '')),
  }),
  ...sourceRows('teams'),
};

/** The one call every team write makes, in its transaction, after the change. */
export const refreshTeamSearch = (trx: Executor, teamIds: readonly string[]): Promise<void> =>
  refreshDocuments(trx, TEAM_DOCUMENTS, teamIds);

export const rebuildTeamSearch = (db: Kysely<DB>, onProgress?: (progress: RebuildProgress) => void) =>
  rebuildDocuments(db, TEAM_DOCUMENTS, onProgress);
