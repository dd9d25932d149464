// The description-image module mounted for resources: upload needs edit rights, saving a description that
// contains the URL makes an image permanent, deleting the resource removes its images and their objects.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { expectError, multipart } from '../helpers/http.js';
import { gifImage, pngImage } from '../fixtures/images.js';
import { createResourceCast, keyOf, resourceFor } from './helpers.js';
import type { ResourceBody, ResourceCast } from './helpers.js';

interface ImageBody {
  id: string;
  url: string;
  fileName: string;
  fileSize: number;
  isTemporary: boolean;
  isUsed: boolean;
  createdAt: string;
}

let t: TestApp;
let cast: ResourceCast;

beforeAll(async () => {
  t = await buildTestApp();
  cast = await createResourceCast(t.app);
});
afterAll(async () => t.close());

async function upload(resourceId: string, headers: Record<string, string>, data: Buffer, name = 'shot.png') {
  const body = await multipart('file', { data, name });
  return t.app.inject({
    method: 'POST',
    url: `/resources/description-images/${resourceId}/upload`,
    headers: { ...headers, ...body.headers },
    payload: body.payload,
  });
}

async function temporary(resource: ResourceBody, headers: Record<string, string>): Promise<ImageBody[]> {
  const response = await t.app.inject({
    method: 'GET',
    url: `/resources/description-images/${resource.id}/temporary`,
    headers,
  });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { images: ImageBody[] }).images;
}

describe('resource description images', () => {
  it('uploads for the owner side (201), returns the existing image for the same picture (200)', async () => {
    const resource = await resourceFor(t.app, cast, 'TEAM', 'PENDING');
    const png = await pngImage(30, 30);
    const first = await upload(resource.id, cast.teamMember.headers, png);
    expect(first.statusCode, first.body).toBe(201);
    const image = first.json() as ImageBody;
    expect(image).toMatchObject({ isTemporary: true, fileName: 'shot.png' });
    expect(image.url).toMatch(/^http:\/\/api\.test\/cdn\//);
    const again = await upload(resource.id, cast.teamMember.headers, png, 'other-name.png');
    expect(again.statusCode, again.body).toBe(200);
    expect((again.json() as ImageBody).url).toBe(image.url);
    const gif = await upload(resource.id, cast.contributor.headers, await gifImage(20, 20));
    expect(gif.statusCode, gif.body).toBe(201);
  });

  it('refuses a stranger (403 on an approved resource, 404 on a hidden one), anonymous (401), unknown resource (404)', async () => {
    const png = await pngImage(31, 31);
    const approved = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    expectError(await upload(approved.id, cast.stranger.headers, png), 403);
    expectError(await upload(approved.id, cast.moderator.headers, png), 403);
    const pending = await resourceFor(t.app, cast, 'USER', 'PENDING');
    expectError(await upload(pending.id, cast.stranger.headers, png), 404);
    expectError(await upload(approved.id, {}, png), 401);
    expectError(await upload('01900000-0000-7000-8000-000000000000', cast.owner.headers, png), 404);
  });

  it('becomes permanent when a saved description contains its URL, and leaves the temporary list', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const kept = (await upload(resource.id, cast.owner.headers, await pngImage(33, 33))).json() as ImageBody;
    const dropped = (
      await upload(resource.id, cast.owner.headers, await pngImage(34, 34))
    ).json() as ImageBody;
    expect((await temporary(resource, cast.owner.headers)).map((i) => i.id).sort()).toEqual(
      [kept.id, dropped.id].sort(),
    );
    // Another user's temporary list of the same resource is their own.
    expect(await temporary(resource, cast.contributor.headers)).toEqual([]);

    const saved = await t.app.inject({
      method: 'PATCH',
      url: `/resources/${resource.id}`,
      headers: cast.contributor.headers,
      payload: { description: `# Screens\n![screen](${kept.url})` },
    });
    expect(saved.statusCode, saved.body).toBe(200);
    expect((await temporary(resource, cast.owner.headers)).map((i) => i.id)).toEqual([dropped.id]);

    // A used image cannot be deleted; an unused one can, by its uploader only.
    expectError(
      await t.app.inject({
        method: 'DELETE',
        url: `/resources/description-images/${resource.id}/${kept.id}`,
        headers: cast.owner.headers,
      }),
      409,
    );
    expectError(
      await t.app.inject({
        method: 'DELETE',
        url: `/resources/description-images/${resource.id}/${dropped.id}`,
        headers: cast.contributor.headers,
      }),
      403,
    );
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/resources/description-images/${resource.id}/${dropped.id}`,
      headers: cast.owner.headers,
    });
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect(await t.app.context.storage.head(keyOf(dropped.url))).toBeUndefined();
  });

  it('deleting the resource deletes its images and their objects', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const used = (await upload(resource.id, cast.owner.headers, await pngImage(35, 35))).json() as ImageBody;
    const unused = (
      await upload(resource.id, cast.maintainer.headers, await pngImage(36, 36))
    ).json() as ImageBody;
    await t.app.inject({
      method: 'PATCH',
      url: `/resources/${resource.id}`,
      headers: cast.owner.headers,
      payload: { description: `![x](${used.url})` },
    });
    const storage = t.app.context.storage;
    expect(await storage.head(keyOf(used.url))).toBeDefined();
    const response = await t.app.inject({
      method: 'DELETE',
      url: `/resources/${resource.id}`,
      headers: cast.owner.headers,
    });
    expect(response.statusCode, response.body).toBe(204);
    expect(await storage.head(keyOf(used.url))).toBeUndefined();
    expect(await storage.head(keyOf(unused.url))).toBeUndefined();
    const { db } = t.app.context.database;
    expect(
      await db.selectFrom('description_images').select('id').where('owner_id', '=', resource.id).execute(),
    ).toEqual([]);
  });
});
