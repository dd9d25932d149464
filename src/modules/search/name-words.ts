// Typo tolerance on PostgreSQL: a search of one or two words that finds nothing is answered again with each word
// that matches no document replaced by the nearest word of an APPROVED resource's name ("zephir" → "zephyr"), as
// Meilisearch and Typesense correct at the level of their term dictionaries. The dictionary is
// resource_name_words (migration 0027): every word of the names with the number of documents holding it, kept
// by a trigger on resource_search, with a trigram index. Looking a word up there costs what the dictionary holds
// near it; comparing the search with every name sharing a trigram (the earlier fallback) cost 2.4 s at 1M.
import { sql } from 'kysely';
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../core/db/schema.js';
import { withIndexPlans } from './index-plans.js';
import { tsMatch } from './resource-match.js';
import type { SearchMatch } from './resource-match.js';
import type { SearchQuery } from './text.js';

type Executor = Kysely<DB> | Transaction<DB>;

/** The dictionary recounted from the documents (migration 0027, and rebuilds after emptying it). */
export const NAME_WORDS_RECOUNT = sql`
  insert into resource_name_words (word, resource_count)
  select word, count(*) from (
    select distinct s.resource_id, w.word
    from resource_search s, unnest(string_to_array(s.name_text, ' ')) as w(word)
  ) d
  group by word`;

/**
 * The nearest dictionary word: the most similar (pg_trgm similarity, at least its default threshold 0.3, the
 * one its `%` operator and index answer to), then the one in most names, then the first in order.
 */
async function nearestWord(db: Executor, trigram: string, word: string): Promise<string | undefined> {
  const similarity = sql.id(trigram, 'similarity');
  const { rows } = await sql<{ word: string }>`
    select word from resource_name_words
    where word operator(${sql.id(trigram)}.%) ${word} and resource_count > 0
    order by ${similarity}(word, ${word}) desc, resource_count desc, word
    limit 1`.execute(db);
  return rows[0]?.word;
}

/**
 * Whether a word of the search (the last as a prefix while typed) matches any document on its own. A word of a
 * name is answered by the dictionary (its C-collated key also serves the prefix); any other is looked up in the
 * documents: a word no document holds, the case that matters here, costs one empty GIN lookup; a common one, the
 * first match. (With sequential scans left on, the planner scanned the documents for it, seconds at 1M.)
 */
async function matchesAlone(db: Executor, query: SearchQuery, index: number): Promise<boolean> {
  const term = query.terms[index]!;
  const prefix = query.prefixLast && index === query.terms.length - 1;
  const named = await sql<{ found: number }>`
    select 1 as found from resource_name_words
    where ${prefix ? sql`word like ${`${term}%`}` : sql`word = ${term}`} and resource_count > 0
    limit 1`.execute(db);
  if (named.rows.length > 0) return true;
  const alone: SearchQuery = { terms: [term], prefixLast: prefix, phrases: [] };
  const { rows } = await withIndexPlans(db, 'postgres', (read) =>
    sql`select 1 from resource_search_vectors where document @@ ${tsMatch({ query: alone })} limit 1`.execute(
      read,
    ),
  );
  return rows.length > 0;
}

/**
 * The search with its misspelt words corrected, or null when there is nothing to correct: every word matches
 * something on its own (they just never meet in one document), or a word has no near word. A corrected word is
 * a whole word, not a prefix; a phrase typed joined is kept only when none of its words was corrected.
 */
export async function correctedSearch(
  db: Executor,
  trigram: string,
  query: SearchQuery,
): Promise<SearchQuery | null> {
  const terms = [...query.terms];
  let prefixLast = query.prefixLast;
  for (const [index, term] of query.terms.entries()) {
    if (await matchesAlone(db, query, index)) continue;
    const nearest = await nearestWord(db, trigram, term);
    if (nearest === undefined) return null;
    terms[index] = nearest;
    if (index === terms.length - 1) prefixLast = false;
  }
  if (terms.every((term, index) => term === query.terms[index])) return null;
  const unique = [...new Set(terms)];
  return {
    terms: unique,
    prefixLast: prefixLast && unique.length === terms.length,
    phrases: query.phrases.filter((phrase) => phrase.words.every((word) => unique.includes(word))),
  };
}

/** A dictionary word as the index holds it: letters and digits (text.ts folds names to those). */
const PLAIN_WORD = /^[\p{L}\p{N}]+$/u;

/**
 * The search with the name words its last word, typed as a prefix, completes to (SearchMatch.completions), when
 * there are at most `limit`; otherwise as it is. The dictionary counts the words of exactly the names the name
 * index holds (both are kept from resource_search), so the words are the prefix's whole expansion there.
 */
export async function withNameCompletions(
  db: Executor,
  match: SearchMatch,
  limit: number,
): Promise<SearchMatch> {
  const { terms, prefixLast } = match.query;
  if (!prefixLast || terms.length === 0) return match;
  const { rows } = await sql<{ word: string }>`
    select word from resource_name_words
    where word like ${`${terms[terms.length - 1]!}%`} and resource_count > 0
    order by word limit ${limit + 1}`.execute(db);
  const words = rows.map((row) => row.word);
  if (words.length > limit || !words.every((word) => PLAIN_WORD.test(word))) return match;
  return { ...match, completions: words };
}
