// Search text, made the same way for what is indexed and for what is asked, on both dialects: folded (case,
// diacritics, the few Latin letters that do not decompose), split into words of letters and digits, joined by
// single spaces. Both SQLite's FTS5 (unicode61) and PostgreSQL's `simple` text search configuration then see
// exactly these words, so the two dialects match the same documents for the same query.

/** Letters that NFKD does not decompose into a base letter and a mark. */
const SPECIAL_LETTERS: Record<string, string> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ł: 'l',
  ı: 'i',
};
const SPECIAL = new RegExp(`[${Object.keys(SPECIAL_LETTERS).join('')}]`, 'g');
const MARKS = /\p{M}+/gu;
const NOT_WORD = /[^\p{L}\p{N}]+/u;

/** Longer "words" are noise (hashes, base64) and PostgreSQL refuses words over 2 KB. */
export const MAX_WORD_LENGTH = 64;

/** Lower case without diacritics: "Épée Über" → "epee uber". */
export function fold(text: string): string {
  return text
    .normalize('NFKD')
    .replace(MARKS, '')
    .toLowerCase()
    .replace(SPECIAL, (letter) => SPECIAL_LETTERS[letter]!);
}

/** The folded words of a text, in order. */
export function words(text: string, limit = Number.POSITIVE_INFINITY): string[] {
  const out: string[] = [];
  for (const word of fold(text).split(NOT_WORD)) {
    if (word === '' || word.length > MAX_WORD_LENGTH) continue;
    out.push(word);
    if (out.length >= limit) break;
  }
  return out;
}

/** What is stored in a search document's text column. */
export const indexText = (text: string, limit?: number): string => words(text, limit).join(' ');

/**
 * Markdown down to its words: images, link targets, autolinks, bare URLs and HTML tags go (their text would only
 * match queries by accident); link texts and image alt texts stay.
 */
export function stripMarkdown(markdown: string): string {
  return markdown
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, ' $1 ')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, ' $1 ')
    .replace(/^\s*\[[^\]]+\]:\s*\S+.*$/gm, ' ')
    .replace(/<(https?:\/\/|mailto:)[^>]*>/gi, ' ')
    .replace(/\bhttps?:\/\/\S+/gi, ' ')
    .replace(/<\/?[a-z][^>]*>/gi, ' ');
}

/** At most this many words of a description are indexed: enough to describe, bounded per document. */
export const MAX_BODY_WORDS = 2_000;
/** At most this many words of a query are used. */
export const MAX_QUERY_WORDS = 8;

export interface SearchQuery {
  /** Folded words, in the order asked, without repeats. */
  terms: string[];
  /** The last word is still being typed (no space after it): it matches as a prefix. */
  prefixLast: boolean;
  /**
   * Words typed joined, without a space ("user_81_8", "epic-trees", "steve's"): each group must also occur as
   * a phrase, its words adjacent and in order (the last one a prefix when it is the query's last word and
   * prefixLast). A username or a slug is one thing to the person typing it, so "user_81_8" must not find
   * "user_81_1" because "81" starts with "8".
   */
  phrases: Phrase[];
}

/** Words typed joined; `prefix` when its last word is the query's last and still being typed. */
export interface Phrase {
  words: string[];
  prefix: boolean;
}

const SPACE = /\s+/u;

/** A search as the user typed it, or null when it has no word to search for. */
export function parseSearch(input: string): SearchQuery | null {
  const terms = [...new Set(words(input))].slice(0, MAX_QUERY_WORDS);
  if (terms.length === 0) return null;
  const prefixLast = !/[^\p{L}\p{N}]$/u.test(input);
  const chunks = input.split(SPACE).map((chunk) => words(chunk));
  const lastWithWords = chunks.findLastIndex((group) => group.length > 0);
  const phrases: Phrase[] = [];
  let used = 0;
  for (const [index, chunk] of chunks.entries()) {
    const group = chunk.slice(0, MAX_QUERY_WORDS - used);
    used += group.length;
    if (group.length > 1)
      phrases.push({
        words: group,
        prefix: prefixLast && index === lastWithWords && group.length === chunk.length,
      });
    if (used >= MAX_QUERY_WORDS) break;
  }
  return { terms, prefixLast, phrases };
}

/**
 * The search with no word or phrase taken as a prefix (it matches a subset of what the search matches);
 * undefined when it has none.
 */
export function wholeWords(query: SearchQuery): SearchQuery | undefined {
  if (!query.prefixLast && !query.phrases.some((phrase) => phrase.prefix)) return undefined;
  return {
    ...query,
    prefixLast: false,
    phrases: query.phrases.map((phrase) => ({ ...phrase, prefix: false })),
  };
}
