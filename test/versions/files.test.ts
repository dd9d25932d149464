// Version files: streamed upload with hashes and detected type, the size limit, primary file rules, rule 5,
// status rules, and cleanup of objects with their version and resource.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { expectError, multipart } from '../helpers/http.js';
import { pngImage } from '../fixtures/images.js';
import { createResourceCast, resourceFor } from '../resources/helpers.js';
import type { ResourceCast } from '../resources/helpers.js';
import { createVersion, readVersion, uploadFile, versionIn, versionUrl } from './helpers.js';
import type { VersionBody } from './helpers.js';

let t: TestApp;
let cast: ResourceCast;

beforeAll(async () => {
  t = await buildTestApp({ MAX_FILE_MB: '1' });
  cast = await createResourceCast(t.app);
});
afterAll(async () => t.close());

const actors = () => ({ editor: cast.owner, moderator: cast.moderator });
const digest = (algorithm: string, data: Buffer) => createHash(algorithm).update(data).digest('hex');

async function storedKeys(versionId: string): Promise<string[]> {
  const rows = await t.app.context.database.db
    .selectFrom('version_files')
    .select('storage_key')
    .where('version_id', '=', versionId)
    .execute();
  return rows.map((row) => row.storage_key);
}

async function objectExists(key: string): Promise<boolean> {
  return (await t.app.context.storage.head(key)) !== undefined;
}

describe('upload', () => {
  it('streams the file, stores its hashes, detects the type and makes the first file primary', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const version = await createVersion(t.app, cast.owner, resource.id);
    const png = await pngImage(32, 32);
    const first = await uploadFile(t.app, cast.owner, resource.id, version.id, {
      data: png,
      name: 'shot.jar',
    });
    expect(first).toMatchObject({
      versionId: version.id,
      fileName: 'shot.jar',
      displayName: null,
      fileSize: png.length,
      fileType: 'png',
      isPrimaryFile: true,
      hashes: { sha256: digest('sha256', png), sha1: digest('sha1', png) },
    });
    const text = Buffer.from('# Read me\n');
    const second = await uploadFile(
      t.app,
      cast.contributor,
      resource.id,
      version.id,
      { data: text, name: '../../etc/README.md' },
      { displayName: 'Documentation' },
    );
    expect(second).toMatchObject({
      fileName: 'README.md',
      fileType: 'md',
      isPrimaryFile: false,
      displayName: 'Documentation',
    });
    const keys = await storedKeys(version.id);
    for (const key of keys) expect(key).toMatch(new RegExp(`^files/${resource.id}/${version.id}/`));
    const stored = await t.app.context.storage.get(keys.find((key) => key.endsWith(first.id))!);
    const chunks: Buffer[] = [];
    for await (const chunk of stored!.body) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(png)).toBe(true);
    const full = await readVersion(t.app, cast.owner, resource.id, version.id);
    expect(full.files.map((f) => [f.id, f.isPrimaryFile])).toEqual([
      [first.id, true],
      [second.id, false],
    ]);
  });

  it('accepts displayName after the file too; refuses a displayName over 100 characters (400, nothing kept)', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const version = await createVersion(t.app, cast.owner, resource.id);
    const form = new FormData();
    form.append('file', new Blob([Buffer.from('abc')]), 'a.txt');
    form.append('displayName', 'After');
    const encoded = new Response(form);
    const response = await t.app.inject({
      method: 'POST',
      url: `${versionUrl(resource.id, version.id)}/files`,
      headers: { ...cast.owner.headers, 'content-type': encoded.headers.get('content-type')! },
      payload: Buffer.from(await encoded.arrayBuffer()),
    });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json()).toMatchObject({ displayName: 'After' });
    const tooLong = await multipart(
      'file',
      { data: Buffer.from('x'), name: 'b.txt' },
      { displayName: 'd'.repeat(101) },
    );
    const refused = await t.app.inject({
      method: 'POST',
      url: `${versionUrl(resource.id, version.id)}/files`,
      headers: { ...cast.owner.headers, ...tooLong.headers },
      payload: tooLong.payload,
    });
    expectError(refused, 400);
    expect(await storedKeys(version.id)).toHaveLength(1);
  });

  it('over MAX_FILE_MB is 413 and nothing is stored', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const version = await createVersion(t.app, cast.owner, resource.id);
    const form = await multipart('file', { data: Buffer.alloc(1024 * 1024 + 1, 7), name: 'big.bin' });
    const response = await t.app.inject({
      method: 'POST',
      url: `${versionUrl(resource.id, version.id)}/files`,
      headers: { ...cast.owner.headers, ...form.headers },
      payload: form.payload,
    });
    expectError(response, 413, 'PAYLOAD_TOO_LARGE');
    expect(await storedKeys(version.id)).toEqual([]);
    if (t.app.context.storage.driver === 'local') {
      const dir = join(t.config.dataDir, 'storage', 'objects', 'files', resource.id, version.id);
      expect(existsSync(dir) ? readdirSync(dir).filter((name) => !name.startsWith('.')) : []).toEqual([]);
    }
    // Exactly the limit is fine.
    const exact = await multipart('file', { data: Buffer.alloc(1024 * 1024, 7), name: 'exact.bin' });
    const ok = await t.app.inject({
      method: 'POST',
      url: `${versionUrl(resource.id, version.id)}/files`,
      headers: { ...cast.owner.headers, ...exact.headers },
      payload: exact.payload,
    });
    expect(ok.statusCode, ok.body).toBe(201);
  });

  it('without a file is 400', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const version = await createVersion(t.app, cast.owner, resource.id);
    const form = await multipart('file', undefined, { displayName: 'x' });
    const response = await t.app.inject({
      method: 'POST',
      url: `${versionUrl(resource.id, version.id)}/files`,
      headers: { ...cast.owner.headers, ...form.headers },
      payload: form.payload,
    });
    expectError(response, 400);
  });

  it.each(['PENDING', 'APPROVED', 'ARCHIVED'] as const)(
    'is refused in %s (409), allowed in DRAFT and REJECTED',
    async (status) => {
      const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
      const version = await versionIn(t.app, actors(), resource.id, status);
      const form = await multipart('file', { data: Buffer.from('x'), name: 'x.txt' });
      const response = await t.app.inject({
        method: 'POST',
        url: `${versionUrl(resource.id, version.id)}/files`,
        headers: { ...cast.owner.headers, ...form.headers },
        payload: form.payload,
      });
      expectError(response, 409, 'INVALID_STATUS_TRANSITION');
      expect(await storedKeys(version.id)).toHaveLength(1);
      const rejected = await versionIn(t.app, actors(), resource.id, 'REJECTED');
      await uploadFile(t.app, cast.owner, resource.id, rejected.id);
    },
  );

  it('keeps at most 20 files per version (409 LIMIT_REACHED)', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const version = await createVersion(t.app, cast.owner, resource.id);
    for (let i = 0; i < 20; i++) {
      await uploadFile(t.app, cast.owner, resource.id, version.id, {
        data: Buffer.from(`f${i}`),
        name: `f${i}.txt`,
      });
    }
    const form = await multipart('file', { data: Buffer.from('x'), name: 'x.txt' });
    const response = await t.app.inject({
      method: 'POST',
      url: `${versionUrl(resource.id, version.id)}/files`,
      headers: { ...cast.owner.headers, ...form.headers },
      payload: form.payload,
    });
    expectError(response, 409, 'LIMIT_REACHED');
  });

  it('concurrent first uploads leave exactly one primary file', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const version = await createVersion(t.app, cast.owner, resource.id);
    await Promise.all(
      [1, 2, 3, 4].map((i) =>
        uploadFile(t.app, cast.owner, resource.id, version.id, {
          data: Buffer.from(`c${i}`),
          name: `c${i}.txt`,
        }),
      ),
    );
    const full = await readVersion(t.app, cast.owner, resource.id, version.id);
    expect(full.files).toHaveLength(4);
    expect(full.files.filter((f) => f.isPrimaryFile)).toHaveLength(1);
  });
});

describe('delete and primary', () => {
  async function deleteFile(resourceId: string, versionId: string, fileId: string) {
    return t.app.inject({
      method: 'DELETE',
      url: `${versionUrl(resourceId, versionId)}/files/${fileId}`,
      headers: cast.owner.headers,
    });
  }

  it('deleting the primary file promotes another; the object goes too', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const version = await createVersion(t.app, cast.owner, resource.id);
    const a = await uploadFile(t.app, cast.owner, resource.id, version.id, {
      data: Buffer.from('a'),
      name: 'a.txt',
    });
    const b = await uploadFile(t.app, cast.owner, resource.id, version.id, {
      data: Buffer.from('b'),
      name: 'b.txt',
    });
    const keyOfA = (await storedKeys(version.id)).find((key) => key.endsWith(a.id))!;
    const response = await deleteFile(resource.id, version.id, a.id);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ message: expect.any(String) });
    expect(await objectExists(keyOfA)).toBe(false);
    const full = await readVersion(t.app, cast.owner, resource.id, version.id);
    expect(full.files.map((f) => [f.id, f.isPrimaryFile])).toEqual([[b.id, true]]);
    expectError(await deleteFile(resource.id, version.id, a.id), 404);
  });

  it.each([
    ['DRAFT', 200],
    ['REJECTED', 200],
    ['PENDING', 409],
    ['APPROVED', 409],
    ['ARCHIVED', 409],
  ] as const)('the last file of a %s version: %s', async (status, expected) => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const version = await versionIn(t.app, actors(), resource.id, status);
    const response = await deleteFile(resource.id, version.id, version.files[0]!.id);
    if (expected === 200) expect(response.statusCode, response.body).toBe(200);
    else expectError(response, 409, status === 'ARCHIVED' ? 'INVALID_STATUS_TRANSITION' : 'LAST_FILE');
  });

  it('a PENDING or APPROVED version with two files may lose one', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const two = [
      { data: Buffer.from('1'), name: '1.txt' },
      { data: Buffer.from('2'), name: '2.txt' },
    ];
    for (const status of ['PENDING', 'APPROVED'] as const) {
      const version = await versionIn(t.app, actors(), resource.id, status, two);
      expect((await deleteFile(resource.id, version.id, version.files[0]!.id)).statusCode).toBe(200);
      expectError(await deleteFile(resource.id, version.id, version.files[1]!.id), 409, 'LAST_FILE');
    }
  });

  it('PATCH files/primary moves the primary file (not in ARCHIVED; unknown or foreign file 404)', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const two = [
      { data: Buffer.from('1'), name: '1.txt' },
      { data: Buffer.from('2'), name: '2.txt' },
    ];
    const version = await versionIn(t.app, actors(), resource.id, 'APPROVED', two);
    const other = await versionIn(t.app, actors(), resource.id, 'ARCHIVED', two);
    const setPrimary = (versionId: string, fileId: string) =>
      t.app.inject({
        method: 'PATCH',
        url: `${versionUrl(resource.id, versionId)}/files/primary`,
        headers: cast.contributor.headers,
        payload: { fileId },
      });
    const moved = await setPrimary(version.id, version.files[1]!.id);
    expect(moved.statusCode, moved.body).toBe(200);
    expect((moved.json() as VersionBody).files.map((f) => f.isPrimaryFile)).toEqual([false, true]);
    expectError(await setPrimary(version.id, other.files[0]!.id), 404);
    expectError(await setPrimary(other.id, other.files[1]!.id), 409, 'INVALID_STATUS_TRANSITION');
  });

  it('deleting a version or its resource deletes the stored objects', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const draft = await versionIn(t.app, actors(), resource.id, 'DRAFT');
    const approved = await versionIn(t.app, actors(), resource.id, 'APPROVED');
    const draftKeys = await storedKeys(draft.id);
    const approvedKeys = await storedKeys(approved.id);
    expect(await objectExists(draftKeys[0]!)).toBe(true);
    const removed = await t.app.inject({
      method: 'DELETE',
      url: versionUrl(resource.id, draft.id),
      headers: cast.owner.headers,
    });
    expect(removed.statusCode).toBe(200);
    expect(await objectExists(draftKeys[0]!)).toBe(false);
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/resources/${resource.id}`,
      headers: cast.owner.headers,
    });
    expect(deleted.statusCode, deleted.body).toBe(204);
    expect(await objectExists(approvedKeys[0]!)).toBe(false);
    const { db } = t.app.context.database;
    expect(
      await db.selectFrom('resource_versions').select('id').where('resource_id', '=', resource.id).execute(),
    ).toEqual([]);
    expect(
      await db.selectFrom('version_files').select('id').where('version_id', '=', approved.id).execute(),
    ).toEqual([]);
  });
});
