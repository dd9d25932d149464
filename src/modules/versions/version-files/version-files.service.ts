// Version files (interface "File behavior", DESIGN §8 "Uploads", "Versions"): uploads stream into storage while
// hashing, in DRAFT or REJECTED only; the first file is primary; deleting the primary promotes the oldest other
// file; the last file of a PENDING or APPROVED version stays (rule 5); ARCHIVED versions are read-only.
import type { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import type { Actor } from '../../../core/auth/authenticate.js';
import type { Clock } from '../../../core/clock.js';
import type { DialectName } from '../../../core/db/database.js';
import type { DB } from '../../../core/db/schema.js';
import { storeStream } from '../../../core/files/hashing-upload.js';
import type { StoredStream } from '../../../core/files/hashing-upload.js';
import { badRequest, conflict, notFound } from '../../../core/http/errors.js';
import { newId } from '../../../core/ids.js';
import type { Storage } from '../../../core/storage/storage.js';
import { findDuplicate } from '../duplicates/find-duplicate.js';
import { inspectStoredFile } from '../inspection/inspect-upload.js';
import { recordFileEvent } from '../version-events.js';
import { toVersionFile } from '../versions.mapper.js';
import type { VersionFileView, VersionView } from '../versions.mapper.js';
import { findVersion } from '../versions.repo.js';
import { MAX_FILES_PER_VERSION } from '../versions.schemas.js';
import { lockHead, notInStatus } from '../versions.service.js';
import type { VersionsService } from '../versions.service.js';
import { lockResource } from '../../resources/resources.repo.js';
import { canChangePrimary, canUploadFiles, fileDeletionRefusal } from '../versions.states.js';
import * as repo from './version-files.repo.js';
import type { VersionFileRow } from './version-files.repo.js';

const MAX_DISPLAY_NAME = 100;

/** The private key of a version file (served only through signed URLs: keys under files/). */
export const versionFileKey = (resourceId: string, versionId: string, fileId: string) =>
  `files/${resourceId}/${versionId}/${fileId}`;

/** How an upload reaches the service: the route reads multipart, the service decides where the bytes go. */
export type UploadReader = (
  store: (stream: Readable, fileName: string) => Promise<StoredStream>,
) => Promise<{ stored: StoredStream; fileName: string; fields: Record<string, string> }>;

const tooMany = () =>
  conflict(`A version can have at most ${MAX_FILES_PER_VERSION} files`, 'LIMIT_REACHED', {
    limit: MAX_FILES_PER_VERSION,
  });

function displayNameOf(fields: Record<string, string>): string | null {
  const value = fields['displayName']?.trim();
  if (value === undefined || value === '') return null;
  if (value.length > MAX_DISPLAY_NAME) {
    throw badRequest(`displayName is longer than ${MAX_DISPLAY_NAME} characters`, {
      fields: { displayName: `at most ${MAX_DISPLAY_NAME} characters` },
    });
  }
  return value;
}

export type VersionFilesService = ReturnType<typeof createVersionFilesService>;

export function createVersionFilesService(deps: {
  db: Kysely<DB>;
  dialect: DialectName;
  storage: Storage;
  clock: Clock;
  maxFileBytes: number;
  versions: Pick<VersionsService, 'requireEditable' | 'view' | 'removeObjects'>;
  /** Malware scanning is configured (CLAMAV_URL): new files start PENDING for the scan job (§2.4). */
  scanOnUpload?: boolean;
}) {
  const { db, dialect, storage, clock, maxFileBytes, versions } = deps;

  return {
    /**
     * Checks rights and status before reading a byte, streams the file to storage, then inserts the row under
     * the resource lock (re-checking status and the file limit). Any failure after the object was written
     * deletes it.
     */
    async upload(
      actor: Actor,
      resourceId: string,
      versionId: string,
      read: UploadReader,
    ): Promise<VersionFileView> {
      const { version } = await versions.requireEditable(actor, resourceId, versionId);
      if (!canUploadFiles(version.status)) throw notInStatus('upload files to', version.status);
      if ((await repo.listFiles(db, versionId)).length >= MAX_FILES_PER_VERSION) throw tooMany();

      const fileId = newId();
      const key = versionFileKey(resourceId, versionId, fileId);
      let written = false;
      try {
        const upload = await read(async (stream, fileName) => {
          const stored = await storeStream(storage, key, stream, { maxBytes: maxFileBytes, fileName });
          written = true;
          return stored;
        });
        const displayName = displayNameOf(upload.fields);
        const { stored } = upload;
        // Refuses an unsafe archive (400, the object is removed below) before anything is recorded (§2.3).
        const inspection = await inspectStoredFile(storage, key, stored);
        return await db.transaction().execute(async (trx) => {
          const locked = await lockHead(trx, dialect, resourceId);
          const current = await findVersion(trx, resourceId, versionId);
          if (current === undefined) throw notFound('Version');
          if (!canUploadFiles(current.status)) throw notInStatus('upload files to', current.status);
          const files = await repo.listFiles(trx, versionId);
          if (files.length >= MAX_FILES_PER_VERSION) throw tooMany();
          const duplicate = await findDuplicate(trx, { resourceId, sha512: stored.sha512 });
          const row: VersionFileRow = {
            id: fileId,
            version_id: versionId,
            storage_key: key,
            file_name: upload.fileName,
            display_name: displayName,
            file_size: stored.size,
            file_type: stored.fileType,
            content_type: stored.contentType,
            sha256: stored.sha256,
            sha1: stored.sha1,
            sha512: stored.sha512,
            is_primary: !files.some((file) => file.is_primary),
            uploaded_at: clock.now().toISOString(),
            inspection: inspection === null ? null : JSON.stringify(inspection),
            duplicate_of_file_id: duplicate?.fileId ?? null,
            scan_status: deps.scanOnUpload === true ? 'PENDING' : 'NOT_SCANNED',
            scan_signature: null,
            scanned_at: null,
            scan_attempts: 0,
            scan_next_at: null,
          };
          await repo.insertFile(trx, row);
          const change = { at: row.uploaded_at, actorId: actor.userId };
          await recordFileEvent(trx, 'file.uploaded', change, locked, current, row);
          // The uploader manages the version (owner side or contributor): they see the duplicate mark.
          const duplicateColumns = {
            duplicate_version_id: duplicate?.versionId ?? null,
            duplicate_resource_id: duplicate?.resourceId ?? null,
          };
          return toVersionFile({ ...row, ...duplicateColumns }, true);
        });
      } catch (error) {
        if (written) await versions.removeObjects([key]);
        throw error;
      }
    },

    /** Rule 5 and DESIGN §8; a deleted primary hands over to the oldest remaining file. */
    async remove(actor: Actor, resourceId: string, versionId: string, fileId: string): Promise<void> {
      await versions.requireEditable(actor, resourceId, versionId);
      const key = await db.transaction().execute(async (trx) => {
        const locked = await lockHead(trx, dialect, resourceId);
        const version = await findVersion(trx, resourceId, versionId);
        if (version === undefined) throw notFound('Version');
        const files = await repo.listFiles(trx, versionId);
        const file = files.find((row) => row.id === fileId);
        if (file === undefined) throw notFound('File');
        const refusal = fileDeletionRefusal(version.status, files.length);
        if (refusal === 'INVALID_STATUS') throw notInStatus('delete files of', version.status);
        if (refusal === 'LAST_FILE') {
          throw conflict(`The last file of a ${version.status} version cannot be deleted`, 'LAST_FILE');
        }
        await repo.deleteFile(trx, fileId);
        const successor = files.find((row) => row.id !== fileId);
        if (Boolean(file.is_primary) && successor !== undefined) {
          await repo.setPrimary(trx, versionId, successor.id);
        }
        const change = { at: clock.now().toISOString(), actorId: actor.userId };
        await recordFileEvent(trx, 'file.deleted', change, locked, version, file);
        return file.storage_key;
      });
      await versions.removeObjects([key]);
    },

    /** Every status but ARCHIVED. */
    async setPrimary(
      actor: Actor,
      resourceId: string,
      versionId: string,
      fileId: string,
    ): Promise<VersionView> {
      await versions.requireEditable(actor, resourceId, versionId);
      await db.transaction().execute(async (trx) => {
        if (!(await lockResource(trx, dialect, resourceId))) throw notFound('Resource');
        const version = await findVersion(trx, resourceId, versionId);
        if (version === undefined) throw notFound('Version');
        if (!canChangePrimary(version.status))
          throw notInStatus('change the primary file of', version.status);
        const files = await repo.listFiles(trx, versionId);
        if (!files.some((row) => row.id === fileId)) throw notFound('File');
        await repo.setPrimary(trx, versionId, fileId);
      });
      return versions.view(resourceId, versionId);
    },
  };
}
