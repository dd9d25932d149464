// The text of the scale catalogue: names, short descriptions and markdown descriptions drawn from the
// vocabulary (words.ts) with Zipf-distributed word frequencies, as real catalogues have them (a few words in
// many documents, most words in few). The query generator draws from the same vocabulary, so queries match.
import { int, pick, prng, zipf } from './random.js';
import { CONTENT_WORDS, DIACRITIC_WORDS, FUNCTION_WORDS, pseudoWords, split } from './words.js';

export interface Vocabulary {
  /** Content words, most common first. */
  content: string[];
  glue: string[];
  diacritic: string[];
  /** Rare pseudo-words (descriptions only). */
  tail: string[];
  contentRank: (random: () => number) => number;
  tailRank: (random: () => number) => number;
}

export function vocabulary(seed: number): Vocabulary {
  const content = [...new Set(split(CONTENT_WORDS))];
  const tail = pseudoWords(20_000, prng(seed ^ 0x5eed));
  return {
    content,
    glue: split(FUNCTION_WORDS),
    diacritic: split(DIACRITIC_WORDS),
    tail,
    contentRank: zipf(content.length, 0.9),
    tailRank: zipf(tail.length, 1),
  };
}

const title = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/** One content word, Zipf-distributed. */
export const contentWord = (v: Vocabulary, random: () => number): string => v.content[v.contentRank(random)]!;

/** A resource or server name: 1–4 title-cased words, about 3% of words with a diacritic. */
export function nameOf(v: Vocabulary, random: () => number): string {
  const roll = random();
  const count = roll < 0.15 ? 1 : roll < 0.55 ? 2 : roll < 0.85 ? 3 : 4;
  const words: string[] = [];
  for (let i = 0; i < count; i++) {
    words.push(random() < 0.03 ? pick(random, v.diacritic) : title(contentWord(v, random)));
  }
  return words.join(' ');
}

/** Lower-case ASCII slug of a name, with a unique suffix; within the API's 3–64 characters. */
export function slugOf(name: string, suffix: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 50)
    .replace(/-+$/g, '');
  return base === '' ? `item-${suffix}` : `${base}-${suffix}`;
}

/** `count` words of running text: glue words, content words and (rarely) tail words. */
function prose(v: Vocabulary, random: () => number, count: number): string {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const roll = random();
    out.push(
      roll < 0.4
        ? pick(random, v.glue)
        : roll < 0.94
          ? contentWord(v, random)
          : roll < 0.995
            ? v.tail[v.tailRank(random)]!
            : pick(random, v.diacritic),
    );
  }
  return out.join(' ');
}

function sentence(v: Vocabulary, random: () => number, count: number): string {
  const text = prose(v, random, count);
  return `${title(text)}.`;
}

/** A short description: one sentence of 8–25 words (≤ 250 characters). */
export function shortDescriptionOf(v: Vocabulary, random: () => number): string {
  return sentence(v, random, 8 + int(random, 18)).slice(0, 250);
}

/** A markdown description of 50–300 words (most near the low end): a heading, paragraphs, a feature list. */
export function descriptionOf(v: Vocabulary, random: () => number, name: string): string {
  const u = random();
  let left = 50 + Math.floor(250 * u * u);
  const parts = [`# ${name}`];
  while (left > 0) {
    const kind = random();
    if (kind < 0.2 && left >= 12) {
      const items = 2 + int(random, 4);
      const list: string[] = [];
      for (let i = 0; i < items && left > 0; i++) {
        const n = Math.min(left, 3 + int(random, 6));
        list.push(`- ${title(prose(v, random, n))}`);
        left -= n;
      }
      parts.push(`## ${title(contentWord(v, random))}`, list.join('\n'));
    } else {
      const n = Math.min(left, 15 + int(random, 40));
      const sentences: string[] = [];
      let used = 0;
      while (used < n) {
        const m = Math.min(n - used, 6 + int(random, 12));
        sentences.push(sentence(v, random, m));
        used += m;
      }
      if (random() < 0.1)
        sentences.push(`See [the wiki](https://example.test/wiki/${int(random, 100_000)}).`);
      parts.push(sentences.join(' '));
      left -= n;
    }
  }
  return parts.join('\n\n');
}
