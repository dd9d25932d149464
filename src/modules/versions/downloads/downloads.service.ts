// Downloads (interface "File behavior" 3–4, DESIGN §8 "Downloads", "Signed URLs"): one file → a signed URL valid
// one hour; several → a ZIP streamed from storage. Counting follows core/files/download-day.ts: once per
// (file, or version for the ZIP), client key and UTC day, APPROVED versions only, with IP, user agent and user.
import type { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import type { Actor } from '../../../core/auth/authenticate.js';
import type { VersionAccess } from '../../../core/auth/version-access.js';
import type { Clock } from '../../../core/clock.js';
import type { DialectName } from '../../../core/db/database.js';
import type { DB } from '../../../core/db/schema.js';
import { downloadClientKey } from '../../../core/files/client-ip.js';
import { utcDay } from '../../../core/files/download-day.js';
import { isCompressedKind, streamZip } from '../../../core/files/zip.js';
import { notFound } from '../../../core/http/errors.js';
import { safeFileName } from '../../../core/http/multipart.js';
import { newId } from '../../../core/ids.js';
import { createChangeCache } from '../../../core/db/change-cache.js';
import type { ChangeSignal } from '../../../core/db/change-cache.js';
import { memoizedSignedUrls } from '../../../core/storage/signed-url-memo.js';
import type { Storage } from '../../../core/storage/storage.js';
import { lockResource } from '../../resources/resources.repo.js';
import type { VersionsService } from '../versions.service.js';
import { countsDownloads } from '../versions.states.js';
import type { VersionStatus } from '../versions.states.js';
import { listFiles } from '../version-files/version-files.repo.js';
import * as repo from './downloads.repo.js';

/** Interface "Limits": signed download URLs live one hour. */
export const SIGNED_URL_SECONDS = 3600;

export interface DownloadClient {
  ip: string;
  userAgent: string | undefined;
}

export type VersionDownload =
  { kind: 'redirect'; url: string } | { kind: 'zip'; fileName: string; stream: Readable };

export type DownloadsService = ReturnType<typeof createDownloadsService>;

export function createDownloadsService(deps: {
  db: Kysely<DB>;
  dialect: DialectName;
  storage: Storage;
  clock: Clock;
  versionAccess: VersionAccess;
  versions: Pick<VersionsService, 'requireVersion'>;
  /** The database's change signal (Database.changes), when it has one. */
  changes: ChangeSignal | undefined;
}) {
  const { db, dialect, storage, clock, versionAccess, versions } = deps;
  // A client downloading the same file again (the common case) is answered without a query until anything in the
  // database changes: the row includes whether this client was already counted today, so the key names both.
  const fileTargets = createChangeCache<repo.FileTargetRow | undefined>({ changes: deps.changes });

  /** The dedup key of a download by this client now (core/files/download-day.ts). */
  function dedupKey(client: DownloadClient, subject: { type: 'FILE' | 'VERSION'; id: string }) {
    return {
      subject_type: subject.type,
      subject_id: subject.id,
      client_key: downloadClientKey(client.ip),
      day: utcDay(clock.now()),
    };
  }

  async function count(
    actor: Actor | null,
    client: DownloadClient,
    target: { resourceId: string; versionId: string; status: VersionStatus },
    key: ReturnType<typeof dedupKey>,
    alreadyCounted?: boolean,
  ): Promise<void> {
    if (!countsDownloads(target.status)) return;
    if (alreadyCounted ?? (await repo.alreadyCounted(db, dialect, key))) return;
    await db.transaction().execute(async (trx) => {
      // Serialized with the resource's deletion: the event must not land after its version is gone.
      if (!(await lockResource(trx, dialect, target.resourceId))) throw notFound('Resource');
      const inserted = await repo.insertDownloadEvent(trx, {
        id: newId(),
        ...key,
        version_id: target.versionId,
        ip: client.ip,
        user_agent: client.userAgent?.slice(0, 512) ?? null,
        user_id: actor?.userId ?? null,
        created_at: clock.now().toISOString(),
      });
      if (inserted) await repo.incrementDownloads(trx, target.resourceId, target.versionId);
    });
  }

  const signedUrl = memoizedSignedUrls(storage, () => clock.now());
  const signed = (key: string, fileName: string) =>
    signedUrl(key, { expiresIn: SIGNED_URL_SECONDS, downloadName: fileName });

  return {
    /** The signed URL of one file; counted per file. */
    async file(
      actor: Actor | null,
      client: DownloadClient,
      resourceId: string,
      versionId: string,
      fileId: string,
    ): Promise<string> {
      const key = dedupKey(client, { type: 'FILE', id: fileId });
      const ids = { resourceId, versionId, fileId };
      const target = await fileTargets.get(
        `${fileId}\n${versionId}\n${resourceId}\n${key.client_key}\n${key.day}`,
        () => repo.findFileTarget(db, dialect, ids, { clientKey: key.client_key, day: key.day }),
      );
      // An INFECTED file is never served, to anyone (§2.4). The kept row is dropped by the scan's own commit.
      if (target === undefined || target.scan_status === 'INFECTED') throw notFound('File');
      const resource = {
        id: resourceId,
        status: target.resource_status,
        owner_type: target.owner_type,
        owner_id: target.owner_id,
      };
      await versionAccess.authorizeView(actor, resource, target.version_status);
      const counted = { resourceId, versionId, status: target.version_status };
      await count(actor, client, counted, key, target.counted_id !== null);
      return signed(target.storage_key, target.file_name);
    },

    /** One file: its signed URL (counted per file). Several: a ZIP of all of them (counted per version). */
    async version(
      actor: Actor | null,
      client: DownloadClient,
      resourceId: string,
      versionId: string,
    ): Promise<VersionDownload> {
      const { head, version } = await versions.requireVersion(resourceId, versionId);
      await versionAccess.authorizeView(actor, head, version.status);
      // INFECTED files are left out of the ZIP and never the redirect (§2.4); none left → 404.
      const files = (await listFiles(db, versionId)).filter((file) => file.scan_status !== 'INFECTED');
      if (files.length === 0) throw notFound('File');
      const target = { resourceId, versionId, status: version.status };
      if (files.length === 1) {
        const [file] = files;
        await count(actor, client, target, dedupKey(client, { type: 'FILE', id: file!.id }));
        return { kind: 'redirect', url: await signed(file!.storage_key, file!.file_name) };
      }
      await count(actor, client, target, dedupKey(client, { type: 'VERSION', id: versionId }));
      const stream = streamZip(
        files.map((file) => ({
          name: file.file_name,
          size: Number(file.file_size),
          compress: !isCompressedKind(file.file_type),
          mtime: new Date(file.uploaded_at),
          open: async () => {
            const object = await storage.get(file.storage_key);
            if (object === undefined) throw new Error(`Stored object ${file.storage_key} is missing`);
            return object.body;
          },
        })),
      );
      // Path separators in a version number would cut the name at safeFileName's base-name step.
      const fileName = safeFileName(`${head.slug}-${version.version_number}.zip`.replace(/[/\\]/g, '-'));
      return { kind: 'zip', fileName, stream };
    },
  };
}
