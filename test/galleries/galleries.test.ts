// Resource galleries: upload with thumbnail, list in order, get, update, replace (keeps position and metadata),
// reorder (exact ids), delete (gapless order), the limit, permissions and visibility, and object cleanup.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { expectError, multipart } from '../helpers/http.js';
import { gifImage, jpegImage, notAnImage, pngImage, webpImage } from '../fixtures/images.js';
import { createResourceCast, headersOf, RESOURCE_PERSONAS, resourceFor } from '../resources/helpers.js';
import type { ResourceCast } from '../resources/helpers.js';

interface GalleryImageBody {
  id: string;
  resourceId: string;
  imageUrl: string;
  thumbnailUrl: string;
  caption: string | null;
  altText: string | null;
  order: number;
  createdAt: string;
  updatedAt: string;
}

let t: TestApp;
let cast: ResourceCast;

beforeAll(async () => {
  t = await buildTestApp();
  cast = await createResourceCast(t.app);
});
afterAll(async () => t.close());

const galleryUrl = (resourceId: string) => `/resources/${resourceId}/gallery-images`;
const keyOf = (url: string) => url.slice(url.indexOf('/images/') + 1);

async function upload(
  resourceId: string,
  image: Buffer,
  fields: Record<string, string> = {},
  headers: Record<string, string> = cast.owner.headers,
) {
  const form = await multipart('image', { data: image, name: 'shot.png' }, fields);
  return t.app.inject({
    method: 'POST',
    url: galleryUrl(resourceId),
    headers: { ...headers, ...form.headers },
    payload: form.payload,
  });
}

async function added(resourceId: string, fields: Record<string, string> = {}): Promise<GalleryImageBody> {
  const response = await upload(resourceId, await pngImage(64, 48), fields);
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as GalleryImageBody;
}

async function list(resourceId: string, headers: Record<string, string> = {}): Promise<GalleryImageBody[]> {
  const response = await t.app.inject({ method: 'GET', url: galleryUrl(resourceId), headers });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { images: GalleryImageBody[] }).images;
}

async function fetchObject(url: string) {
  const response = await t.app.inject({ method: 'GET', url: new URL(url).pathname });
  return response;
}

describe('upload and reads', () => {
  it('stores PNG, JPG and WEBP with a thumbnail inside 400x300, in order from 0', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const images = [await pngImage(1600, 900), await jpegImage(800, 800), await webpImage(300, 200)];
    const created: GalleryImageBody[] = [];
    for (const [index, image] of images.entries()) {
      const response = await upload(
        resource.id,
        image,
        index === 0 ? { caption: 'Main', altText: 'The map' } : {},
      );
      expect(response.statusCode, response.body).toBe(201);
      created.push(response.json() as GalleryImageBody);
    }
    expect(created[0]).toMatchObject({
      resourceId: resource.id,
      caption: 'Main',
      altText: 'The map',
      order: 0,
    });
    expect(created.map((image) => image.order)).toEqual([0, 1, 2]);
    const thumbnail = await fetchObject(created[0]!.thumbnailUrl);
    expect(thumbnail.statusCode).toBe(200);
    const meta = await sharp(thumbnail.rawPayload).metadata();
    expect(meta.format).toBe('webp');
    expect(meta.width).toBeLessThanOrEqual(400);
    expect(meta.height).toBeLessThanOrEqual(300);
    expect((await fetchObject(created[0]!.imageUrl)).statusCode).toBe(200);

    const listed = await list(resource.id);
    expect(listed.map((image) => image.id)).toEqual(created.map((image) => image.id));
    expect(listed[0]).toEqual(created[0]);
    const one = await t.app.inject({ method: 'GET', url: `${galleryUrl(resource.id)}/${created[1]!.id}` });
    expect(one.statusCode).toBe(200);
    expect(one.json()).toEqual(created[1]);
  });

  it.each([
    ['a GIF', () => gifImage(10, 10), 415],
    ['text', async () => notAnImage(), 415],
  ])('refuses %s (%s)', async (_label, make, status) => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    expectError(await upload(resource.id, await make()), status);
    expect(await list(resource.id)).toEqual([]);
  });

  it('refuses a caption over 500 or alt text over 250 characters (400)', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    expectError(await upload(resource.id, await pngImage(10, 10), { caption: 'c'.repeat(501) }), 400);
    expectError(await upload(resource.id, await pngImage(10, 10), { altText: 'a'.repeat(251) }), 400);
    expect(await list(resource.id)).toEqual([]);
  });

  it('holds at most 50 images (409 LIMIT_REACHED)', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const { db } = t.app.context.database;
    const now = new Date().toISOString();
    await db
      .insertInto('gallery_images')
      .values(
        Array.from({ length: 50 }, (_, i) => ({
          id: `seeded-${resource.id}-${i}`,
          resource_id: resource.id,
          storage_key: `images/gallery/x/${i}.png`,
          thumbnail_key: `images/gallery-thumbnails/x/${i}.webp`,
          caption: null,
          alt_text: null,
          position: i,
          created_at: now,
          updated_at: now,
        })),
      )
      .execute();
    expectError(await upload(resource.id, await pngImage(10, 10)), 409, 'LIMIT_REACHED');
  });

  it('a gallery image of another resource is 404', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const other = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const image = await added(resource.id);
    expectError(await t.app.inject({ method: 'GET', url: `${galleryUrl(other.id)}/${image.id}` }), 404);
    expectError(
      await t.app.inject({
        method: 'DELETE',
        url: `${galleryUrl(other.id)}/${image.id}`,
        headers: cast.owner.headers,
      }),
      404,
    );
  });
});

describe('update, replace, reorder, delete', () => {
  it('PATCH changes caption and alt text; null clears', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const image = await added(resource.id, { caption: 'Old', altText: 'Alt' });
    t.clock.advance(1000);
    const response = await t.app.inject({
      method: 'PATCH',
      url: `${galleryUrl(resource.id)}/${image.id}`,
      headers: cast.contributor.headers,
      payload: { caption: 'New', altText: null },
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ id: image.id, caption: 'New', altText: null, order: 0 });
    expect((response.json() as GalleryImageBody).updatedAt > image.updatedAt).toBe(true);
  });

  it('replace keeps id, position, caption and alt text; the old objects go', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    await added(resource.id);
    const image = await added(resource.id, { caption: 'Keep', altText: 'Me' });
    const form = await multipart('image', { data: await jpegImage(300, 300), name: 'new.jpg' });
    t.clock.advance(1000);
    const response = await t.app.inject({
      method: 'POST',
      url: `${galleryUrl(resource.id)}/${image.id}/replace`,
      headers: { ...cast.owner.headers, ...form.headers },
      payload: form.payload,
    });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json() as { id: string; imageUrl: string; updatedAt: string };
    expect(Object.keys(body).sort()).toEqual(['id', 'imageUrl', 'updatedAt']);
    expect(body.id).toBe(image.id);
    expect(body.imageUrl).not.toBe(image.imageUrl);
    const after = (await list(resource.id)).find((row) => row.id === image.id)!;
    expect(after).toMatchObject({ caption: 'Keep', altText: 'Me', order: 1, imageUrl: body.imageUrl });
    expect(after.thumbnailUrl).not.toBe(image.thumbnailUrl);
    expect(await t.app.context.storage.head(keyOf(image.imageUrl))).toBeUndefined();
    expect(await t.app.context.storage.head(keyOf(image.thumbnailUrl))).toBeUndefined();
    expect(await t.app.context.storage.head(keyOf(body.imageUrl))).toBeDefined();
  });

  it('reorder needs exactly the existing ids (400 otherwise) and answers {message}', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const [a, b, c] = [await added(resource.id), await added(resource.id), await added(resource.id)];
    const reorder = (imageIds: string[]) =>
      t.app.inject({
        method: 'PUT',
        url: `${galleryUrl(resource.id)}/reorder`,
        headers: cast.owner.headers,
        payload: { imageIds },
      });
    for (const wrong of [
      [a!.id, b!.id],
      [a!.id, b!.id, c!.id, 'x'],
      [a!.id, a!.id, b!.id],
      [a!.id, b!.id, 'x'],
    ]) {
      expectError(await reorder(wrong), 400);
    }
    const response = await reorder([c!.id, a!.id, b!.id]);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ message: expect.any(String) });
    expect((await list(resource.id)).map((image) => [image.id, image.order])).toEqual([
      [c!.id, 0],
      [a!.id, 1],
      [b!.id, 2],
    ]);
  });

  it('delete answers {message}, removes the objects and keeps a gapless order', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const [a, b, c] = [await added(resource.id), await added(resource.id), await added(resource.id)];
    const response = await t.app.inject({
      method: 'DELETE',
      url: `${galleryUrl(resource.id)}/${a!.id}`,
      headers: cast.owner.headers,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ message: expect.any(String) });
    expect((await list(resource.id)).map((image) => [image.id, image.order])).toEqual([
      [b!.id, 0],
      [c!.id, 1],
    ]);
    expect(await t.app.context.storage.head(keyOf(a!.imageUrl))).toBeUndefined();
    expect(await t.app.context.storage.head(keyOf(a!.thumbnailUrl))).toBeUndefined();
  });

  it('deleting the resource deletes its gallery objects', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const image = await added(resource.id);
    const response = await t.app.inject({
      method: 'DELETE',
      url: `/resources/${resource.id}`,
      headers: cast.owner.headers,
    });
    expect(response.statusCode).toBe(204);
    expect(await t.app.context.storage.head(keyOf(image.imageUrl))).toBeUndefined();
    expect(await t.app.context.storage.head(keyOf(image.thumbnailUrl))).toBeUndefined();
  });
});

describe('permissions and visibility', () => {
  const cases = (['USER', 'TEAM'] as const).flatMap((kind) =>
    RESOURCE_PERSONAS.map((p) => [kind, p] as const),
  );
  const editors = new Set([
    'teamOwner',
    'teamAdmin',
    'teamModerator',
    'teamMember',
    'contributor',
    'maintainer',
  ]);

  it.each(cases)('writes on a %s resource by %s', async (kind, persona) => {
    const resource = await resourceFor(t.app, cast, kind, 'APPROVED');
    const uploader = kind === 'USER' ? cast.owner : cast.teamOwner;
    const fixture = await upload(resource.id, await pngImage(10, 10), {}, uploader.headers);
    expect(fixture.statusCode).toBe(201);
    const image = fixture.json() as GalleryImageBody;
    const headers = headersOf(cast, persona);
    const create = await upload(resource.id, await pngImage(10, 10), {}, headers);
    const patch = await t.app.inject({
      method: 'PATCH',
      url: `${galleryUrl(resource.id)}/${image.id}`,
      headers,
      payload: { caption: 'x' },
    });
    const remove = await t.app.inject({
      method: 'DELETE',
      url: `${galleryUrl(resource.id)}/${image.id}`,
      headers,
    });
    const mayEdit =
      kind === 'USER'
        ? persona === 'owner' || persona === 'contributor' || persona === 'maintainer'
        : editors.has(persona);
    if (persona === 'anonymous') {
      for (const response of [create, patch, remove]) expectError(response, 401);
    } else if (mayEdit) {
      expect([create.statusCode, patch.statusCode, remove.statusCode]).toEqual([201, 200, 200]);
    } else {
      for (const response of [create, patch, remove]) expectError(response, 403);
    }
  });

  it('reads of a resource that is not APPROVED follow its visibility (404 to the public)', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'PENDING');
    const image = await added(resource.id);
    for (const headers of [{}, cast.stranger.headers]) {
      expectError(await t.app.inject({ method: 'GET', url: galleryUrl(resource.id), headers }), 404);
      expectError(
        await t.app.inject({ method: 'GET', url: `${galleryUrl(resource.id)}/${image.id}`, headers }),
        404,
      );
    }
    for (const user of [cast.owner, cast.contributor, cast.moderator]) {
      expect(await list(resource.id, user.headers)).toHaveLength(1);
    }
  });
});
