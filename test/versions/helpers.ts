// Version fixtures: versions, files and status moves through the HTTP API, and a small ZIP reader for the
// archive tests.
import { inflateRawSync } from 'node:zlib';
import { expect } from 'vitest';
import type { App } from '../../src/app.js';
import type { TestUser } from '../helpers/factories.js';
import { multipart } from '../helpers/http.js';
import { readCatalogs } from '../resources/helpers.js';

export interface VersionFileBody {
  id: string;
  versionId: string;
  fileName: string;
  displayName: string | null;
  fileSize: number;
  fileType: string;
  isPrimaryFile: boolean;
  uploadedAt: string;
  hashes: { sha256: string; sha1: string };
}

export interface VersionBody {
  id: string;
  resourceId: string;
  versionNumber: string;
  name: string | null;
  channel: string;
  status: 'DRAFT' | 'PENDING' | 'APPROVED' | 'REJECTED' | 'ARCHIVED';
  changelog: string | null;
  downloads: number;
  isLatest: boolean;
  submissionNote: string | null;
  rejectionReason: string | null;
  createdAt: string;
  updatedAt: string;
  compatibleGameVersions: Array<{ id: string; name: string }>;
  files: VersionFileBody[];
}

let versionSequence = 0;

export async function gameVersionIds(app: App): Promise<string[]> {
  return (await readCatalogs(app)).gameVersions.map((version) => version.id);
}

export const versionsUrl = (resourceId: string) => `/resources/${resourceId}/versions`;
export const versionUrl = (resourceId: string, versionId: string) =>
  `/resources/${resourceId}/versions/${versionId}`;

export async function createVersion(
  app: App,
  user: TestUser,
  resourceId: string,
  body: Record<string, unknown> = {},
): Promise<VersionBody> {
  versionSequence += 1;
  const [gameVersion] = await gameVersionIds(app);
  const response = await app.inject({
    method: 'POST',
    url: versionsUrl(resourceId),
    headers: user.headers,
    payload: {
      versionNumber: `1.0.${versionSequence}`,
      channel: 'RELEASE',
      compatibleGameVersionIds: [gameVersion],
      ...body,
    },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as VersionBody;
}

export async function uploadFile(
  app: App,
  user: TestUser,
  resourceId: string,
  versionId: string,
  file: { data: Buffer; name: string } = { data: Buffer.from('hello world\n'), name: 'readme.txt' },
  fields: Record<string, string> = {},
): Promise<VersionFileBody> {
  const form = await multipart('file', file, fields);
  const response = await app.inject({
    method: 'POST',
    url: `${versionUrl(resourceId, versionId)}/files`,
    headers: { ...user.headers, ...form.headers },
    payload: form.payload,
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as VersionFileBody;
}

export async function act(
  app: App,
  user: TestUser,
  resourceId: string,
  versionId: string,
  action: 'submit' | 'resubmit' | 'approve' | 'reject' | 'archive',
  payload?: Record<string, unknown>,
): Promise<VersionBody> {
  const response = await app.inject({
    method: 'POST',
    url: `${versionUrl(resourceId, versionId)}/${action}`,
    headers: user.headers,
    ...(payload !== undefined ? { payload } : {}),
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as VersionBody;
}

/** A version with one text file (or the given files), moved to `status`. */
export async function versionIn(
  app: App,
  actors: { editor: TestUser; moderator: TestUser },
  resourceId: string,
  status: VersionBody['status'],
  files: Array<{ data: Buffer; name: string }> = [{ data: Buffer.from('content\n'), name: 'mod.txt' }],
): Promise<VersionBody> {
  const { editor, moderator } = actors;
  const version = await createVersion(app, editor, resourceId);
  for (const file of files) await uploadFile(app, editor, resourceId, version.id, file);
  if (status === 'DRAFT') return readVersion(app, editor, resourceId, version.id);
  await act(app, editor, resourceId, version.id, 'submit');
  if (status === 'PENDING') return readVersion(app, editor, resourceId, version.id);
  if (status === 'REJECTED') return act(app, moderator, resourceId, version.id, 'reject', { reason: 'no' });
  await act(app, moderator, resourceId, version.id, 'approve');
  if (status === 'APPROVED') return readVersion(app, editor, resourceId, version.id);
  return act(app, editor, resourceId, version.id, 'archive');
}

export async function readVersion(
  app: App,
  user: TestUser | null,
  resourceId: string,
  versionId: string,
): Promise<VersionBody> {
  const response = await app.inject({
    method: 'GET',
    url: versionUrl(resourceId, versionId),
    headers: user?.headers ?? {},
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as VersionBody;
}

/** Entries of a ZIP archive, read through its central directory (STORE and DEFLATE). */
export function unzip(archive: Buffer): Map<string, Buffer> {
  const eocd = archive.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) throw new Error('No end of central directory');
  const count = archive.readUInt16LE(eocd + 10);
  let offset = archive.readUInt32LE(eocd + 16);
  const entries = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) {
    if (archive.readUInt32LE(offset) !== 0x02014b50) throw new Error('Bad central directory entry');
    const method = archive.readUInt16LE(offset + 10);
    const compressedSize = archive.readUInt32LE(offset + 20);
    const nameLength = archive.readUInt16LE(offset + 28);
    const extraLength = archive.readUInt16LE(offset + 30);
    const commentLength = archive.readUInt16LE(offset + 32);
    const localOffset = archive.readUInt32LE(offset + 42);
    const name = archive.subarray(offset + 46, offset + 46 + nameLength).toString('utf8');
    const localName = archive.readUInt16LE(localOffset + 26);
    const localExtra = archive.readUInt16LE(localOffset + 28);
    const start = localOffset + 30 + localName + localExtra;
    const data = archive.subarray(start, start + compressedSize);
    entries.set(name, method === 0 ? Buffer.from(data) : inflateRawSync(data));
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}
