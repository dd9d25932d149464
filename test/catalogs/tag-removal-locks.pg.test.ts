// A tag's removal against a resource's own writes (PostgreSQL). Since migration 0046 a download, a like, an edit
// or a moderation locks the resource's row, then (its trigger) the resource's tag links. A tag's removal deletes
// the tag's links, then rewrites each resource's catalog names: in that order the two deadlocked and PostgreSQL
// aborted one. The removal now locks the tagged resources first, so it waits for the write in flight instead.
// Runs only under `npm run test:pg` (see vitest.config.ts): it holds row locks in the service's database.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { someoneWaitsFor } from '../helpers/pg-locks.js';
import { createUser } from '../helpers/factories.js';
import { createResource, expectResourceInvariants, moderate } from '../resources/helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t.close();
});

describe("a tag's removal while a tagged resource is written", () => {
  it('waits for the write in flight and completes; neither is aborted', async () => {
    const [admin, owner, moderator] = await Promise.all([
      createUser(t.app, { role: 'ADMIN' }),
      createUser(t.app),
      createUser(t.app, { role: 'MODERATOR' }),
    ]);
    const created = await t.app.inject({
      method: 'POST',
      url: '/resource-tags',
      headers: admin.headers,
      payload: { name: 'Short Lived', slug: 'short-lived' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const tagId = (created.json() as { id: string }).id;
    const resource = await createResource(t.app, owner, { tagIds: [tagId] });
    await moderate(t.app, moderator, resource.id, 'APPROVE');

    // What a download does in its transaction: the resource's row, then (the trigger) its tag links. The test
    // takes the row, lets the removal start, then writes the links; its long deadlock_timeout makes the service's
    // connection the one that would detect a deadlock.
    const client = new pg.Client({ connectionString: t.config.databaseUrl });
    await client.connect();
    let removal: Promise<{ statusCode: number; body: string }> | undefined;
    try {
      await client.query(`set deadlock_timeout = '60s'`);
      await client.query('begin');
      await client.query('select 1 from resources where id = $1 for update', [resource.id]);
      removal = t.app.inject({ method: 'DELETE', url: `/resource-tags/${tagId}`, headers: admin.headers });
      await someoneWaitsFor(client);
      await client.query(
        'update resource_tag_links set resource_downloads = resource_downloads + 1 where resource_id = $1',
        [resource.id],
      );
      await client.query('update resources set downloads = downloads + 1 where id = $1', [resource.id]);
      await client.query('commit');
    } finally {
      await client.end();
    }
    const answer = (await removal)!;
    expect(answer.statusCode, answer.body).toBe(204);
    const read = await t.app.inject({ method: 'GET', url: `/resources/${resource.id}` });
    expect(read.json()).toMatchObject({ downloads: 1, tags: [] });
    await expectResourceInvariants(t.app);
  });
});
