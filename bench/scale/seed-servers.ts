// Servers of the scale catalogue: names and descriptions from the same vocabulary, 1–4 tags (Zipf over the
// server tags) and 1–2 categories each, 90% APPROVED; usage counts count APPROVED servers (as
// servers/catalogs/catalog-links.repo.ts keeps them), plus the approved total, team server counts and the
// directory version. Ranks are left to recomputeRanks.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DB } from '../../src/core/db/schema.js';
import type { BulkLoader, Row } from './bulk.js';
import { idAt, int, logNormal, prng, weighted, zipf } from './random.js';
import { descriptionOf, nameOf, shortDescriptionOf, slugOf } from './text.js';
import type { Vocabulary } from './text.js';

export interface ServerSeedContext {
  count: number;
  random: () => number;
  v: Vocabulary;
  userIds: string[];
  teamIds: string[];
  now: number;
  span: number;
}

const STATUSES = weighted([
  ['APPROVED', 90],
  ['PENDING', 5],
  ['REJECTED', 3],
  ['SUSPENDED', 2],
] as const);
const CHUNK = 20_000;

const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);

export async function seedServersAt(db: Kysely<DB>, loader: BulkLoader, c: ServerSeedContext): Promise<void> {
  const { random, v, now } = c;
  const iso = (ms: number) => new Date(ms).toISOString();
  const [tags, categories] = await Promise.all([
    db.selectFrom('server_tags').select('id').orderBy('name').orderBy('id').execute(),
    db.selectFrom('server_categories').select('id').orderBy('position').orderBy('id').execute(),
  ]);
  const tagOrder = prng(7);
  const tagsByPopularity = [...tags].sort(() => tagOrder() - 0.5);
  const tagRank = zipf(tags.length, 1);
  const userRank = zipf(c.userIds.length, 0.8);
  const tagUsage = new Map<string, number>();
  const categoryUsage = new Map<string, number>();
  const teamServers = new Map<string, number>();
  let approved = 0;
  for (let start = 0; start < c.count; start += CHUNK) {
    const servers: Row[] = [];
    const tagLinks: Row[] = [];
    const categoryLinks: Row[] = [];
    for (let i = start; i < Math.min(c.count, start + CHUNK); i++) {
      const status = STATUSES(random);
      const created = now - c.span + Math.floor((i / c.count) * c.span) + int(random, 60_000);
      const onTeam = random() < 0.2;
      const ownerId = onTeam ? c.teamIds[int(random, c.teamIds.length)]! : c.userIds[userRank(random)]!;
      if (onTeam) bump(teamServers, ownerId);
      const maxPlayers = 20 + int(random, 980);
      const online = random() < 0.85;
      const name = nameOf(v, random);
      const id = idAt(created, random);
      servers.push({
        id,
        name,
        slug: slugOf(name, `s${i.toString(36)}`),
        short_description: shortDescriptionOf(v, random),
        description: descriptionOf(v, random, name),
        ip: `play${i}.servers.example`,
        port: 5520,
        online,
        online_players: online ? Math.min(maxPlayers, logNormal(random, 2, 1.5)) : 0,
        max_players: maxPlayers,
        rank: null,
        status,
        status_reason: status === 'REJECTED' || status === 'SUSPENDED' ? 'Seeded' : null,
        status_updated_at: iso(created),
        owner_type: onTeam ? 'TEAM' : 'USER',
        owner_id: ownerId,
        logo_key: null,
        banner_key: null,
        listed_at: status === 'APPROVED' ? iso(created) : null,
        last_reported_at: online ? iso(now) : null,
        created_at: iso(created),
        updated_at: iso(created),
      });
      const tagCount = 1 + Math.min(3, Math.floor(random() * random() * 4));
      const chosenTags = new Set<string>();
      while (chosenTags.size < Math.min(tagCount, tags.length))
        chosenTags.add(tagsByPopularity[tagRank(random)]!.id);
      const chosenCategories = new Set<string>();
      const categoryCount = random() < 0.6 ? 1 : 2;
      while (chosenCategories.size < Math.min(categoryCount, categories.length)) {
        chosenCategories.add(categories[int(random, categories.length)]!.id);
      }
      for (const tagId of chosenTags) {
        tagLinks.push({ server_id: id, tag_id: tagId });
        if (status === 'APPROVED') bump(tagUsage, tagId);
      }
      for (const categoryId of chosenCategories) {
        categoryLinks.push({ server_id: id, category_id: categoryId });
        if (status === 'APPROVED') bump(categoryUsage, categoryId);
      }
      if (status === 'APPROVED') approved += 1;
    }
    await loader.load(async (insert) => {
      await insert('servers', servers);
      await insert('server_tag_links', tagLinks, 20_000);
      await insert('server_category_links', categoryLinks, 20_000);
    });
  }
  await db.transaction().execute(async (trx) => {
    for (const [id, usage] of tagUsage) {
      await trx.updateTable('server_tags').set({ usage_count: usage }).where('id', '=', id).execute();
    }
    for (const [id, usage] of categoryUsage) {
      await trx.updateTable('server_categories').set({ usage_count: usage }).where('id', '=', id).execute();
    }
    for (const [id, owned] of teamServers) {
      await trx.updateTable('teams').set({ server_count: owned }).where('id', '=', id).execute();
    }
    await sql`update counters set value = ${approved} where name = 'approved_servers'`.execute(trx);
    await sql`update counters set value = value + 1 where name = 'server_directory_version'`.execute(trx);
  });
}
