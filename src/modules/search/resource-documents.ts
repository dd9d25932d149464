// Resource search documents (schema/search.ts): what each APPROVED resource contributes to search, rewritten in
// the transaction of every change that could alter it (the resource's text, links or status, a catalog entry's
// name, the owner's names). Resources that are not APPROVED have no document, so every match is publicly visible.
import type { Kysely, Transaction } from 'kysely';
import type { DialectName } from '../../core/db/database.js';
import type { DB, ResourceSearchTable } from '../../core/db/schema.js';
import { parseCatalogRefs } from '../resources/catalog-refs.repo.js';
import { resourcesWithOwner } from '../resources/resource-views.repo.js';
import { facetKeys } from './resource-facet-keys.js';
import { indexText, MAX_BODY_WORDS, stripMarkdown } from './text.js';

type Executor = Kysely<DB> | Transaction<DB>;

/** What a document is made from: the resource row with its catalog names and its owner's names. */
export interface ResourceSource {
  id: string;
  status: string;
  type: string;
  name: string;
  short_description: string;
  description: string;
  catalog_refs: string;
  owner_username: string | null;
  owner_display_name: string | null;
  owner_team_name: string | null;
}

export type ResourceDocument = Omit<ResourceSearchTable, 'doc_id'>;

export function resourceDocument(source: ResourceSource): ResourceDocument {
  const refs = parseCatalogRefs(source.catalog_refs);
  const keywords = [
    ...refs.tags.map((tag) => tag.name),
    ...refs.categories.map((category) => category.name),
    source.short_description,
  ];
  const owner = [source.owner_username, source.owner_display_name, source.owner_team_name];
  return {
    resource_id: source.id,
    name_text: indexText(source.name),
    keywords_text: indexText(keywords.join(' ')),
    body_text: indexText(stripMarkdown(source.description), MAX_BODY_WORDS),
    owner_text: indexText(owner.filter((part) => part !== null).join(' ')),
    facet_keys: facetKeys(source.type, refs),
  };
}

/** The sources of these resources (any status; missing ids are absent). */
export function selectResourceSources(db: Executor) {
  return resourcesWithOwner(db).select([
    'resources.id',
    'resources.status',
    'resources.type',
    'resources.name',
    'resources.short_description',
    'resources.description',
    'resources.catalog_refs',
    'owner_user.username as owner_username',
    'owner_user.display_name as owner_display_name',
    'owner_team.name as owner_team_name',
  ]);
}

const CHUNK = 500;

/** Writes (inserts or replaces) these documents. */
export async function writeResourceDocuments(
  trx: Executor,
  _dialect: DialectName,
  documents: readonly ResourceDocument[],
): Promise<void> {
  for (let start = 0; start < documents.length; start += CHUNK) {
    const chunk = documents.slice(start, start + CHUNK);
    await trx
      .insertInto('resource_search')
      .values(chunk)
      .onConflict((conflict) =>
        conflict.column('resource_id').doUpdateSet((eb) => ({
          name_text: eb.ref('excluded.name_text'),
          keywords_text: eb.ref('excluded.keywords_text'),
          body_text: eb.ref('excluded.body_text'),
          owner_text: eb.ref('excluded.owner_text'),
          facet_keys: eb.ref('excluded.facet_keys'),
        })),
      )
      .execute();
  }
}

/**
 * Brings the documents of these resources in line with what is stored now: written for APPROVED ones, removed
 * for the others and for deleted ones. Call it in the transaction of the change, after the change.
 */
export async function refreshResourceSearch(
  trx: Executor,
  dialect: DialectName,
  resourceIds: readonly string[],
): Promise<void> {
  for (let start = 0; start < resourceIds.length; start += CHUNK) {
    const ids = resourceIds.slice(start, start + CHUNK);
    const sources = await selectResourceSources(trx).where('resources.id', 'in', ids).execute();
    const approved = sources.filter((source) => source.status === 'APPROVED');
    const approvedIds = new Set(approved.map((source) => source.id));
    const gone = ids.filter((id) => !approvedIds.has(id));
    if (gone.length > 0) await trx.deleteFrom('resource_search').where('resource_id', 'in', gone).execute();
    await writeResourceDocuments(trx, dialect, approved.map(resourceDocument));
  }
}
