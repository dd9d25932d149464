// Seeds a realistic data set straight through Kysely (bulk inserts; no password hashing per row).
// Modules add their own seeders here as they arrive; each returns the targets the benchmark hits.
import type { Insertable, Kysely } from 'kysely';
import { DEFAULT_RANK_WEIGHTS } from '../src/config.js';
import type { DialectName } from '../src/core/db/database.js';
import type { DB } from '../src/core/db/schema.js';
import { digest, displayPrefix, newApiKey } from '../src/core/auth/credentials.js';
import { newId } from '../src/core/ids.js';
import { recomputeRanks } from '../src/modules/servers/rank/rank.repo.js';

export interface SeedResult {
  /** Named values the endpoint list interpolates into paths (e.g. a user id). */
  targets: Record<string, string>;
}

const BATCH = 500;

async function insertInBatches<T>(rows: T[], insert: (batch: T[]) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < rows.length; i += BATCH) await insert(rows.slice(i, i + BATCH));
}

export async function seedUsers(db: Kysely<DB>, count: number): Promise<SeedResult> {
  const now = Date.now();
  const users = Array.from({ length: count }, (_, i) => {
    const at = new Date(now - (count - i) * 60_000).toISOString();
    return {
      id: newId(),
      username: `player_${i}`,
      username_key: `player_${i}`,
      email: `player_${i}@example.test`,
      password_hash: null,
      display_name: `Player ${i}`,
      bio: `Builder of things #${i}. Likes redstone, mods and long walks in the nether.`,
      location: 'Somewhere',
      website: `https://example.test/${i}`,
      image_key: null,
      banner_key: null,
      role: 'USER' as const,
      status: 'ACTIVE' as const,
      suspended_until: null,
      follower_count: 0,
      following_count: 0,
      created_at: at,
      updated_at: at,
    };
  });
  await insertInBatches(users, (batch) => db.insertInto('users').values(batch).execute());

  // The profile under test: some social links and a few hundred followers (counters as the app keeps them).
  const star = users[Math.floor(count / 2)]!;
  const followers = users.slice(0, Math.min(300, count - 1)).filter((user) => user.id !== star.id);
  await insertInBatches(followers, (batch) =>
    db
      .insertInto('follows')
      .values(
        batch.map((f) => ({
          follower_id: f.id,
          following_id: star.id,
          created_at: new Date().toISOString(),
        })),
      )
      .execute(),
  );
  await db.updateTable('users').set({ follower_count: followers.length }).where('id', '=', star.id).execute();
  await db
    .insertInto('social_links')
    .values(
      ['CODE_HOSTING', 'VIDEO_SHARING', 'WEBSITE'].map((platform, position) => ({
        id: newId(),
        owner_type: 'USER',
        owner_id: star.id,
        platform,
        url: `https://example.test/${platform.toLowerCase()}/${star.username}`,
        position,
        created_at: new Date().toISOString(),
      })),
    )
    .execute();
  return { targets: { userId: star.id, username: star.username } };
}

// ---------------------------------------------------------------------------------------------------------------
// Resources: `count` resources (default 100k) over the seeded users and a few hundred teams, with 1–3 tags,
// 1–2 categories of their type and 1–3 game versions each; 90% APPROVED. Counters are set to what they count, as
// the application keeps them (like_count and downloads are plain numbers: no like rows are seeded).

const RESOURCE_TYPES = [
  'MOD',
  'PLUGIN',
  'ASSET_PACK',
  'DATA_PACK',
  'WORLD',
  'PREFAB',
  'MODPACK',
  'PREMADE_SERVER',
] as const;
const WORDS = ['Better', 'Simple', 'Ultimate', 'Tiny', 'Epic', 'Cozy', 'Ancient', 'Modern', 'Magic', 'Swift'];
const NOUNS = [
  'Furniture',
  'Dungeons',
  'Economy',
  'Backpacks',
  'Trees',
  'Biomes',
  'Tools',
  'Mobs',
  'Castles',
  'Maps',
];

/**
 * A deterministic pseudo-random sequence, so every run seeds the same data. The draw takes the state's high
 * bits: an LCG's low bits repeat with a short period (`state % 28` reached only 8 of the 28 tags).
 */
function sequence(seed: number) {
  let state = seed;
  return (n: number) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return Math.floor((state / 2147483648) * n);
  };
}

export async function seedResources(db: Kysely<DB>, count: number): Promise<SeedResult> {
  const random = sequence(42);
  const users = await db.selectFrom('users').select('id').orderBy('id').limit(2000).execute();
  const [categories, tags, versions] = await Promise.all([
    db
      .selectFrom('resource_categories')
      .select(['id', 'name', 'slug', 'resource_type', 'position'])
      .orderBy('position')
      .execute(),
    db.selectFrom('resource_tags').select(['id', 'name', 'slug']).orderBy('name').execute(),
    db
      .selectFrom('game_versions')
      .select(['id', 'name', 'release_order'])
      .orderBy('release_order', 'desc')
      .execute(),
  ]);
  const categoriesByType = new Map<string, typeof categories>();
  for (const category of categories) {
    categoriesByType.set(category.resource_type, [
      ...(categoriesByType.get(category.resource_type) ?? []),
      category,
    ]);
  }

  const now = Date.now();
  const teams = users.slice(0, 200).map((user, i) => {
    const at = new Date(now - 400 * 86_400_000).toISOString();
    return {
      id: newId(),
      name: `Studio ${i}`,
      slug: `studio-${i}`,
      description: null,
      logo_key: null,
      banner_key: null,
      owner_id: user.id,
      member_count: 1,
      resource_count: 0,
      server_count: 0,
      created_at: at,
      updated_at: at,
    };
  });
  await db.transaction().execute(async (trx) => {
    await insertInBatches(teams, (batch) => trx.insertInto('teams').values(batch).execute());
    await insertInBatches(teams, (batch) =>
      trx
        .insertInto('team_members')
        .values(
          batch.map((team) => ({
            team_id: team.id,
            user_id: team.owner_id,
            role: 'OWNER' as const,
            created_at: team.created_at,
          })),
        )
        .execute(),
    );
    await trx
      .updateTable('counters')
      .set((eb) => ({ value: eb('value', '+', teams.length) }))
      .where('name', '=', 'teams')
      .execute();
  });

  const statusCounts = new Map<string, number>();
  const approvedByType = new Map<string, number>();
  const categoryUsage = new Map<string, number>();
  const tagUsage = new Map<string, number>();
  const tagTypeUsage = new Map<string, number>();
  const teamResources = new Map<string, number>();
  let target: { id: string; slug: string } | undefined;
  const targetIndex = Math.floor(count / 2);

  const CHUNK = 5000;
  for (let start = 0; start < count; start += CHUNK) {
    const resources: Array<Insertable<DB['resources']>> = [];
    const categoryLinks: Array<DB['resource_category_links']> = [];
    const tagLinks: Array<Insertable<DB['resource_tag_links']>> = [];
    const versionLinks: Array<DB['resource_game_versions']> = [];
    for (let i = start; i < Math.min(count, start + CHUNK); i++) {
      const type = RESOURCE_TYPES[random(RESOURCE_TYPES.length)]!;
      const roll = random(100);
      // The resource under test (the middle one) must be public.
      const status =
        roll < 90 || i === targetIndex
          ? 'APPROVED'
          : roll < 95
            ? 'PENDING'
            : roll < 98
              ? 'REJECTED'
              : 'SUSPENDED';
      const team = random(10) === 0 ? teams[random(teams.length)]! : undefined;
      const created = new Date(now - (count - i) * 60_000).toISOString();
      const name = `${WORDS[random(WORDS.length)]} ${NOUNS[random(NOUNS.length)]} ${i}`;
      const id = newId();
      resources.push({
        id,
        name,
        name_key: name.toLowerCase(),
        slug: `resource-${i}`,
        short_description: `${name}: a hand-made ${type.toLowerCase().replace('_', ' ')} for builders and explorers.`,
        description: `# ${name}\n\nEverything you need to know about this ${type.toLowerCase()}.\n`.repeat(5),
        type,
        status,
        owner_type: team === undefined ? ('USER' as const) : ('TEAM' as const),
        owner_id: team === undefined ? users[random(users.length)]!.id : team.id,
        icon_key: null,
        banner_key: null,
        downloads: random(100_000),
        like_count: random(5_000),
        favorite_count: random(1_000),
        latest_version_id: null,
        created_at: created,
        updated_at: created,
      });
      statusCounts.set(status, (statusCounts.get(status) ?? 0) + 1);
      if (status === 'APPROVED') approvedByType.set(type, (approvedByType.get(type) ?? 0) + 1);
      if (team !== undefined) teamResources.set(team.id, (teamResources.get(team.id) ?? 0) + 1);
      const typeCategories = categoriesByType.get(type) ?? [];
      const pick = <T>(list: readonly T[], n: number) =>
        new Set(Array.from({ length: n }, () => list[random(list.length)]!));
      // Catalog order, as the application stores catalog_refs.
      const chosenCategories = categories.filter((c) => pick(typeCategories, 2).has(c));
      const tagPicks = pick(tags, 1 + random(3));
      const chosenTags = tags.filter((t) => tagPicks.has(t));
      const versionPicks = pick(versions, 1 + random(3));
      const chosenVersions = versions.filter((v) => versionPicks.has(v));
      for (const category of chosenCategories) {
        categoryLinks.push({ resource_id: id, category_id: category.id });
        categoryUsage.set(category.id, (categoryUsage.get(category.id) ?? 0) + 1);
      }
      for (const tag of chosenTags) {
        tagLinks.push({ resource_id: id, tag_id: tag.id });
        tagUsage.set(tag.id, (tagUsage.get(tag.id) ?? 0) + 1);
        tagTypeUsage.set(`${tag.id} ${type}`, (tagTypeUsage.get(`${tag.id} ${type}`) ?? 0) + 1);
      }
      for (const version of chosenVersions)
        versionLinks.push({ resource_id: id, game_version_id: version.id });
      resources[resources.length - 1]!.catalog_refs = JSON.stringify({
        categories: chosenCategories.map(({ id, name, slug }) => ({ id, name, slug })),
        tags: chosenTags.map(({ id, name, slug }) => ({ id, name, slug })),
        gameVersions: chosenVersions.map(({ id, name }) => ({ id, name })),
      });
      if (i === targetIndex) target = { id, slug: `resource-${i}` };
    }
    await db.transaction().execute(async (trx) => {
      await insertInBatches(resources, (batch) => trx.insertInto('resources').values(batch).execute());
      await insertInBatches(categoryLinks, (batch) =>
        trx.insertInto('resource_category_links').values(batch).execute(),
      );
      await insertInBatches(tagLinks, (batch) =>
        trx.insertInto('resource_tag_links').values(batch).execute(),
      );
      await insertInBatches(versionLinks, (batch) =>
        trx.insertInto('resource_game_versions').values(batch).execute(),
      );
    });
  }

  await db.transaction().execute(async (trx) => {
    const setCounter = (name: string, value: number) =>
      trx.updateTable('counters').set({ value }).where('name', '=', name).execute();
    for (const status of ['PENDING', 'APPROVED', 'REJECTED', 'SUSPENDED']) {
      await setCounter(`resources.status.${status}`, statusCounts.get(status) ?? 0);
    }
    for (const type of RESOURCE_TYPES)
      await setCounter(`resources.approved.${type}`, approvedByType.get(type) ?? 0);
    for (const [id, usage] of categoryUsage) {
      await trx.updateTable('resource_categories').set({ usage_count: usage }).where('id', '=', id).execute();
    }
    for (const [id, usage] of tagUsage) {
      await trx.updateTable('resource_tags').set({ usage_count: usage }).where('id', '=', id).execute();
    }
    const typeRows = [...tagTypeUsage].map(([key, usage]) => {
      const [tagId, type] = key.split(' ') as [string, string];
      return { tag_id: tagId, resource_type: type as (typeof RESOURCE_TYPES)[number], usage_count: usage };
    });
    await insertInBatches(typeRows, (batch) =>
      trx.insertInto('resource_tag_type_usage').values(batch).execute(),
    );
    for (const [id, resources] of teamResources) {
      await trx.updateTable('teams').set({ resource_count: resources }).where('id', '=', id).execute();
    }
  });
  return { targets: { resourceSlug: target!.slug, resourceId: target!.id } };
}

// ---------------------------------------------------------------------------------------------------------------
// Servers: `count` servers (default 20k) owned by the seeded users and 100 teams, with 1–3 tags and 1–2
// categories each; 90% APPROVED, the rest PENDING, REJECTED or SUSPENDED. Player counts are random, ranks are
// computed by the application's own recompute, and every counter is set to what it counts.

const SERVER_STATUS_CYCLE = [...Array<'APPROVED'>(18).fill('APPROVED'), 'PENDING', 'REJECTED'] as const;
const SERVER_WORDS = [
  'Sky',
  'Iron',
  'Ember',
  'Frost',
  'Crystal',
  'Shadow',
  'Golden',
  'Wild',
  'Stone',
  'Star',
];
const SERVER_NOUNS = ['Realms', 'Network', 'Craft', 'Kingdom', 'Isles', 'Frontier', 'Haven', 'Empire', 'SMP'];

export async function seedServers(db: Kysely<DB>, count: number, dialect: DialectName): Promise<SeedResult> {
  const random = sequence(7);
  const users = await db.selectFrom('users').select('id').orderBy('id').limit(2000).execute();
  const [categories, tags] = await Promise.all([
    db.selectFrom('server_categories').select('id').orderBy('position').execute(),
    db.selectFrom('server_tags').select('id').orderBy('name').execute(),
  ]);
  const now = Date.now();
  const teamAt = new Date(now - 500 * 86_400_000).toISOString();
  const teams = users.slice(-100).map((user, i) => ({
    id: newId(),
    name: `Server Guild ${i}`,
    slug: `server-guild-${i}`,
    description: null,
    logo_key: null,
    banner_key: null,
    owner_id: user.id,
    member_count: 1,
    resource_count: 0,
    server_count: 0,
    created_at: teamAt,
    updated_at: teamAt,
  }));

  const description =
    '## About\n\nA friendly community server with custom events every weekend, a player-run economy and ' +
    'hand-built spawn. Rules: be kind, no griefing, no cheats.\n\n'.repeat(4);
  const servers: Array<Insertable<DB['servers']>> = [];
  const tagLinks: Array<{ server_id: string; tag_id: string }> = [];
  const categoryLinks: Array<{ server_id: string; category_id: string }> = [];
  const tagUsage = new Map<string, number>();
  const categoryUsage = new Map<string, number>();
  const teamServers = new Map<string, number>();
  let approved = 0;
  for (let i = 0; i < count; i++) {
    const status = i % 50 === 49 ? 'SUSPENDED' : SERVER_STATUS_CYCLE[i % SERVER_STATUS_CYCLE.length]!;
    const team = i % 5 === 0 ? teams[random(teams.length)]! : undefined;
    const at = new Date(now - (count - i) * 90_000).toISOString();
    const maxPlayers = 100 + random(900);
    const online = random(100) < 85;
    const id = newId();
    servers.push({
      id,
      name: `${SERVER_WORDS[random(SERVER_WORDS.length)]} ${SERVER_NOUNS[random(SERVER_NOUNS.length)]} ${i}`,
      slug: `bench-server-${i}`,
      short_description: 'Survival, quests and a friendly community since launch day.',
      description,
      ip: `play${i}.servers.example`,
      port: 5520,
      online,
      online_players: online ? random(maxPlayers) : 0,
      max_players: maxPlayers,
      rank: null,
      status,
      status_reason: status === 'REJECTED' || status === 'SUSPENDED' ? 'Seeded' : null,
      status_updated_at: at,
      owner_type: team === undefined ? 'USER' : 'TEAM',
      owner_id: team?.id ?? users[random(users.length)]!.id,
      logo_key: null,
      banner_key: null,
      last_reported_at: online ? new Date(now).toISOString() : null,
      created_at: at,
      updated_at: at,
    });
    if (team !== undefined) teamServers.set(team.id, (teamServers.get(team.id) ?? 0) + 1);
    const chosenTags = new Set(Array.from({ length: 1 + random(3) }, () => tags[random(tags.length)]!.id));
    const chosenCategories = new Set(
      Array.from({ length: 1 + random(2) }, () => categories[random(categories.length)]!.id),
    );
    for (const tagId of chosenTags) {
      tagLinks.push({ server_id: id, tag_id: tagId });
      if (status === 'APPROVED') tagUsage.set(tagId, (tagUsage.get(tagId) ?? 0) + 1);
    }
    for (const categoryId of chosenCategories) {
      categoryLinks.push({ server_id: id, category_id: categoryId });
      if (status === 'APPROVED') categoryUsage.set(categoryId, (categoryUsage.get(categoryId) ?? 0) + 1);
    }
    if (status === 'APPROVED') approved += 1;
  }

  await db.transaction().execute(async (trx) => {
    await insertInBatches(teams, (batch) => trx.insertInto('teams').values(batch).execute());
    await insertInBatches(teams, (batch) =>
      trx
        .insertInto('team_members')
        .values(
          batch.map((t) => ({
            team_id: t.id,
            user_id: t.owner_id,
            role: 'OWNER' as const,
            created_at: teamAt,
          })),
        )
        .execute(),
    );
    await trx
      .updateTable('counters')
      .set((eb) => ({ value: eb('value', '+', teams.length) }))
      .where('name', '=', 'teams')
      .execute();
    await insertInBatches(servers, (batch) => trx.insertInto('servers').values(batch).execute());
    await insertInBatches(tagLinks, (batch) => trx.insertInto('server_tag_links').values(batch).execute());
    await insertInBatches(categoryLinks, (batch) =>
      trx.insertInto('server_category_links').values(batch).execute(),
    );
    for (const [id, usage] of tagUsage) {
      await trx.updateTable('server_tags').set({ usage_count: usage }).where('id', '=', id).execute();
    }
    for (const [id, usage] of categoryUsage) {
      await trx.updateTable('server_categories').set({ usage_count: usage }).where('id', '=', id).execute();
    }
    for (const [id, owned] of teamServers) {
      await trx.updateTable('teams').set({ server_count: owned }).where('id', '=', id).execute();
    }
    await trx
      .updateTable('counters')
      .set({ value: approved })
      .where('name', '=', 'approved_servers')
      .execute();
  });
  await recomputeRanks(db, dialect, new Date(now), DEFAULT_RANK_WEIGHTS);
  const target = servers.find((server, i) => i >= count / 2 && server.status === 'APPROVED') ?? servers[0]!;
  return { targets: { serverSlug: target.slug, serverId: target.id } };
}

/** One APPROVED version with one file under the target resource (the download benchmark signs its URL). */
export async function seedVersions(db: Kysely<DB>, resourceId: string): Promise<SeedResult> {
  const at = new Date().toISOString();
  const versionId = newId();
  const fileId = newId();
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('resource_versions')
      .values({
        id: versionId,
        resource_id: resourceId,
        version_number: '1.0.0',
        name: 'First release',
        channel: 'RELEASE',
        status: 'APPROVED',
        changelog: '<p>First release</p>',
        submission_note: null,
        rejection_reason: null,
        created_at: at,
        updated_at: at,
        submitted_at: at,
        approved_at: at,
      })
      .execute();
    await trx
      .insertInto('version_files')
      .values({
        id: fileId,
        version_id: versionId,
        storage_key: `files/${resourceId}/${versionId}/${fileId}`,
        file_name: 'mod-1.0.0.jar',
        display_name: null,
        file_size: 1_048_576,
        file_type: 'jar',
        content_type: 'application/java-archive',
        sha256: '0'.repeat(64),
        sha1: '0'.repeat(40),
        is_primary: true,
        uploaded_at: at,
      })
      .execute();
    await trx
      .updateTable('resources')
      .set({ latest_version_id: versionId })
      .where('id', '=', resourceId)
      .execute();
  });
  return { targets: { versionId, fileId } };
}

// ---------------------------------------------------------------------------------------------------------------
// Callers for the authenticated endpoints and the write mix: `slots` users with an API key each. The first is a
// CONTRIBUTOR of the target resource and of a PENDING team-owned resource (so the access facts are read), holds
// three badges and follows the profile under test; each slot also gets its own APPROVED resource to like and its
// own user to follow, so the write mix measures writes and not contention on one row.

export interface SeededCallers extends SeedResult {
  /** One per slot: the key and the slot's write targets. */
  slots: Array<{ key: string; mixResourceId: string; mixUserId: string }>;
}

export async function seedCallers(
  db: Kysely<DB>,
  { resourceId, profileUserId, slots }: { resourceId: string; profileUserId: string; slots: number },
): Promise<SeededCallers> {
  const at = new Date().toISOString();
  const users = await db
    .selectFrom('users')
    .select('id')
    .where('id', '!=', profileUserId)
    .orderBy('created_at')
    .limit(2 * slots)
    .execute();
  const callers = users.slice(0, slots);
  const followees = users.slice(slots);
  const resources = await db
    .selectFrom('resources')
    .select('id')
    .where('status', '=', 'APPROVED')
    .where('id', '!=', resourceId)
    .orderBy('id')
    .limit(slots)
    .execute();
  const keys = callers.map(() => newApiKey());
  const caller = callers[0]!.id;
  const badges = ['Pioneer', 'Helper', 'Builder'].map((name, i) => ({
    id: newId(),
    name,
    slug: `bench-${name.toLowerCase()}`,
    description: `${name} of the bench`,
    icon_url: null,
    color: '#3366ff',
    is_active: true,
    awarded_count: 2,
    created_at: new Date(Date.now() - (10 - i) * 60_000).toISOString(),
    updated_at: at,
  }));
  const team = await db.selectFrom('teams').select('id').orderBy('id').executeTakeFirstOrThrow();
  const pendingId = newId();
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('api_keys')
      .values(
        callers.map((user, i) => ({
          id: newId(),
          user_id: user.id,
          name: 'bench',
          prefix: displayPrefix(keys[i]!),
          key_hash: digest(keys[i]!),
          created_at: at,
          last_used_at: null,
          expires_at: null,
          revoked_at: null,
          scopes: 'read write upload',
          team_id: null,
          last_used_ip: null,
        })),
      )
      .execute();
    await trx.insertInto('badges').values(badges).execute();
    await trx
      .insertInto('user_badges')
      .values(
        [caller, profileUserId].flatMap((userId) =>
          badges.map((badge, i) => ({
            id: newId(),
            user_id: userId,
            badge_id: badge.id,
            awarded_by: null,
            reason: null,
            awarded_at: new Date(Date.now() - (5 - i) * 60_000).toISOString(),
          })),
        ),
      )
      .execute();
    const name = 'Pending Bench Resource';
    await trx
      .insertInto('resources')
      .values({
        id: pendingId,
        name,
        name_key: name.toLowerCase(),
        slug: 'pending-bench-resource',
        short_description: 'Waiting for review.',
        description: `# ${name}\n\nWaiting for a moderator.\n`,
        type: 'MOD',
        status: 'PENDING',
        owner_type: 'TEAM',
        owner_id: team.id,
        icon_key: null,
        banner_key: null,
        downloads: 0,
        like_count: 0,
        favorite_count: 0,
        latest_version_id: null,
        catalog_refs: JSON.stringify({ categories: [], tags: [], gameVersions: [] }),
        created_at: at,
        updated_at: at,
      })
      .execute();
    await trx
      .updateTable('counters')
      .set((eb) => ({ value: eb('value', '+', 1) }))
      .where('name', '=', 'resources.status.PENDING')
      .execute();
    await trx
      .insertInto('resource_contributors')
      .values(
        [resourceId, pendingId].map((id) => ({
          id: newId(),
          resource_id: id,
          user_id: caller,
          role: 'CONTRIBUTOR' as const,
          created_at: at,
          updated_at: at,
        })),
      )
      .execute();
  });
  return {
    targets: { apiKey: keys[0]!, pendingSlug: 'pending-bench-resource' },
    slots: callers.map((_, i) => ({
      key: keys[i]!,
      mixResourceId: resources[i % resources.length]!.id,
      mixUserId: followees[i % followees.length]!.id,
    })),
  };
}
