// Server description images: the shared module mounted at /servers/description-images/:serverId with the
// server access checks, permanence on save, and cleanup when the server is deleted.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createPersonas } from '../helpers/factories.js';
import type { Personas, TestUser } from '../helpers/factories.js';
import { expectError, multipart } from '../helpers/http.js';
import { pngImage } from '../fixtures/images.js';
import { createCast, createStaffedTeam } from '../teams/helpers.js';
import type { TeamBody, TeamCast } from '../teams/helpers.js';
import { createApprovedServer, createServer, expectServerInvariants, getServer } from './helpers.js';

interface Image {
  id: string;
  url: string;
  fileName: string;
  fileSize: number;
  isTemporary: boolean;
  isUsed: boolean;
  createdAt: string;
}

let t: TestApp;
let p: Personas;
let cast: TeamCast;
let team: TeamBody;
let size = 10;

beforeAll(async () => {
  t = await buildTestApp();
  p = await createPersonas(t.app);
  cast = await createCast(t.app);
  team = await createStaffedTeam(t.app, cast);
});
afterAll(async () => t.close());
afterEach(async () => expectServerInvariants(t.app));

async function upload(serverId: string, by: TestUser | null, data?: Buffer) {
  size += 1;
  const body = await multipart('file', {
    data: data ?? (await pngImage(size, size)),
    name: 'shot.png',
    type: 'image/png',
  });
  return t.app.inject({
    method: 'POST',
    url: `/servers/description-images/${serverId}/upload`,
    headers: { ...(by ? by.headers : {}), ...body.headers },
    payload: body.payload,
  });
}

const temporary = async (serverId: string, by: TestUser) => {
  const response = await t.app.inject({
    method: 'GET',
    url: `/servers/description-images/${serverId}/temporary`,
    headers: by.headers,
  });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { images: Image[] }).images;
};

const objectStatus = async (url: string) =>
  (await t.app.inject({ method: 'GET', url: new URL(url).pathname })).statusCode;

describe('server description images', () => {
  it('uploads for the owner (201), returns the same image for the same bytes (200)', async () => {
    const server = await createServer(t.app, p.user);
    const png = await pngImage(33, 33);
    const first = await upload(server.id, p.user, png);
    expect(first.statusCode, first.body).toBe(201);
    const image = first.json() as Image;
    expect(image).toMatchObject({ isTemporary: true, isUsed: false, fileName: 'shot.png' });
    expect(image.url).toContain(`/images/description/server/${server.id}/`);
    const again = await upload(server.id, p.user, png);
    expect(again.statusCode).toBe(200);
    expect((again.json() as Image).id).toBe(image.id);
    expect(await objectStatus(image.url)).toBe(200);
  });

  it('needs manage rights to upload: team members yes, strangers 403, anonymous 401, unknown 404', async () => {
    const server = await createApprovedServer(t.app, cast.owner, p.moderator, {
      ownerType: 'TEAM',
      ownerId: team.id,
    });
    for (const member of [cast.owner, cast.admin, cast.moderator, cast.member]) {
      expect((await upload(server.id, member)).statusCode).toBe(201);
    }
    expectError(await upload(server.id, cast.nonMember), 403, 'FORBIDDEN');
    expectError(await upload(server.id, p.moderator), 403, 'FORBIDDEN');
    expectError(await upload(server.id, null), 401, 'UNAUTHORIZED');
    expectError(await upload('01900000-0000-7000-8000-000000000000', p.user), 404, 'NOT_FOUND');
    const pending = await createServer(t.app, p.user);
    expectError(await upload(pending.id, p.stranger), 404, 'NOT_FOUND');
  });

  it('makes an image permanent when a saved description contains its URL', async () => {
    const server = await createServer(t.app, p.user);
    const kept = (await upload(server.id, p.user)).json() as Image;
    const other = (await upload(server.id, p.user)).json() as Image;
    expect((await temporary(server.id, p.user)).map((i) => i.id).sort()).toEqual([kept.id, other.id].sort());
    const saved = await t.app.inject({
      method: 'PATCH',
      url: `/servers/${server.id}`,
      headers: p.user.headers,
      payload: { description: `Our spawn:\n\n![spawn](${kept.url})` },
    });
    expect(saved.statusCode, saved.body).toBe(200);
    expect((await temporary(server.id, p.user)).map((i) => i.id)).toEqual([other.id]);
    // Permanent and in use: the uploader may not delete it.
    expectError(
      await t.app.inject({
        method: 'DELETE',
        url: `/servers/description-images/${server.id}/${kept.id}`,
        headers: p.user.headers,
      }),
      409,
    );
    const removed = await t.app.inject({
      method: 'DELETE',
      url: `/servers/description-images/${server.id}/${other.id}`,
      headers: p.user.headers,
    });
    expect(removed.statusCode, removed.body).toBe(200);
  });

  it('hides the temporary list of a server the caller cannot see (404)', async () => {
    const server = await createServer(t.app, p.user);
    expectError(
      await t.app.inject({
        method: 'GET',
        url: `/servers/description-images/${server.id}/temporary`,
        headers: p.stranger.headers,
      }),
      404,
    );
  });

  it('deletes the images, rows and objects, with the server', async () => {
    const server = await createServer(t.app, p.user);
    const used = (await upload(server.id, p.user)).json() as Image;
    const unused = (await upload(server.id, p.user)).json() as Image;
    await t.app.inject({
      method: 'PATCH',
      url: `/servers/${server.id}`,
      headers: p.user.headers,
      payload: { description: `![x](${used.url})` },
    });
    expect((await getServer(t.app, server.slug, p.user)).description).toContain(used.url);
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/servers/${server.id}`,
      headers: p.user.headers,
    });
    expect(deleted.statusCode).toBe(204);
    const rows = await t.app.context.database.db
      .selectFrom('description_images')
      .select('id')
      .where('owner_id', '=', server.id)
      .execute();
    expect(rows).toEqual([]);
    expect(await objectStatus(used.url)).toBe(404);
    expect(await objectStatus(unused.url)).toBe(404);
  });
});
