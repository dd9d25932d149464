// The brute-force side of the phrase rule (src/modules/search/text.ts): words typed joined ("red-foxes") must
// stand adjacent and in order within one field, the last one as a prefix when it is still being typed.
import { parseSearch } from '../../src/modules/search/text.js';

/** Whether every phrase of the search occurs within one of the fields (each a list of folded words in order). */
export function phrasesHold(fields: string[][], search: string): boolean {
  const query = parseSearch(search);
  if (query === null) return true;
  return query.phrases.every((phrase) =>
    fields.some((field) =>
      field.some((_, start) =>
        phrase.words.every((word, offset) => {
          const have = field[start + offset];
          if (have === undefined) return false;
          return phrase.prefix && offset === phrase.words.length - 1 ? have.startsWith(word) : have === word;
        }),
      ),
    ),
  );
}
