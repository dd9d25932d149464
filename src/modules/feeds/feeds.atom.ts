// Feed rows → Atom 1.0 documents (the `feed` package writes the XML). Everything a document holds comes from the
// rows, never from the current time, so an unchanged feed renders to the same bytes and keeps its ETag.
import { Feed } from 'feed';
import { parseCatalogRefs } from '../resources/catalog-refs.repo.js';
import type { FeedResourceRow, FeedVersionRow, OwnerColumns } from './feeds.repo.js';

export interface AtomAuthor {
  name: string;
  uri: string;
}

export interface AtomEntry {
  /** The object's ID (UUIDv7, time-ordered): breaks ties between entries published at the same instant. */
  id: string;
  /** Also the entry's id: the object's API URL under PUBLIC_URL. */
  url: string;
  /** Plain text. */
  title: string;
  /** Plain text. */
  summary?: string;
  /** Sanitized HTML. */
  contentHtml?: string | null;
  author: AtomAuthor;
  /** Category terms: resource type, catalog slugs, version channel. */
  terms: string[];
  published: Date;
  updated: Date;
}

export interface AtomDocument {
  /** The feed's own URL: its id and rel="self" link. */
  selfUrl: string;
  /** What the feed is about (rel="alternate"). */
  url: string;
  title: string;
  subtitle: string;
  author?: AtomAuthor;
  /** Newest first, at most FEED_SIZE. */
  entries: AtomEntry[];
  /** `<updated>` of a feed without entries. */
  emptyUpdated: Date;
}

/**
 * The `feed` package writes entry titles and summaries as type="html", where markup is markup: plain text
 * (names, short descriptions) is escaped so a name like "<b>Mod</b>" reads as written.
 */
const escapeHtml = (text: string): string =>
  text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');

const later = (a: string, b: string): Date => new Date(a > b ? a : b);

export function renderAtom(document: AtomDocument): string {
  const newest = document.entries.reduce<Date | null>(
    (max, entry) => (max === null || entry.updated > max ? entry.updated : max),
    null,
  );
  const feed = new Feed({
    id: document.selfUrl,
    title: document.title,
    description: document.subtitle,
    link: document.url,
    feed: document.selfUrl,
    updated: newest ?? document.emptyUpdated,
    ...(document.author !== undefined
      ? { author: { name: document.author.name, link: document.author.uri } }
      : {}),
    generator: false,
  });
  for (const entry of document.entries) {
    feed.addItem({
      id: entry.url,
      link: entry.url,
      title: escapeHtml(entry.title),
      ...(entry.summary !== undefined && entry.summary !== ''
        ? { description: escapeHtml(entry.summary) }
        : {}),
      ...(entry.contentHtml ? { content: entry.contentHtml } : {}),
      author: [{ name: entry.author.name, link: entry.author.uri }],
      // Terms only: they are slugs and enum values, safe as XML attributes as they are.
      category: entry.terms.map((term) => ({ term })),
      published: entry.published,
      date: entry.updated,
    });
  }
  return feed.atom1();
}

/** URLs under PUBLIC_URL for the objects the feeds link to. */
export function feedUrls(publicUrl: string) {
  const base = publicUrl.replace(/\/+$/, '');
  return {
    resource: (id: string) => `${base}/resources/${id}`,
    version: (resourceId: string, id: string) => `${base}/resources/${resourceId}/versions/${id}`,
    user: (id: string) => `${base}/users/${id}`,
    team: (id: string) => `${base}/teams/${id}`,
    at: (path: string) => `${base}${path}`,
  };
}

export type FeedUrls = ReturnType<typeof feedUrls>;

export function ownerAuthor(row: OwnerColumns, urls: FeedUrls): AtomAuthor {
  if (row.owner_type === 'TEAM') return { name: row.owner_team_name ?? 'Team', uri: urls.team(row.owner_id) };
  return {
    name: row.owner_display_name ?? row.owner_username ?? 'User',
    uri: urls.user(row.owner_id),
  };
}

export function resourceEntry(row: FeedResourceRow, urls: FeedUrls): AtomEntry {
  const { categories, tags } = parseCatalogRefs(row.catalog_refs);
  return {
    id: row.id,
    url: urls.resource(row.id),
    title: row.name,
    summary: row.short_description,
    author: ownerAuthor(row, urls),
    terms: [row.type, ...categories.map((category) => category.slug), ...tags.map((tag) => tag.slug)],
    published: new Date(row.approved_at),
    updated: later(row.approved_at, row.updated_at),
  };
}

export function versionEntry(row: FeedVersionRow, author: AtomAuthor, urls: FeedUrls): AtomEntry {
  const label = `${row.resource_name} ${row.version_number}`;
  return {
    id: row.id,
    url: urls.version(row.resource_id, row.id),
    title: row.name === null || row.name === '' ? label : `${label}: ${row.name}`,
    contentHtml: row.changelog,
    author,
    terms: [row.channel],
    published: new Date(row.approved_at),
    updated: later(row.approved_at, row.updated_at),
  };
}

/** Merges entry lists already sorted newest first, keeping the newest `size`. */
export function newestFirst(lists: AtomEntry[][], size: number): AtomEntry[] {
  return lists
    .flat()
    .sort((a, b) => b.published.getTime() - a.published.getTime() || (a.id < b.id ? 1 : -1))
    .slice(0, size);
}
