// Thread messages are markdown shown next to changelogs, so they are cleaned by the very same sanitizer (no
// scripts, event handlers, styles, or links other than http, https and mailto). Markdown's own link syntax is
// not HTML, so the sanitizer cannot see it: a markdown link or image whose destination has another scheme
// (javascript:, data:, vbscript: …) keeps its text and loses its destination.
import { sanitizeChangelog } from '../../versions/changelog.js';

export const MAX_MESSAGE_LENGTH = 10_000;

// [text](destination "title") and ![alt](…); the destination may be wrapped in <…> and hold one level of (…).
const MARKDOWN_LINK = /(!?\[[^\]]*\])\(\s*<?((?:[^()\s>]|\([^()\s]*\))*)>?([^)]*)\)/g;
// Reference definitions: [label]: destination.
const MARKDOWN_REFERENCE = /^(\s{0,3}\[[^\]]+\]:\s*)<?(\S+?)>?(\s.*)?$/gm;
const SAFE_DESTINATION = /^(?:https?:|mailto:|#|\/(?!\/)|[^:/?#]*(?:[/?#]|$))/i;

function safeDestination(destination: string): boolean {
  // Entities and control characters can hide a scheme (java&#115;cript:, java\tscript:): decode what matters.
  const plain = destination
    .replace(/&#x([0-9a-f]+);?/gi, (_, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
    .replace(/&#(\d+);?/g, (_, dec: string) => String.fromCodePoint(Number(dec)))
    .replace(/&colon;/gi, ':')
    // eslint-disable-next-line no-control-regex -- control characters are exactly what is stripped here
    .replace(/[\u0000-\u0020\u007f]/g, '');
  return SAFE_DESTINATION.test(plain);
}

function dropUnsafeMarkdownLinks(text: string): string {
  return text
    .replace(MARKDOWN_LINK, (whole, label: string, destination: string) =>
      safeDestination(destination) ? whole : label.startsWith('!') ? label.slice(1) : label,
    )
    .replace(MARKDOWN_REFERENCE, (whole, label: string, destination: string) =>
      safeDestination(destination) ? whole : label,
    );
}

/** The stored form of a message body: sanitized, or null when nothing is left. */
export function sanitizeMessageBody(markdown: string): string | null {
  // Links are checked after the HTML pass (removing a tag can join a scheme back together), and until nothing
  // changes (dropping one destination can put the next one right behind a label).
  let text = sanitizeChangelog(markdown);
  for (let previous = null; text !== null && text !== previous;) {
    previous = text;
    text = dropUnsafeMarkdownLinks(text).trim() || null;
  }
  return text;
}
