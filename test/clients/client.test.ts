// The typed client (clients/typescript) against the real app over HTTP: every call below goes through the client
// and its generated types; only the moderator account is made with the test factory (roles are not granted
// through the API).
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, createClient } from '../../clients/typescript/src/index.js';
import type { MarketplaceClient } from '../../clients/typescript/src/index.js';
import { createUser } from '../helpers/factories.js';
import { pngImage } from '../fixtures/images.js';
import { listeningApp } from './helpers.js';
import type { ListeningApp } from './helpers.js';

let t: ListeningApp;
let anonymous: MarketplaceClient;
let owner: MarketplaceClient;
let moderator: MarketplaceClient;

const password = 'correct horse battery staple';
const username = `client_${process.pid}`;

beforeAll(async () => {
  t = await listeningApp();
  anonymous = createClient({ baseUrl: t.baseUrl, userAgent: 'marketplace-client-test/1.0' });
  moderator = anonymous.withAuth({ apiKey: (await createUser(t.app, { role: 'MODERATOR' })).apiKey });

  // register → log in → an API key, all through the client.
  const registered = await anonymous.post('/auth/register', {
    body: { username, email: `${username}@example.test`, password },
  });
  expect(registered.user.username).toBe(username);
  const session = await anonymous.post('/auth/login', { body: { login: username, password } });
  const key = await anonymous
    .withAuth({ token: session.token })
    .post('/users/me/api-keys', { body: { name: 'client test' } });
  expect(key.key).toMatch(/^mk_/);
  owner = anonymous.withAuth({ apiKey: key.key });
});
afterAll(async () => t?.close());

describe('the typed client against the live app', () => {
  it('creates, uploads, submits, approves and downloads a resource version', async () => {
    const resource = await owner.post('/resources', {
      body: {
        name: 'Client Mod',
        slug: `client-mod-${process.pid}`,
        shortDescription: 'Made by the client',
        type: 'MOD',
      },
    });
    expect(resource.status).toBe('PENDING');

    const icon = await owner.upload('/resources/{id}/icon', {
      path: { id: resource.id },
      form: { icon: new Blob([new Uint8Array(await pngImage(64, 64))], { type: 'image/png' }) },
    });
    expect(icon.iconUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/cdn\//);

    const { gameVersions } = await anonymous.get('/game-versions');
    const version = await owner.post('/resources/{resourceId}/versions', {
      path: { resourceId: resource.id },
      body: { versionNumber: '1.0.0', channel: 'RELEASE', compatibleGameVersionIds: [gameVersions[0]!.id] },
    });
    expect(version.status).toBe('DRAFT');

    // A stream goes out as a streamed multipart body, never buffered by the client.
    const content = Buffer.from('client upload\n'.repeat(1000));
    const stream = Readable.toWeb(Readable.from([content.subarray(0, 5000), content.subarray(5000)]));
    const file = await owner.upload('/resources/{resourceId}/versions/{versionId}/files', {
      path: { resourceId: resource.id, versionId: version.id },
      form: {
        displayName: 'The mod',
        file: { data: stream as ReadableStream<Uint8Array>, fileName: 'client-mod.jar' },
      },
    });
    expect(file).toMatchObject({
      fileName: 'client-mod.jar',
      displayName: 'The mod',
      fileSize: content.length,
    });
    expect(file.hashes.sha256).toBe(createHash('sha256').update(content).digest('hex'));

    const versionPath = { resourceId: resource.id, versionId: version.id };
    expect(
      (await owner.post('/resources/{resourceId}/versions/{versionId}/submit', { path: versionPath })).status,
    ).toBe('PENDING');
    const approved = await moderator.post('/resources/{resourceId}/versions/{versionId}/approve', {
      path: versionPath,
    });
    expect(approved.status).toBe('APPROVED');

    const redirect = await owner.raw(
      'GET',
      '/resources/{resourceId}/versions/{versionId}/download/{fileId}',
      {
        path: { ...versionPath, fileId: file.id },
        redirect: 'manual',
      },
    );
    expect(redirect.status).toBe(302);
    const signed = await fetch(redirect.headers.get('location')!);
    expect(signed.status).toBe(200);
    expect(Buffer.from(await signed.arrayBuffer()).equals(content)).toBe(true);
  });

  it('uploads byte arrays through FormData with the other form fields', async () => {
    const resource = await owner.post('/resources', {
      body: {
        name: 'Gallery Mod',
        slug: `gallery-mod-${process.pid}`,
        shortDescription: 'Pictures',
        type: 'MOD',
      },
    });
    const image = await owner.upload('/resources/{resourceId}/gallery-images', {
      path: { resourceId: resource.id },
      form: { image: new Uint8Array(await pngImage(32, 32)), caption: 'A caption', altText: 'Teal noise' },
    });
    expect(image).toMatchObject({ caption: 'A caption', altText: 'Teal noise' });
  });

  it('iterates page-based and offset-based lists across pages', async () => {
    const slugs: string[] = [];
    for (let index = 0; index < 5; index += 1) {
      const slug = `paged-${process.pid}-${index}`;
      slugs.push(slug);
      await owner.post('/resources', {
        body: { name: `Paged ${index}`, slug, shortDescription: 'x', type: 'MOD' },
      });
    }
    const seen: string[] = [];
    for await (const item of owner.paginate('/resources/me', { query: { limit: 2 } })) seen.push(item.slug);
    expect(seen).toEqual(expect.arrayContaining(slugs));
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBeGreaterThan(2);

    const teamNames: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      const slug = `client-team-${process.pid}-${index}`;
      teamNames.push((await owner.post('/teams', { body: { name: `Client team ${index}`, slug } })).name);
    }
    const teams: string[] = [];
    for await (const team of anonymous.paginate('/teams', { query: { limit: 1 } })) teams.push(team.name);
    expect(teams).toEqual(expect.arrayContaining(teamNames));
    expect(new Set(teams).size).toBe(teams.length);
  });

  it('throws ApiError with the typed code, status, details and request id', async () => {
    const missing = await anonymous
      .get('/resources/{id}', { path: { id: 'no-such-resource' } })
      .catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(ApiError);
    const error = missing as ApiError;
    expect(error).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect(error.requestId).toBeTruthy();

    const invalid = await owner
      .post('/resources', { body: { name: '', slug: 'x', shortDescription: '', type: 'MOD' } })
      .catch((caught: unknown) => caught as ApiError);
    expect(invalid).toMatchObject({ status: 400, code: 'INVALID_REQUEST' });

    const unauthorized = await anonymous
      .post('/users/me/api-keys', { body: { name: 'nope' } })
      .catch((caught: unknown) => caught as ApiError);
    expect(unauthorized).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
  });

  it('refuses a call with a missing path parameter before sending it', async () => {
    await expect(anonymous.get('/resources/{id}', { path: { id: '' } })).rejects.toThrow(
      'Path parameter id of /resources/{id} is missing',
    );
  });
});
