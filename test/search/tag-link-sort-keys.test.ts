// Tag links carry their resource's status and sort keys (migration 0046), and one tag's public pages are read
// from them in every order (resources/tag-link-pages.ts). The copies must equal their resource after every write
// that changes a key, whoever writes it (the app, or an UPDATE of the table), and for links written before the
// migration; the pages must be the resources' own order, with other filters read as before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { buildTestApp } from '../helpers/app.js';
import { migrationFor } from '../helpers/migrations.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import type { TestUser } from '../helpers/factories.js';
import {
  createResource,
  createResourceCast,
  expectResourceInvariants,
  moderate,
  readCatalogs,
} from '../resources/helpers.js';
import type { ResourceCast } from '../resources/helpers.js';
import { versionIn, versionUrl } from '../versions/helpers.js';
import { tagLinkSortKeys } from '../../src/core/db/migrations/0046_tag_link_sort_keys.js';
import { bumpCatalogueVersion } from '../../src/modules/resources/resources.repo.js';
import { SORT_ORDERS } from '../../src/modules/resources/resource-lists.service.js';
import type { ResourceSort } from '../../src/modules/resources/resources.schemas.js';
import type { ResourceType } from '../../src/core/db/schema.js';

let t: TestApp;
let cast: ResourceCast;
let fans: TestUser[];
const tagIds: Record<string, string> = {};
const made: Record<string, string> = {};
const SORTS = Object.keys(SORT_ORDERS) as ResourceSort[];

beforeAll(async () => {
  t = await buildTestApp();
  cast = await createResourceCast(t.app);
  fans = await Promise.all([createUser(t.app), createUser(t.app), createUser(t.app)]);
  const { tags } = await readCatalogs(t.app);
  for (const slug of ['combat', 'horror']) tagIds[slug] = tags.find((tag) => tag.slug === slug)!.id;
  const add = async (name: string, slugs: string[], type = 'MOD') => {
    const resource = await createResource(t.app, cast.owner, {
      name,
      type,
      tagIds: slugs.map((slug) => tagIds[slug]),
    });
    made[name] = resource.id;
    return resource.id;
  };
  // Names whose order differs by case and by spaces; two types; one resource in both tags.
  const names = ['zebra Arena', 'Arena', 'arena Two', 'Blood Moon', 'blood', 'Crypt', 'Dusk Keep'];
  for (const [index, name] of names.entries()) {
    const id = await add(name, index === 3 ? ['combat', 'horror'] : ['combat'], index % 2 ? 'WORLD' : 'MOD');
    await moderate(t.app, cast.moderator, id, 'APPROVE');
  }
  await add('Pending Combat', ['combat']);
  await moderate(t.app, cast.moderator, await add('Rejected Combat', ['combat']), 'REJECT', 'no');
  await moderate(t.app, cast.moderator, await add('Horror Only', ['horror']), 'APPROVE');
  // Downloads written straight into the table, as any writer might (the trigger, not the app, keeps the copy).
  const { db } = t.app.context.database;
  for (const [index, name] of names.entries()) {
    await db
      .updateTable('resources')
      .set({ downloads: [40, 7, 7, 120, 0, 7, 3][index]! })
      .where('id', '=', made[name]!)
      .execute();
  }
}, 60_000);
afterAll(async () => t.close());

/** The ids of every page of a list, `limit` at a time, and its total. */
async function pagedIds(query: string, limit = 3): Promise<{ ids: string[]; total: number }> {
  const ids: string[] = [];
  let total = 0;
  for (let page = 1; page <= 5; page++) {
    const response = await t.app.inject({
      method: 'GET',
      url: `/resources?${query}&limit=${limit}&page=${page}`,
    });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json() as { resources: Array<{ id: string }>; meta: { total: number } };
    ids.push(...body.resources.map((resource) => resource.id));
    total = body.meta.total;
  }
  return { ids, total };
}

/**
 * The APPROVED resources with any of the tags (and of the type) in a sort's order, read from `resources` itself
 * (never from the link rows' copies).
 */
async function resourcesInOrder(tags: string[], sort: ResourceSort, type?: ResourceType): Promise<string[]> {
  const { column, direction } = SORT_ORDERS[sort];
  let query = t.app.context.database.db
    .selectFrom('resources')
    .select('resources.id')
    .where('resources.status', '=', 'APPROVED')
    .where('resources.id', 'in', (eb) =>
      eb
        .selectFrom('resource_tag_links')
        .select('resource_id')
        .where(
          'tag_id',
          'in',
          tags.map((tag) => tagIds[tag]!),
        ),
    );
  if (type !== undefined) query = query.where('resources.type', '=', type);
  const rows = await query
    .orderBy(`resources.${column}`, direction)
    .orderBy('resources.id', direction)
    .execute();
  return rows.map((row) => row.id);
}

/** Every page of the tag in every order is its APPROVED resources' order, with the exact total. */
async function expectTagPages(tag: string, after: string) {
  for (const sort of SORTS) {
    const expected = await resourcesInOrder([tag], sort);
    expect(await pagedIds(`tags=${tag}&sortBy=${sort}`), `tags=${tag}&sortBy=${sort} after ${after}`).toEqual(
      {
        ids: expected,
        total: expected.length,
      },
    );
  }
}

const inCombat = async () => (await pagedIds('tags=combat&sortBy=name', 20)).ids;

describe("one tag's pages from its link rows", () => {
  it('are its APPROVED resources in every order, page after page, with facets too', async () => {
    await expectResourceInvariants(t.app);
    await expectTagPages('combat', 'the setup');
    await expectTagPages('horror', 'the setup');
    expect(await inCombat()).toHaveLength(7);
    expect(await inCombat()).not.toContain(made['Pending Combat']);
    const withFacets = await t.app.inject({
      method: 'GET',
      url: '/resources?tags=combat&sortBy=downloads&limit=2&page=2&facets=tags,type',
    });
    const body = withFacets.json() as {
      resources: Array<{ id: string }>;
      meta: { total: number; facets: { tags: Record<string, number>; type: Record<string, number> } };
    };
    expect(body.resources.map((r) => r.id)).toEqual(
      (await resourcesInOrder(['combat'], 'downloads')).slice(2, 4),
    );
    expect(body.meta.total).toBe(7);
    expect(body.meta.facets.tags).toMatchObject({ combat: 7, horror: 1 });
    expect(body.meta.facets.type).toEqual({ MOD: 4, WORLD: 3 });
  });

  it('follow downloads, likes, edits, moderation, tag changes and deletion', async () => {
    // A step whose write failed would leave nothing to follow: each write must succeed.
    const edit = async (name: string, payload: Record<string, unknown>) => {
      const response = await t.app.inject({
        method: 'PATCH',
        url: `/resources/${made[name]}`,
        headers: cast.owner.headers,
        payload,
      });
      expect(response.statusCode, response.body).toBe(200);
    };
    const steps: Array<[string, () => Promise<unknown>]> = [
      [
        'a download through the app',
        async () => {
          const actors = { editor: cast.owner, moderator: cast.moderator };
          const version = await versionIn(t.app, actors, made['blood']!, 'APPROVED');
          const response = await t.app.inject({
            method: 'GET',
            url: `${versionUrl(made['blood']!, version.id)}/download`,
            headers: { 'user-agent': 'test-agent/1.0' },
          });
          expect(response.statusCode).toBe(302);
        },
      ],
      [
        'likes and an unlike',
        async () => {
          for (const fan of fans) {
            const liked = await t.app.inject({
              method: 'POST',
              url: `/resources/${made['Crypt']}/likes`,
              headers: fan.headers,
            });
            expect(liked.statusCode, liked.body).toBeLessThan(300);
          }
          const unliked = await t.app.inject({
            method: 'DELETE',
            url: `/resources/${made['Crypt']}/likes`,
            headers: fans[0]!.headers,
          });
          expect(unliked.statusCode, unliked.body).toBeLessThan(300);
        },
      ],
      ['a rename', () => edit('zebra Arena', { name: 'Aardvark Arena' })],
      ['a suspension', () => moderate(t.app, cast.moderator, made['Arena']!, 'SUSPEND', 'spam')],
      ['an approval', () => moderate(t.app, cast.moderator, made['Pending Combat']!, 'APPROVE')],
      [
        'tags changed by an edit',
        async () => {
          await edit('Dusk Keep', { tagIds: [tagIds['horror']] });
          await edit('Horror Only', { tagIds: [tagIds['horror'], tagIds['combat']] });
        },
      ],
      [
        'a deletion',
        async () => {
          const response = await t.app.inject({
            method: 'DELETE',
            url: `/resources/${made['arena Two']}`,
            headers: cast.owner.headers,
          });
          expect(response.statusCode, response.body).toBe(204);
        },
      ],
    ];
    for (const [step, write] of steps) {
      await write();
      await expectResourceInvariants(t.app);
      await expectTagPages('combat', step);
      await expectTagPages('horror', step);
    }
    const listed = await inCombat();
    expect(listed).not.toContain(made['Arena']);
    expect(listed).not.toContain(made['Dusk Keep']);
    expect(listed).not.toContain(made['arena Two']);
    expect(listed).toContain(made['Pending Combat']);
    expect(listed).toContain(made['Horror Only']);
  });

  it('are read from the link rows; several tags or a type are not', async () => {
    const { db } = t.app.context.database;
    const last = (await resourcesInOrder(['combat'], 'downloads')).at(-1)!;
    // A copy set apart from its resource (as no write can) shows which rows a page reads.
    await db
      .updateTable('resource_tag_links')
      .set({ resource_downloads: 1_000_000 })
      .where('resource_id', '=', last)
      .execute();
    // (Written around the app: the cached pages are told, as the app's writes tell them.)
    await bumpCatalogueVersion(db);
    try {
      // (Page 1 of one resource: a page's own rows are ordered again by their resources' keys.)
      expect((await pagedIds('tags=combat&sortBy=downloads', 1)).ids[0]).toBe(last);
      expect((await pagedIds('tags=combat,horror&sortBy=downloads', 20)).ids).toEqual(
        await resourcesInOrder(['combat', 'horror'], 'downloads'),
      );
      for (const type of ['MOD', 'WORLD'] as const) {
        expect((await pagedIds(`tags=combat&type=${type}&sortBy=downloads`, 20)).ids).toEqual(
          await resourcesInOrder(['combat'], 'downloads', type),
        );
      }
    } finally {
      await sql`update resource_tag_links set resource_downloads =
        (select downloads from resources where id = ${last}) where resource_id = ${last}`.execute(db);
      await bumpCatalogueVersion(db);
    }
    await expectResourceInvariants(t.app);
  });

  it('get their keys when the migration runs on links written before it', async () => {
    const { db } = t.app.context.database;
    const migration = migrationFor(t, tagLinkSortKeys);
    await migration.down!(db as never);
    await migration.up(db as never);
    await expectResourceInvariants(t.app);
    await expectTagPages('combat', 'the migration down and up');
    // The triggers are back: a later write is copied.
    await db.updateTable('resources').set({ downloads: 999 }).where('id', '=', made['Crypt']!).execute();
    await bumpCatalogueVersion(db);
    await expectResourceInvariants(t.app);
    await expectTagPages('combat', 'a write after the migration');
  });
});
