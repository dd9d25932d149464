// The brute-force side of the relevance tests: the resources' search documents as the index holds them (folded
// words per field), which of them a search matches, and each match's text score as documented (per word its
// best field: name 27, keywords 9, description 3, owner 1 when not in the description).
import { expect } from 'vitest';
import type { TestApp } from '../helpers/app.js';

export interface IndexedDocument {
  resourceId: string;
  type: string;
  fields: { name: string[]; keywords: string[]; body: string[]; owner: string[] };
  downloads: number;
  createdAt: string;
}

/**
 * Popularity written behind the application's back (downloads per resource id; likes stay 0, so relevance's
 * popularity orders as downloads do), then the kept pages expired and the indexed documents read.
 */
export async function withDownloads(t: TestApp, downloads: Map<string, number>): Promise<IndexedDocument[]> {
  const { db } = t.app.context.database;
  for (const [id, count] of downloads) {
    await db.updateTable('resources').set({ downloads: count }).where('id', '=', id).execute();
  }
  t.clock.advance(5001);
  return readIndexedDocuments(t);
}

/** Every search document (each an APPROVED resource's), with its resource's type, popularity and creation. */
export async function readIndexedDocuments(t: TestApp): Promise<IndexedDocument[]> {
  const { db } = t.app.context.database;
  const rows = await db
    .selectFrom('resource_search as s')
    .innerJoin('resources', 'resources.id', 's.resource_id')
    .select(['s.resource_id', 's.name_text', 's.keywords_text', 's.body_text', 's.owner_text'])
    .select(['resources.type', 'resources.downloads', 'resources.created_at', 'resources.status'])
    .execute();
  expect(rows.every((row) => row.status === 'APPROVED')).toBe(true);
  const words = (text: string) => text.split(' ').filter((word) => word !== '');
  return rows.map((row) => ({
    resourceId: row.resource_id,
    type: row.type,
    fields: {
      name: words(row.name_text),
      keywords: words(row.keywords_text),
      body: words(row.body_text),
      owner: words(row.owner_text),
    },
    downloads: Number(row.downloads),
    createdAt: row.created_at,
  }));
}

export interface Term {
  term: string;
  prefix: boolean;
}

/** The search's words, the last one a prefix unless a space follows it. */
export function parse(search: string): Term[] {
  const terms = search.trim().toLowerCase().split(/\s+/);
  return terms.map((term, i) => ({ term, prefix: i === terms.length - 1 && !search.endsWith(' ') }));
}

export const holds = (words: string[], { term, prefix }: Term) =>
  words.some((word) => (prefix ? word.startsWith(term) : word === term));

/** The documents matching `search` (of `type`): every word in some field. */
export function matching(documents: IndexedDocument[], search: string, type?: string): IndexedDocument[] {
  const terms = parse(search);
  return documents
    .filter((d) => type === undefined || d.type === type)
    .filter((d) => terms.every((term) => Object.values(d.fields).some((words) => holds(words, term))));
}

/** A document's text score for the search's words. */
export const textScore = (d: IndexedDocument, terms: Term[]): number =>
  terms.reduce((sum, term) => {
    if (holds(d.fields.name, term)) return sum + 27;
    if (holds(d.fields.keywords, term)) return sum + 9;
    if (holds(d.fields.owner, term) && !holds(d.fields.body, term)) return sum + 1;
    return sum + 3;
  }, 0);

export const byIdDesc = (a: { id: string }, b: { id: string }) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/** The matches of `search` (of `type`) in relevance order: text score, then popularity, then id. */
export function relevanceOrder(documents: IndexedDocument[], search: string, type?: string): string[] {
  const terms = parse(search);
  const scored = matching(documents, search, type).map((d) => ({
    id: d.resourceId,
    score: textScore(d, terms),
    downloads: d.downloads,
  }));
  scored.sort((a, b) => b.score - a.score || b.downloads - a.downloads || byIdDesc(a, b));
  return scored.map((entry) => entry.id);
}
