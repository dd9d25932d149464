// Server logo and banner: upload, replace and remove, with the stored objects following.
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createPersonas } from '../helpers/factories.js';
import type { Personas, TestUser } from '../helpers/factories.js';
import { expectError, multipart } from '../helpers/http.js';
import { gifImage, jpegImage, pngImage, webpImage } from '../fixtures/images.js';
import { createApprovedServer, createServer, expectServerInvariants, getServer } from './helpers.js';
import type { ServerBody } from './helpers.js';

let t: TestApp;
let p: Personas;

beforeAll(async () => {
  t = await buildTestApp();
  p = await createPersonas(t.app);
});
afterAll(async () => t.close());
afterEach(async () => expectServerInvariants(t.app));

async function upload(
  serverId: string,
  kind: 'logo' | 'banner',
  by: TestUser | null,
  data: Buffer,
  field: string = kind,
) {
  const body = await multipart(field, { data, name: `${kind}.img` });
  return t.app.inject({
    method: 'POST',
    url: `/servers/${serverId}/${kind}`,
    headers: { ...(by ? by.headers : {}), ...body.headers },
    payload: body.payload,
  });
}
const fetchUrl = (url: string) => t.app.inject({ method: 'GET', url: new URL(url).pathname });

describe.each([
  ['logo', 512, 512],
  ['banner', 1920, 1080],
] as const)('server %s', (kind, maxWidth, maxHeight) => {
  const urlOf = (server: ServerBody) => (kind === 'logo' ? server.logoUrl : server.bannerUrl);

  it('is uploaded, scaled to fit, replaced and removed; old objects are deleted', async () => {
    const server = await createApprovedServer(t.app, p.user, p.moderator);
    const first = await upload(server.id, kind, p.user, await jpegImage(2400, 1600));
    expect(first.statusCode, first.body).toBe(200);
    const firstUrl = urlOf(first.json() as ServerBody)!;
    expect(firstUrl).toContain(`/images/server-${kind}s/${server.id}/`);
    const stored = await fetchUrl(firstUrl);
    expect(stored.statusCode).toBe(200);
    const meta = await sharp(stored.rawPayload).metadata();
    expect(meta.width).toBeLessThanOrEqual(maxWidth);
    expect(meta.height).toBeLessThanOrEqual(maxHeight);
    // Shown in the public list too.
    const listed = (await t.app.inject({ method: 'GET', url: '/servers' })).json() as {
      servers: ServerBody[];
    };
    expect(urlOf(listed.servers.find((s) => s.id === server.id)!)).toBe(firstUrl);

    const second = await upload(server.id, kind, p.user, await pngImage(300, 200));
    const secondUrl = urlOf(second.json() as ServerBody)!;
    expect(secondUrl).not.toBe(firstUrl);
    expect((await fetchUrl(firstUrl)).statusCode).toBe(404);

    const removed = await t.app.inject({
      method: 'DELETE',
      url: `/servers/${server.id}/${kind}`,
      headers: p.user.headers,
    });
    expect(removed.statusCode, removed.body).toBe(200);
    expect(urlOf(removed.json() as ServerBody)).toBeNull();
    expect((await fetchUrl(secondUrl)).statusCode).toBe(404);
  });

  it('accepts WEBP and refuses GIF (415), a missing file (400) and a wrong field (400)', async () => {
    const server = await createServer(t.app, p.user);
    expect((await upload(server.id, kind, p.user, await webpImage(64, 64))).statusCode).toBe(200);
    expectError(await upload(server.id, kind, p.user, await gifImage(20, 20)), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectError(await upload(server.id, kind, p.user, await pngImage(10, 10), 'image'), 400);
    const empty = await multipart(kind, undefined, { note: 'no file' });
    expectError(
      await t.app.inject({
        method: 'POST',
        url: `/servers/${server.id}/${kind}`,
        headers: { ...p.user.headers, ...empty.headers },
        payload: empty.payload,
      }),
      400,
    );
  });

  it('is deleted with the server', async () => {
    const server = await createServer(t.app, p.user);
    const url = urlOf((await upload(server.id, kind, p.user, await pngImage(40, 40))).json() as ServerBody)!;
    expect((await getServer(t.app, server.slug, p.user)).id).toBe(server.id);
    await t.app.inject({ method: 'DELETE', url: `/servers/${server.id}`, headers: p.user.headers });
    expect((await fetchUrl(url)).statusCode).toBe(404);
  });
});
