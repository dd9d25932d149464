// The shared description-image rules, exercised on the service with a real database and storage.
// The HTTP mounts (/resources/description-images, /servers/description-images) have their own tests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS } from '../../src/core/clock.js';
import { createMediaUrls } from '../../src/core/media-urls.js';
import {
  MAX_TEMPORARY_IMAGES,
  createDescriptionImagesService,
} from '../../src/modules/description-images/description-images.service.js';
import type { DescriptionImagesService } from '../../src/modules/description-images/description-images.service.js';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import { gifImage, pngImage, textFile } from '../fixtures/images.js';

describe('description images', () => {
  let t: TestApp;
  let service: DescriptionImagesService;
  let colour = 0;
  /** A distinct PNG each call (the service deduplicates identical images). */
  const uniquePng = async () => {
    colour += 1;
    return pngImage(8 + (colour % 50), 8 + Math.floor(colour / 50));
  };
  const upload = async (ownerId: string, uploaderId: string, data?: Buffer) =>
    service.upload('RESOURCE', ownerId, uploaderId, {
      data: data ?? (await uniquePng()),
      fileName: 'shot.png',
    });
  const cdnPath = (url: string) => new URL(url).pathname;
  const fetchObject = (url: string) => t.app.inject({ method: 'GET', url: cdnPath(url) });

  beforeAll(async () => {
    t = await buildTestApp();
    const { database, storage, clock } = t.app.context;
    service = createDescriptionImagesService({
      db: database.db,
      dialect: database.dialect,
      storage,
      clock,
      urls: createMediaUrls(storage),
    });
  });
  afterAll(async () => t.close());

  it('stores an upload as a temporary, unused image served under CDN_URL', async () => {
    const user = await createUser(t.app);
    const { image, created } = await upload('owner-1', user.id);
    expect(created).toBe(true);
    expect(image).toMatchObject({ fileName: 'shot.png', isTemporary: true, isUsed: false });
    expect(image.url.startsWith(`${t.config.cdnUrl}/images/description/resource/owner-1/`)).toBe(true);
    const served = await fetchObject(image.url);
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(image.fileSize).toBe(served.rawPayload.length);
  });

  it('accepts GIF and refuses other kinds with 415', async () => {
    const user = await createUser(t.app);
    await expect(upload('owner-gif', user.id, await gifImage(10, 10, 2))).resolves.toMatchObject({
      created: true,
    });
    await expect(upload('owner-gif', user.id, textFile())).rejects.toMatchObject({ statusCode: 415 });
  });

  it('returns the existing image for an identical upload to the same owner', async () => {
    const [first, second] = [await createUser(t.app), await createUser(t.app)];
    const data = await uniquePng();
    const original = await upload('owner-dedup', first.id, data);
    const again = await upload('owner-dedup', second.id, data);
    expect(again).toEqual({ image: original.image, created: false });
    // Another owner gets its own copy.
    const elsewhere = await upload('owner-other', first.id, data);
    expect(elsewhere.created).toBe(true);
    expect(elsewhere.image.id).not.toBe(original.image.id);
  });

  it(`keeps at most ${MAX_TEMPORARY_IMAGES} temporary images per user (409 TEMPORARY_IMAGE_LIMIT)`, async () => {
    const user = await createUser(t.app);
    for (let i = 0; i < MAX_TEMPORARY_IMAGES; i++) await upload(`owner-limit-${i % 3}`, user.id);
    await expect(upload('owner-limit-x', user.id)).rejects.toMatchObject({
      statusCode: 409,
      code: 'TEMPORARY_IMAGE_LIMIT',
    });
    // Using one in a saved description frees a slot.
    const [temporary] = await service.listTemporary('RESOURCE', 'owner-limit-0', user.id);
    await service.markUsed('RESOURCE', 'owner-limit-0', `![shot](${temporary!.url})`);
    await expect(upload('owner-limit-x', user.id)).resolves.toMatchObject({ created: true });
  });

  it('makes an image permanent when a saved description contains its URL, and lists only temporary ones', async () => {
    const user = await createUser(t.app);
    const a = (await upload('owner-used', user.id)).image;
    const b = (await upload('owner-used', user.id)).image;
    expect((await service.listTemporary('RESOURCE', 'owner-used', user.id)).map((i) => i.id).sort()).toEqual(
      [a.id, b.id].sort(),
    );
    await service.markUsed('RESOURCE', 'owner-used', `Intro\n\n![a](${a.url})\n`);
    expect((await service.listTemporary('RESOURCE', 'owner-used', user.id)).map((i) => i.id)).toEqual([b.id]);
    // Another user's temporary list for the same owner is their own.
    const other = await createUser(t.app);
    expect(await service.listTemporary('RESOURCE', 'owner-used', other.id)).toEqual([]);
  });

  it('lets only the uploader delete, only while the saved description does not use the image', async () => {
    const [uploader, stranger] = [await createUser(t.app), await createUser(t.app)];
    const image = (await upload('owner-del', uploader.id)).image;
    await expect(service.remove('RESOURCE', 'owner-del', image.id, stranger.id)).rejects.toMatchObject({
      statusCode: 403,
    });
    await expect(service.remove('RESOURCE', 'another-owner', image.id, uploader.id)).rejects.toMatchObject({
      statusCode: 404,
    });
    await service.markUsed('RESOURCE', 'owner-del', `![x](${image.url})`);
    await expect(service.remove('RESOURCE', 'owner-del', image.id, uploader.id)).rejects.toMatchObject({
      statusCode: 409,
      code: 'IMAGE_IN_USE',
    });
    // Taken out of the description: permanent but unused, so its uploader may delete it.
    await service.markUsed('RESOURCE', 'owner-del', 'no images any more');
    await service.remove('RESOURCE', 'owner-del', image.id, uploader.id);
    expect((await fetchObject(image.url)).statusCode).toBe(404);
    await expect(service.remove('RESOURCE', 'owner-del', image.id, uploader.id)).rejects.toMatchObject({
      statusCode: 404,
    });
  });

  it('purges never-used temporary images older than 7 days, rows and objects, and keeps the rest', async () => {
    const user = await createUser(t.app);
    const stale = (await upload('owner-purge', user.id)).image;
    const used = (await upload('owner-purge', user.id)).image;
    await service.markUsed('RESOURCE', 'owner-purge', `![u](${used.url})`);
    t.clock.advance(7 * DAY_MS - 1000);
    const fresh = (await upload('owner-purge', user.id)).image;
    await t.app.context.scheduler.runNow('purge-temporary-description-images');
    expect((await fetchObject(stale.url)).statusCode).toBe(200);

    t.clock.advance(2000);
    await t.app.context.scheduler.runNow('purge-temporary-description-images');
    expect((await fetchObject(stale.url)).statusCode).toBe(404);
    expect((await fetchObject(used.url)).statusCode).toBe(200);
    expect((await fetchObject(fresh.url)).statusCode).toBe(200);
    expect((await service.listTemporary('RESOURCE', 'owner-purge', user.id)).map((i) => i.id)).toEqual([
      fresh.id,
    ]);
  });

  it('deletes every image of an owner that is deleted (rows, then objects)', async () => {
    const user = await createUser(t.app);
    const a = (await upload('owner-gone', user.id)).image;
    const b = (await upload('owner-gone', user.id)).image;
    await service.markUsed('RESOURCE', 'owner-gone', `![a](${a.url})`);
    const keys = await service.deleteRowsOf(t.app.context.database.db, 'RESOURCE', 'owner-gone');
    expect(keys).toHaveLength(2);
    await service.deleteObjects(keys);
    expect((await fetchObject(a.url)).statusCode).toBe(404);
    expect((await fetchObject(b.url)).statusCode).toBe(404);
  });
});
