import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';
import { analyzeNewIndex } from './statistics.js';

/**
 * Each resource column a list sorts by, with the tag link column that copies it (`resource_<column>`), and the
 * status that decides whether the link is in the sorted indexes (APPROVED only: the public lists').
 */
const TAG_LINK_KEYS = ['status', 'created_at', 'updated_at', 'downloads', 'like_count', 'name_key'] as const;
/** The sorted indexes: one per sort column, the tag first, the resource id breaking ties. */
const TAG_LINK_SORTS = ['created_at', 'updated_at', 'downloads', 'like_count', 'name_key'] as const;

const linkColumn = (key: (typeof TAG_LINK_KEYS)[number]) => `resource_${key}`;
const linkColumns = sql.join(TAG_LINK_KEYS.map((key) => sql.ref(linkColumn(key))));
const resourceColumns = (table: string) => sql.join(TAG_LINK_KEYS.map((key) => sql.ref(`${table}.${key}`)));
const indexName = (sort: (typeof TAG_LINK_SORTS)[number]) => `resource_tag_links_approved_${sort}_idx`;
/** PostgreSQL: any sort key of a resources row changed (`old`, `new`). */
const keysChanged = sql.raw(
  TAG_LINK_KEYS.map((key) => `old.${key} is distinct from new.${key}`).join(' or '),
);
const sqliteKeyTrigger = (key: (typeof TAG_LINK_KEYS)[number]) => `resources_tag_link_${key}_au`;

/**
 * Tag links carry their resource's sort keys and status (issue 17), so that one tag's page in any order is read
 * from an index of its own link rows: `(tag_id, <key>, resource_id) where resource_status = 'APPROVED'`. Without
 * them a tag's deep page (page 50, 1,000 rows in) either walked the whole sort index testing each row against the
 * tag (~1,000 / the tag's share of the rows: 128,000 for a tag on 0.8%) or read every member of the tag and
 * sorted them: 19–40 ms at 1M (p50, by machine) on both dialects whatever the tag's size. From the link rows
 * it reads the page's end in index entries.
 * Kept in step by triggers, whichever path writes: a link takes its resource's keys when inserted; a change of
 * any key on a resource (a download, a like, an edit, moderation) rewrites its links' copies in the same
 * statement, so the copies never differ from the resource in any transaction's view (PostgreSQL: one trigger
 * when any key is distinct; SQLite: one per key, below). Cost at 1M: each such change also rewrites the
 * resource's tag links (1–5, 2.4 on average), +0.2 ms of database time a download or like on PostgreSQL,
 * +0.3 ms on SQLite; the links' rows and indexes grow (sizes in docs/deploy.md).
 */
export function tagLinkSortKeys({ dialect, ts }: MigrationContext) {
  const columnTypes: Record<(typeof TAG_LINK_KEYS)[number], string> = {
    status: 'text',
    created_at: ts,
    updated_at: ts,
    downloads: 'integer',
    like_count: 'integer',
    name_key: 'text',
  };
  const newLinkColumns = sql.raw(TAG_LINK_KEYS.map((key) => `new.${linkColumn(key)}`).join(', '));
  const newResourceColumns = sql.raw(TAG_LINK_KEYS.map((key) => `new.${key}`).join(', '));
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      for (const key of TAG_LINK_KEYS) {
        const type = sql.raw(columnTypes[key]);
        // SQLite cannot add a NOT NULL column without a default; its insert trigger replaces it at once.
        const fallback = sql.raw(columnTypes[key] === 'integer' ? '0' : "''");
        await (
          dialect === 'postgres'
            ? sql`alter table resource_tag_links add column ${sql.ref(linkColumn(key))} ${type}`
            : sql`alter table resource_tag_links add column ${sql.ref(linkColumn(key))} ${type}
              not null default ${fallback}`
        ).execute(db);
      }
      if (dialect === 'postgres') {
        await sql`update resource_tag_links l set (${linkColumns}) = (${resourceColumns('r')})
          from resources r where r.id = l.resource_id`.execute(db);
        for (const key of TAG_LINK_KEYS) {
          await sql`alter table resource_tag_links alter column ${sql.ref(linkColumn(key))} set not null`.execute(
            db,
          );
        }
        await sql`
          create function resource_tag_links_keys() returns trigger language plpgsql as $$
          begin
            select ${resourceColumns('r')} into ${newLinkColumns} from resources r where r.id = new.resource_id;
            return new;
          end $$`.execute(db);
        await sql`
          create trigger resource_tag_links_keys_bi before insert on resource_tag_links
          for each row execute function resource_tag_links_keys()`.execute(db);
        await sql`
          create function resources_tag_link_keys() returns trigger language plpgsql as $$
          begin
            update resource_tag_links set (${linkColumns}) = (${newResourceColumns}) where resource_id = new.id;
            return null;
          end $$`.execute(db);
        await sql`
          create trigger resources_tag_link_keys_au after update on resources
          for each row when (${keysChanged}) execute function resources_tag_link_keys()`.execute(db);
      } else {
        await sql`update resource_tag_links set (${linkColumns}) =
          (select ${resourceColumns('r')} from resources r where r.id = resource_tag_links.resource_id)`.execute(
          db,
        );
        await sql`
          create trigger resource_tag_links_keys_ai after insert on resource_tag_links begin
            update resource_tag_links set (${linkColumns}) =
              (select ${resourceColumns('r')} from resources r where r.id = new.resource_id)
            where resource_id = new.resource_id and tag_id = new.tag_id;
          end`.execute(db);
        // One trigger per key: SQLite rewrites every index that holds a column its UPDATE sets, changed or
        // not, so a download sets the downloads copy alone (at 1M: +0.6 ms an update setting all six).
        for (const key of TAG_LINK_KEYS) {
          await sql`
            create trigger ${sql.id(sqliteKeyTrigger(key))} after update of ${sql.ref(key)} on resources
            when old.${sql.ref(key)} is not new.${sql.ref(key)} begin
              update resource_tag_links set ${sql.ref(linkColumn(key))} = new.${sql.ref(key)}
              where resource_id = new.id;
            end`.execute(db);
        }
      }
      for (const sort of TAG_LINK_SORTS) {
        await sql`create index ${sql.id(indexName(sort))}
          on resource_tag_links (tag_id, ${sql.ref(linkColumn(sort))}, resource_id)
          where resource_status = 'APPROVED'`.execute(db);
      }
      for (const sort of TAG_LINK_SORTS)
        await analyzeNewIndex(db, dialect, 'resource_tag_links', indexName(sort));
    },
    async down(db: Kysely<unknown>): Promise<void> {
      for (const sort of TAG_LINK_SORTS) await sql`drop index ${sql.id(indexName(sort))}`.execute(db);
      if (dialect === 'postgres') {
        await sql`drop trigger resources_tag_link_keys_au on resources`.execute(db);
        await sql`drop function resources_tag_link_keys()`.execute(db);
        await sql`drop trigger resource_tag_links_keys_bi on resource_tag_links`.execute(db);
        await sql`drop function resource_tag_links_keys()`.execute(db);
      } else {
        for (const key of TAG_LINK_KEYS) await sql`drop trigger ${sql.id(sqliteKeyTrigger(key))}`.execute(db);
        await sql`drop trigger resource_tag_links_keys_ai`.execute(db);
      }
      for (const key of TAG_LINK_KEYS)
        await sql`alter table resource_tag_links drop column ${sql.ref(linkColumn(key))}`.execute(db);
    },
  };
}
