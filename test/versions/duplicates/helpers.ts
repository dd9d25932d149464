// Duplicate fixtures: unique file contents, resources of distinct owners and reads of the duplicate mark.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { App } from '../../../src/app.js';
import type { TestUser } from '../../helpers/factories.js';
import { createResource, moderate } from '../../resources/helpers.js';
import type { ResourceBody } from '../../resources/helpers.js';
import { createVersion, uploadFile, versionUrl, versionsUrl } from '../helpers.js';
import type { VersionBody, VersionFileBody } from '../helpers.js';

export interface DuplicateOfBody {
  resourceId: string;
  versionId: string;
  fileId: string;
}
export type MarkedFile = VersionFileBody & { duplicateOf?: DuplicateOfBody };
export type MarkedVersion = Omit<VersionBody, 'files'> & {
  files: MarkedFile[];
  moderation?: { position: number; total: number; duplicateFiles: number };
};

/** A jar-named file with content no other test shares. */
export const uniqueJar = () => ({ data: Buffer.from(`plugin ${randomUUID()}\n`), name: 'plugin.jar' });

/** An APPROVED resource created by `creator` (for a team when `teamId`). */
export async function approvedResource(
  app: App,
  creator: TestUser,
  moderator: TestUser,
  teamId?: string,
): Promise<ResourceBody> {
  const resource = await createResource(
    app,
    creator,
    teamId === undefined ? {} : { ownerType: 'TEAM', ownerId: teamId },
  );
  return moderate(app, moderator, resource.id, 'APPROVE');
}

/** A DRAFT version of the resource holding one upload of `file`; returns the version and the upload's answer. */
export async function draftWith(
  app: App,
  editor: TestUser,
  resourceId: string,
  file: { data: Buffer; name: string },
): Promise<{ version: VersionBody; file: MarkedFile }> {
  const version = await createVersion(app, editor, resourceId);
  const uploaded = (await uploadFile(app, editor, resourceId, version.id, file)) as MarkedFile;
  return { version, file: uploaded };
}

/** GET of one version as `user` (null: anonymous), expecting 200. */
export async function readMarked(
  app: App,
  user: TestUser | null,
  resourceId: string,
  versionId: string,
): Promise<MarkedVersion> {
  const response = await app.inject({
    method: 'GET',
    url: versionUrl(resourceId, versionId),
    headers: user?.headers ?? {},
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as MarkedVersion;
}

/** The files of the resource's versions list as `user` sees it, by file id. */
export async function listedFiles(
  app: App,
  user: TestUser | null,
  resourceId: string,
): Promise<Map<string, MarkedFile>> {
  const response = await app.inject({
    method: 'GET',
    url: versionsUrl(resourceId),
    headers: user?.headers ?? {},
  });
  expect(response.statusCode, response.body).toBe(200);
  const body = response.json() as
    Array<{ files: MarkedFile[] }> | { versions: Array<{ files: MarkedFile[] }> };
  const versions = Array.isArray(body) ? body : body.versions;
  return new Map(versions.flatMap((version) => version.files).map((file) => [file.id, file]));
}

/** The stored mark of a file, read from the database. */
export async function storedMark(app: App, fileId: string): Promise<string | null> {
  const row = await app.context.database.db
    .selectFrom('version_files')
    .select('duplicate_of_file_id')
    .where('id', '=', fileId)
    .executeTakeFirstOrThrow();
  return row.duplicate_of_file_id;
}
