// `seedScale`: a realistic catalogue of any size written straight into a migrated database (bulk statements in
// big transactions; nothing dropped, every index maintained), with everything the application derives kept as it
// keeps it: catalog_refs, status/type counters, usage counts, team counts, the catalogue and directory versions,
// server ranks, and finally the search indexes (rebuildSearchIndexes). Deterministic for a seed.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { v7 } from 'uuid';
import { DEFAULT_RANK_WEIGHTS } from '../../src/config.js';
import { digest, displayPrefix, newApiKey } from '../../src/core/auth/credentials.js';
import { formatScopes, scopesForRole } from '../../src/core/auth/scopes.js';
import type { DialectName } from '../../src/core/db/database.js';
import type { DB, ResourceType } from '../../src/core/db/schema.js';
import { RESOURCE_STATUSES, RESOURCE_TYPES } from '../../src/modules/resources/resources.schemas.js';
import { recomputeRanks } from '../../src/modules/servers/rank/rank.repo.js';
import { rebuildSearchIndexes, SEARCH_INDEXES } from '../../src/modules/search/rebuild.js';
import type { SearchIndexName } from '../../src/modules/search/rebuild.js';
import { bulkInsert, bulkLoader } from './bulk.js';
import type { BulkLoader, Row } from './bulk.js';
import { seedServersAt } from './seed-servers.js';
import { idAt, int, logNormal, prng, weighted, zipf } from './random.js';
import { descriptionOf, nameOf, shortDescriptionOf, slugOf, vocabulary } from './text.js';
import type { Vocabulary } from './text.js';

export interface ScaleSeedOptions {
  resources: number;
  /** Default: one per 5 resources. */
  servers?: number;
  /** Default: one per 10 resources, at least 100. */
  users?: number;
  /** Default: one per 50 users, at least 10. */
  teams?: number;
  seed?: number;
  /** Rebuild the search indexes at the end (default true); false leaves them to the caller. */
  rebuild?: boolean;
  /** Progress lines (phase and counts). */
  onProgress?: (message: string) => void;
  /** SQLite: the database's file, so the big tables are written through prepared statements (bulk.ts). */
  sqliteFile?: string;
}

export interface ScaleSeedResult {
  /** Seconds per phase. */
  phases: Record<string, number>;
  /** API keys the benchmark sends: an ordinary author and a moderator. */
  authorKey: string;
  moderatorKey: string;
  vocabulary: Vocabulary;
  counts: { resources: number; approvedResources: number; servers: number; users: number; teams: number };
}

const TYPES = weighted<ResourceType>([
  ['MOD', 35],
  ['PLUGIN', 25],
  ['ASSET_PACK', 10],
  ['DATA_PACK', 8],
  ['WORLD', 8],
  ['PREFAB', 6],
  ['MODPACK', 5],
  ['PREMADE_SERVER', 3],
]);
const STATUSES = weighted([
  ['APPROVED', 90],
  ['PENDING', 5],
  ['REJECTED', 3],
  ['SUSPENDED', 2],
] as const);
const CHUNK = 20_000;
const DAY = 86_400_000;
/** The catalogue spans three years up to now. */
const SPAN = 3 * 365 * DAY;

const iso = (ms: number) => new Date(ms).toISOString();

/** Adds n to a Map counter. */
const bump = (map: Map<string, number>, key: string, n = 1) => map.set(key, (map.get(key) ?? 0) + n);

async function timed<T>(phases: Record<string, number>, phase: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await work();
  phases[phase] = (phases[phase] ?? 0) + (performance.now() - started) / 1000;
  return result;
}

/** A write transaction tuned for bulk loading (PostgreSQL: no wait for the WAL flush at each commit). */
async function bulkTransaction(
  db: Kysely<DB>,
  dialect: DialectName,
  work: (trx: Kysely<DB>) => Promise<void>,
) {
  await db.transaction().execute(async (trx) => {
    if (dialect === 'postgres') await sql`set local synchronous_commit = off`.execute(trx);
    await work(trx);
  });
}

export async function seedScale(
  db: Kysely<DB>,
  dialect: DialectName,
  options: ScaleSeedOptions,
): Promise<ScaleSeedResult> {
  const loader = bulkLoader(db, dialect, options.sqliteFile);
  try {
    return await seedWith(db, dialect, loader, options);
  } finally {
    loader.close();
  }
}

async function seedWith(
  db: Kysely<DB>,
  dialect: DialectName,
  loader: BulkLoader,
  options: ScaleSeedOptions,
): Promise<ScaleSeedResult> {
  const seed = options.seed ?? 17;
  const log = options.onProgress ?? (() => undefined);
  const random = prng(seed);
  const v = vocabulary(seed);
  const resourceCount = options.resources;
  const userCount = options.users ?? Math.max(100, Math.floor(resourceCount / 10));
  const teamCount = options.teams ?? Math.max(10, Math.floor(userCount / 50));
  const serverCount = options.servers ?? Math.floor(resourceCount / 5);
  const phases: Record<string, number> = {};
  const now = Date.now();
  if (dialect === 'sqlite') {
    // Seeding only: a big page cache for the index inserts; durability of a benchmark database does not matter.
    await sql`pragma cache_size = -524288`.execute(db);
    await sql`pragma synchronous = off`.execute(db);
  }

  // --- catalogs: ~100 extra tags (so the long tail exists) and more game versions -------------------------
  await timed(phases, 'catalogs', async () => {
    const existing = new Set(
      (await db.selectFrom('resource_tags').select('slug').execute()).map((t) => t.slug),
    );
    const extra = v.content.filter((word) => word.length >= 3 && !existing.has(word)).slice(40, 140);
    const at = iso(now - SPAN);
    await bulkTransaction(db, dialect, async (trx) => {
      await bulkInsert(
        trx,
        dialect,
        'resource_tags',
        extra.map((word) => ({
          id: v7(),
          name: word.charAt(0).toUpperCase() + word.slice(1),
          slug: word,
          description: null,
          usage_count: 0,
          created_at: at,
          updated_at: at,
        })),
      );
      await sql`update counters set value = value + ${extra.length} where name = 'resource_tags'`.execute(
        trx,
      );
      const top = await trx
        .selectFrom('game_versions')
        .select((eb) => eb.fn.max('release_order').as('top'))
        .executeTakeFirst();
      const names = ['1.5', '1.6', '1.7', '1.8', '1.9', '2.0', '2.1'];
      await bulkInsert(
        trx,
        dialect,
        'game_versions',
        names.map((name, i) => ({
          id: v7(),
          name,
          release_order: Number(top?.top ?? 0) + i + 1,
          released_at: null,
          created_at: at,
          updated_at: at,
        })),
      );
    });
  });

  // --- users, teams, the benchmark's own accounts --------------------------------------------------------
  const userIds: string[] = [];
  const teamIds: string[] = [];
  const keys = await timed(phases, 'users', async () => {
    for (let start = 0; start < userCount; start += CHUNK) {
      const rows: Row[] = [];
      for (let i = start; i < Math.min(userCount, start + CHUNK); i++) {
        const created = now - SPAN - DAY + Math.floor((i / userCount) * SPAN);
        const first = v.content[v.contentRank(random)]!;
        const second = v.content[v.contentRank(random)]!;
        const username = `${first}_${second}${i}`.slice(0, 32);
        const id = idAt(created, random);
        userIds.push(id);
        rows.push({
          id,
          username,
          username_key: username.toLowerCase(),
          email: `${username}@example.test`,
          password_hash: null,
          display_name: `${first.charAt(0).toUpperCase()}${first.slice(1)} ${second}`,
          bio: shortDescriptionOf(v, random),
          location: null,
          website: null,
          image_key: null,
          banner_key: null,
          role: 'USER',
          status: 'ACTIVE',
          suspended_until: null,
          follower_count: 0,
          following_count: 0,
          created_at: iso(created),
          updated_at: iso(created),
        });
      }
      await loader.load((insert) => insert('users', rows));
    }
    const teamRows: Row[] = [];
    const memberRows: Row[] = [];
    for (let i = 0; i < teamCount; i++) {
      const created = now - SPAN + Math.floor((i / teamCount) * SPAN * 0.5);
      const name = `${nameOf(v, random)} Studio`.slice(0, 100);
      const id = idAt(created, random);
      const owner = userIds[int(random, userIds.length)]!;
      teamIds.push(id);
      teamRows.push({
        id,
        name,
        slug: slugOf(name, i.toString(36)),
        description: shortDescriptionOf(v, random),
        logo_key: null,
        banner_key: null,
        owner_id: owner,
        member_count: 1,
        resource_count: 0,
        server_count: 0,
        created_at: iso(created),
        updated_at: iso(created),
      });
      memberRows.push({ team_id: id, user_id: owner, role: 'OWNER', created_at: iso(created) });
    }
    const accounts = ['USER', 'MODERATOR'].map((role) => ({ role, key: newApiKey(), id: v7() }));
    await bulkTransaction(db, dialect, async (trx) => {
      await bulkInsert(trx, dialect, 'teams', teamRows);
      await bulkInsert(trx, dialect, 'team_members', memberRows);
      await sql`update counters set value = value + ${teamCount} where name = 'teams'`.execute(trx);
      for (const { role, key, id } of accounts) {
        const username = `scale_${role.toLowerCase()}`;
        await trx
          .insertInto('users')
          .values({
            id,
            username,
            username_key: username,
            email: `${username}@example.test`,
            password_hash: null,
            display_name: username,
            bio: null,
            location: null,
            website: null,
            image_key: null,
            banner_key: null,
            role: role as 'USER' | 'MODERATOR',
            status: 'ACTIVE',
            suspended_until: null,
            created_at: iso(now - SPAN),
            updated_at: iso(now - SPAN),
          })
          .execute();
        await trx
          .insertInto('api_keys')
          .values({
            id: v7(),
            user_id: id,
            name: 'scale benchmark',
            prefix: displayPrefix(key),
            key_hash: digest(key),
            created_at: iso(now - SPAN),
            last_used_at: null,
            last_used_ip: null,
            expires_at: null,
            revoked_at: null,
            scopes: formatScopes(scopesForRole(role as 'USER' | 'MODERATOR')),
            team_id: null,
          })
          .execute();
      }
    });
    log(`  users ${userCount}, teams ${teamCount}`);
    return { authorKey: accounts[0]!.key, moderatorKey: accounts[1]!.key };
  });

  // --- resources with their links, catalog_refs and counters --------------------------------------------
  const approved = await timed(phases, 'resources', () =>
    seedResourceRows(db, dialect, loader, { count: resourceCount, random, v, userIds, teamIds, now, log }),
  );

  // --- servers (rank computed by the application's own recompute) -----------------------------------------
  await timed(phases, 'servers', () =>
    seedServersAt(db, loader, { count: serverCount, random, v, userIds, teamIds, now, span: SPAN }),
  );
  await timed(phases, 'ranks', () => recomputeRanks(db, dialect, new Date(now), DEFAULT_RANK_WEIGHTS));
  log(`  servers ${serverCount}`);

  // --- search indexes, derived from all of the above --------------------------------------------------------
  // Exclusive: nothing else writes, so each index is loaded in one transaction with its per-row upkeep set aside
  // (modules/search/rebuild.ts). One phase per index.
  let lastLog = 0;
  if (options.rebuild !== false) {
    for (const index of Object.keys(SEARCH_INDEXES) as SearchIndexName[]) {
      await timed(phases, `search ${index}`, () =>
        rebuildSearchIndexes(
          db,
          dialect,
          ({ done, total }) => {
            if (performance.now() - lastLog > 5_000 || done === total) {
              lastLog = performance.now();
              log(`  search ${index}: ${done}/${total}`);
            }
          },
          [index],
          { exclusive: true },
        ),
      );
    }
  }
  if (dialect === 'sqlite') await sql`pragma synchronous = full`.execute(db);
  return {
    phases,
    ...keys,
    vocabulary: v,
    counts: {
      resources: resourceCount,
      approvedResources: approved,
      servers: serverCount,
      users: userCount,
      teams: teamCount,
    },
  };
}

interface ResourceSeedContext {
  count: number;
  random: () => number;
  v: Vocabulary;
  userIds: string[];
  teamIds: string[];
  now: number;
  log: (message: string) => void;
}

/** Writes the resources in transactions of CHUNK resources; returns how many are APPROVED. */
async function seedResourceRows(
  db: Kysely<DB>,
  dialect: DialectName,
  loader: BulkLoader,
  c: ResourceSeedContext,
): Promise<number> {
  const { random, v, now } = c;
  const [categories, tags, versions] = await Promise.all([
    db
      .selectFrom('resource_categories')
      .select(['id', 'name', 'slug', 'resource_type', 'position'])
      .orderBy('position')
      .orderBy('id')
      .execute(),
    db.selectFrom('resource_tags').select(['id', 'name', 'slug']).orderBy('name').orderBy('id').execute(),
    db
      .selectFrom('game_versions')
      .select(['id', 'name', 'release_order'])
      .orderBy('release_order', 'desc')
      .orderBy('id')
      .execute(),
  ]);
  // Tags by popularity: a fixed shuffle of the catalogue, so popular tags are not simply the first by name.
  const tagRandom = prng(99);
  const tagsByPopularity = [...tags].sort(() => tagRandom() - 0.5);
  const tagPosition = new Map(tags.map((tag, i) => [tag.id, i]));
  const tagRank = zipf(tags.length, 1.1);
  const userRank = zipf(c.userIds.length, 0.8);
  const teamRank = zipf(c.teamIds.length, 0.8);
  const categoriesByType = new Map<string, typeof categories>();
  for (const category of categories) {
    categoriesByType.set(category.resource_type, [
      ...(categoriesByType.get(category.resource_type) ?? []),
      category,
    ]);
  }

  const statusCounts = new Map<string, number>();
  const approvedByType = new Map<string, number>();
  const categoryUsage = new Map<string, number>();
  const tagUsage = new Map<string, number>();
  const tagTypeUsage = new Map<string, number>();
  const teamResources = new Map<string, number>();
  let approved = 0;
  let lastLog = performance.now();
  // PostgreSQL inserts a chunk in its own process while the next one is generated here.
  let pending: Promise<void> = Promise.resolve();
  for (let start = 0; start < c.count; start += CHUNK) {
    const resources: Row[] = [];
    const categoryLinks: Row[] = [];
    const tagLinks: Row[] = [];
    const versionLinks: Row[] = [];
    for (let i = start; i < Math.min(c.count, start + CHUNK); i++) {
      const type = TYPES(random);
      const status = STATUSES(random);
      const created = now - SPAN + Math.floor((i / c.count) * SPAN) + int(random, 60_000);
      const updated = Math.min(now, created + logNormal(random, 15, 2.5));
      const onTeam = random() < 0.1;
      const ownerId = onTeam ? c.teamIds[teamRank(random)]! : c.userIds[userRank(random)]!;
      if (onTeam) bump(teamResources, ownerId);
      const name = nameOf(v, random);
      const id = idAt(created, random);
      const downloads = Math.min(50_000_000, logNormal(random, 5, 2.2));
      const likes = Math.floor(downloads * Math.min(1, logNormal(random, -3.5, 0.8) / 10));

      const typeCategories = categoriesByType.get(type) ?? [];
      const chosenCategories = new Set<(typeof categories)[number]>();
      const categoryCount = random() < 0.7 ? 1 : 2;
      while (chosenCategories.size < Math.min(categoryCount, typeCategories.length)) {
        chosenCategories.add(typeCategories[int(random, typeCategories.length)]!);
      }
      const tagRoll = random();
      const tagCount = tagRoll < 0.3 ? 1 : tagRoll < 0.6 ? 2 : tagRoll < 0.8 ? 3 : tagRoll < 0.93 ? 4 : 5;
      const chosenTags = new Set<(typeof tags)[number]>();
      while (chosenTags.size < tagCount) chosenTags.add(tagsByPopularity[tagRank(random)]!);
      // Game versions: a run of 1–6 consecutive releases, usually ending at one of the newest.
      const versionCount = 1 + Math.min(5, Math.floor(logNormal(random, 0.3, 0.8)));
      const newest = Math.min(versions.length - 1, Math.floor(logNormal(random, 0, 1.2)));
      const chosenVersions = versions.slice(newest, Math.min(versions.length, newest + versionCount));

      const refCategories = categories.filter((category) => chosenCategories.has(category));
      const refTags = [...chosenTags].sort((a, b) => tagPosition.get(a.id)! - tagPosition.get(b.id)!);
      for (const category of refCategories) {
        categoryLinks.push({ resource_id: id, category_id: category.id });
        bump(categoryUsage, category.id);
      }
      for (const tag of refTags) {
        tagLinks.push({ resource_id: id, tag_id: tag.id });
        bump(tagUsage, tag.id);
        bump(tagTypeUsage, `${tag.id} ${type}`);
      }
      for (const version of chosenVersions)
        versionLinks.push({ resource_id: id, game_version_id: version.id });
      bump(statusCounts, status);
      if (status === 'APPROVED') {
        approved += 1;
        bump(approvedByType, type);
      }
      resources.push({
        id,
        name,
        name_key: name.toLowerCase(),
        slug: slugOf(name, i.toString(36)),
        short_description: shortDescriptionOf(v, random),
        description: descriptionOf(v, random, name),
        type,
        status,
        owner_type: onTeam ? 'TEAM' : 'USER',
        owner_id: ownerId,
        icon_key: null,
        banner_key: null,
        downloads,
        like_count: likes,
        favorite_count: Math.floor(likes / 3),
        catalog_refs: JSON.stringify({
          categories: refCategories.map(({ id, name, slug }) => ({ id, name, slug })),
          tags: refTags.map(({ id, name, slug }) => ({ id, name, slug })),
          gameVersions: chosenVersions.map(({ id, name }) => ({ id, name })),
        }),
        latest_version_id: null,
        approved_at: status === 'APPROVED' || status === 'SUSPENDED' ? iso(created + DAY) : null,
        created_at: iso(created),
        updated_at: iso(Math.max(updated, created)),
      });
    }
    await pending;
    pending = loader.load(async (insert) => {
      await insert('resources', resources);
      await insert('resource_category_links', categoryLinks, 20_000);
      await insert('resource_tag_links', tagLinks, 20_000);
      await insert('resource_game_versions', versionLinks, 20_000);
    });
    if (performance.now() - lastLog > 5_000) {
      lastLog = performance.now();
      c.log(`  resources ${Math.min(c.count, start + CHUNK)}/${c.count}`);
    }
  }
  await pending;

  await bulkTransaction(db, dialect, async (trx) => {
    const set = (name: string, value: number) =>
      sql`update counters set value = ${value} where name = ${name}`.execute(trx);
    for (const status of RESOURCE_STATUSES) {
      await set(`resources.status.${status}`, statusCounts.get(status) ?? 0);
    }
    for (const type of RESOURCE_TYPES) {
      await set(`resources.approved.${type}`, approvedByType.get(type) ?? 0);
    }
    await sql`update counters set value = value + 1 where name = 'resources.catalogue_version'`.execute(trx);
    for (const [id, usage] of categoryUsage) {
      await trx.updateTable('resource_categories').set({ usage_count: usage }).where('id', '=', id).execute();
    }
    for (const [id, usage] of tagUsage) {
      await trx.updateTable('resource_tags').set({ usage_count: usage }).where('id', '=', id).execute();
    }
    const typeRows = [...tagTypeUsage].map(([key, usage]) => {
      const [tagId, type] = key.split(' ') as [string, string];
      return { tag_id: tagId, resource_type: type, usage_count: usage };
    });
    await bulkInsert(trx, dialect, 'resource_tag_type_usage', typeRows);
    for (const [id, owned] of teamResources) {
      await trx.updateTable('teams').set({ resource_count: owned }).where('id', '=', id).execute();
    }
  });
  return approved;
}
