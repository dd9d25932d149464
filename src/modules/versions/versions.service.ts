// Resource versions: create, read, list, update, delete, changelog and set-latest (interface "Resource version
// status" rules 1–4, DESIGN §8 "Versions"). Status moves are in moderation/version-actions.service.ts, files in
// version-files/, downloads in downloads/. Who may do what: core/auth/version-access.ts.
import type { Kysely, Transaction } from 'kysely';
import type { Actor } from '../../core/auth/authenticate.js';
import type { VersionAccess } from '../../core/auth/version-access.js';
import type { Clock } from '../../core/clock.js';
import type { DialectName } from '../../core/db/database.js';
import { isUniqueViolation } from '../../core/db/dialect.js';
import type { DB, VersionStatusColumn } from '../../core/db/schema.js';
import { badRequest, conflict, invalidTransition, notFound } from '../../core/http/errors.js';
import { newId } from '../../core/ids.js';
import type { Storage } from '../../core/storage/storage.js';
import { findResourceHead, lockResource } from '../resources/resources.repo.js';
import type { ResourceHead } from '../resources/resources.repo.js';
import type { ResourcesService } from '../resources/resources.service.js';
import { sanitizeChangelog } from './changelog.js';
import type { DependencyInputBody } from './dependencies/dependencies.schemas.js';
import { loadDependencies } from './dependencies/load-dependencies.js';
import { prepareDependencies, writeDependencies } from './dependencies/set-dependencies.js';
import { createMediaUrls } from '../../core/media-urls.js';
import { countDuplicates, withoutDuplicates } from './duplicates/duplicate-view.js';
import { listFiles, listFilesOf } from './version-files/version-files.repo.js';
import { recordLatestChanged, recordVersionEvent } from './version-events.js';
import { toVersion, toVersionListItem } from './versions.mapper.js';
import type { VersionListItemView, VersionView } from './versions.mapper.js';
import * as repo from './versions.repo.js';
import type { VersionRow } from './versions.repo.js';
import { queuePosition } from '../moderation/queue/queue.service.js';
import type { QueuePosition } from '../moderation/queue/queue.service.js';
import { canDelete, canEditChangelog, canSetLatest, canUpdate } from './versions.states.js';
import type { VersionChannel, VersionStatus } from './versions.states.js';

export interface NewVersion {
  versionNumber: string;
  name?: string;
  channel: VersionChannel;
  compatibleGameVersionIds: string[];
  dependencies?: DependencyInputBody[];
}

export interface VersionPatch {
  name?: string | null;
  channel?: VersionChannel;
  compatibleGameVersionIds?: string[];
  /** Replaces the whole list (§2.2); [] removes every dependency. */
  dependencies?: DependencyInputBody[];
}

const PUBLIC_STATUSES: readonly VersionStatusColumn[] = ['APPROVED', 'ARCHIVED'];
const EDITABLE: readonly VersionStatusColumn[] = ['DRAFT', 'REJECTED'];
const NOT_ARCHIVED: readonly VersionStatusColumn[] = ['DRAFT', 'PENDING', 'APPROVED', 'REJECTED'];

export const versionNumberTaken = (versionNumber: string) =>
  conflict(`Version ${versionNumber} already exists for this resource`, 'VERSION_NUMBER_TAKEN', {
    versionNumber,
  });

/** 409 for an action the version's status does not allow. */
export const notInStatus = (what: string, status: VersionStatus) =>
  invalidTransition(`Cannot ${what} a version in status ${status}`);

/**
 * Takes the resource lock (lockResource) and reads the resource under it: the events of a change are placed by
 * the resource's owner and status as they are in its transaction.
 */
export async function lockHead(
  trx: Transaction<DB>,
  dialect: DialectName,
  resourceId: string,
): Promise<ResourceHead> {
  const head = (await lockResource(trx, dialect, resourceId))
    ? await findResourceHead(trx, dialect, resourceId)
    : undefined;
  if (head === undefined) throw notFound('Resource');
  return head;
}

export type VersionsService = ReturnType<typeof createVersionsService>;

export function createVersionsService(deps: {
  db: Kysely<DB>;
  dialect: DialectName;
  storage: Storage;
  clock: Clock;
  versionAccess: VersionAccess;
  resources: Pick<ResourcesService, 'requireHead'>;
  log?: (message: string, error: unknown) => void;
}) {
  const { db, dialect, storage, clock, versionAccess, resources } = deps;
  const urls = createMediaUrls(storage);

  /** The resource and the version, 404 when either is missing or the version belongs to another resource. */
  async function requireVersion(
    resourceId: string,
    versionId: string,
  ): Promise<{ head: ResourceHead; version: VersionRow }> {
    const head = await resources.requireHead(resourceId);
    const version = await repo.findVersion(db, resourceId, versionId);
    if (version === undefined) throw notFound('Version');
    return { head, version };
  }

  /**
   * The full version as the API shows it, read after a change. `showDuplicates`: every caller but `get` has
   * managed or moderated the version, so it sees `duplicateOf` (owner side, contributor or moderator).
   */
  async function view(resourceId: string, versionId: string, showDuplicates = true): Promise<VersionView> {
    const version = await repo.findVersion(db, resourceId, versionId);
    if (version === undefined) throw notFound('Version');
    const [files, gameVersions, latestId, dependencies] = await Promise.all([
      listFiles(db, versionId),
      repo.listGameVersionsOf(db, [versionId]),
      repo.readLatestVersionId(db, resourceId),
      loadDependencies(db, [versionId], urls),
    ]);
    return {
      ...toVersion(version, latestId, files, gameVersions, showDuplicates),
      dependencies: dependencies.get(versionId) ?? [],
    };
  }

  /** The version for a caller allowed to manage it (404 / 401 / 403 as version-access.ts decides). */
  async function requireEditable(actor: Actor, resourceId: string, versionId: string) {
    const found = await requireVersion(resourceId, versionId);
    await versionAccess.authorizeEdit(actor, found.head, found.version.status);
    return found;
  }

  async function validateGameVersions(ids: string[]): Promise<string[]> {
    const unique = [...new Set(ids)];
    const existing = await repo.existingGameVersionIds(db, unique);
    const missing = unique.filter((id) => !existing.has(id));
    if (missing.length > 0) {
      throw badRequest(`compatibleGameVersionIds contains unknown IDs: ${missing.join(', ')}`, {
        fields: { 'body.compatibleGameVersionIds': `unknown: ${missing.join(', ')}` },
      });
    }
    return unique;
  }

  async function removeObjects(keys: string[]): Promise<void> {
    const results = await Promise.allSettled(keys.map((key) => storage.delete(key)));
    for (const result of results) {
      if (result.status === 'rejected') deps.log?.('Could not delete a version file object', result.reason);
    }
  }

  return {
    requireVersion,
    requireEditable,
    view,
    removeObjects,

    async list(actor: Actor | null, resourceId: string): Promise<VersionListItemView[]> {
      const head = await resources.requireHead(resourceId);
      const scope = await versionAccess.scope(actor, head);
      const rows = await repo.listVersions(db, resourceId, scope === 'all' ? null : PUBLIC_STATUSES);
      const ids = rows.map((row) => row.id);
      const [files, dependencies] = await Promise.all([
        listFilesOf(db, ids),
        loadDependencies(db, ids, urls),
      ]);
      const filesOf = new Map<string, typeof files>();
      for (const file of files) {
        const list = filesOf.get(file.version_id);
        if (list === undefined) filesOf.set(file.version_id, [file]);
        else list.push(file);
      }
      const showDuplicates = scope === 'all';
      return rows.map((row) => ({
        ...toVersionListItem(row, head.latest_version_id, filesOf.get(row.id) ?? [], showDuplicates),
        dependencies: dependencies.get(row.id) ?? [],
      }));
    },

    async get(
      actor: Actor | null,
      resourceId: string,
      versionId: string,
    ): Promise<VersionView & { moderation?: QueuePosition & { duplicateFiles: number } }> {
      const { head, version } = await requireVersion(resourceId, versionId);
      await versionAccess.authorizeView(actor, head, version.status);
      const read = await view(resourceId, versionId);
      // duplicateOf is for the owner side and moderators (§2.4); asked only when a file has one.
      const found =
        countDuplicates(read.files) === 0 ||
        (actor !== null && (await versionAccess.scope(actor, head)) === 'all')
          ? read
          : withoutDuplicates(read);
      // Only the owner side, contributors and moderators may see a PENDING version (§4 queue position).
      if (found.status !== 'PENDING') return found;
      const position = await queuePosition(db, clock, 'versions', versionId);
      if (position === undefined) return found;
      // The queue marks a version with duplicate files (§2.4) where moderators look at it.
      return { ...found, moderation: { ...position, duplicateFiles: countDuplicates(found.files) } };
    },

    /** New versions are DRAFT, with no files, not latest and no downloads. */
    async create(actor: Actor, resourceId: string, input: NewVersion): Promise<VersionView> {
      const head = await resources.requireHead(resourceId);
      await versionAccess.authorizeEdit(actor, head);
      const gameVersionIds = await validateGameVersions(input.compatibleGameVersionIds);
      if (await repo.versionNumberTaken(db, resourceId, input.versionNumber)) {
        throw versionNumberTaken(input.versionNumber);
      }
      const now = clock.now().toISOString();
      const id = newId();
      try {
        await db.transaction().execute(async (trx) => {
          const locked = await lockHead(trx, dialect, resourceId);
          const row = {
            id,
            resource_id: resourceId,
            version_number: input.versionNumber,
            name: input.name === undefined || input.name === '' ? null : input.name,
            channel: input.channel,
            status: 'DRAFT' as const,
            changelog: null,
            submission_note: null,
            rejection_reason: null,
            created_at: now,
            updated_at: now,
            submitted_at: null,
            approved_at: null,
          };
          await repo.insertVersion(trx, row);
          await repo.replaceGameVersions(trx, id, gameVersionIds);
          const dependencies = await prepareDependencies(trx, actor, resourceId, input.dependencies ?? []);
          await writeDependencies(trx, id, dependencies, now);
          await recordVersionEvent(trx, 'version.created', { at: now, actorId: actor.userId }, locked, row);
        });
      } catch (error) {
        // Two creations of the same number at once: the unique key decides.
        if (isUniqueViolation(error)) throw versionNumberTaken(input.versionNumber);
        throw error;
      }
      return view(resourceId, id);
    },

    /** Rule 1: name, channel and compatible game versions change only in DRAFT or REJECTED. */
    async update(actor: Actor, resourceId: string, versionId: string, patch: VersionPatch) {
      const { version } = await requireEditable(actor, resourceId, versionId);
      if (!canUpdate(version.status)) throw notInStatus('update', version.status);
      const gameVersionIds =
        patch.compatibleGameVersionIds === undefined
          ? undefined
          : await validateGameVersions(patch.compatibleGameVersionIds);
      await db.transaction().execute(async (trx) => {
        if (!(await lockResource(trx, dialect, resourceId))) throw notFound('Resource');
        const changes = {
          name: patch.name === undefined ? version.name : patch.name === '' ? null : patch.name,
          channel: patch.channel ?? version.channel,
          updated_at: clock.now().toISOString(),
        };
        if (!(await repo.updateVersionIn(trx, versionId, EDITABLE, changes))) {
          throw await changedMeanwhile(trx, resourceId, versionId, 'update');
        }
        if (gameVersionIds !== undefined) await repo.replaceGameVersions(trx, versionId, gameVersionIds);
        if (patch.dependencies !== undefined) {
          const dependencies = await prepareDependencies(trx, actor, resourceId, patch.dependencies);
          await writeDependencies(trx, versionId, dependencies, changes.updated_at);
        }
      });
      return view(resourceId, versionId);
    },

    /** Rule 2 (and the permission table): only DRAFT or REJECTED versions are deleted, with their files. */
    async remove(actor: Actor, resourceId: string, versionId: string): Promise<void> {
      const { version } = await requireEditable(actor, resourceId, versionId);
      if (!canDelete(version.status)) throw notInStatus('delete', version.status);
      const keys = await db.transaction().execute(async (trx) => {
        const locked = await lockHead(trx, dialect, resourceId);
        const current = await repo.findVersion(trx, resourceId, versionId);
        if (current === undefined) throw notFound('Version');
        const files = await listFiles(trx, versionId);
        if (!(await repo.deleteVersionIn(trx, versionId, EDITABLE))) {
          throw await changedMeanwhile(trx, resourceId, versionId, 'delete');
        }
        const change = { at: clock.now().toISOString(), actorId: actor.userId };
        // Its files go by cascade and record no file.deleted: version.deleted covers them.
        await recordVersionEvent(trx, 'version.deleted', change, locked, current);
        if (await repo.clearLatestVersionIf(trx, resourceId, versionId)) {
          await recordLatestChanged(trx, change, locked, { to: null, from: current });
        }
        return files.map((file) => file.storage_key);
      });
      await removeObjects(keys);
    },

    /** Rule 3: every status but ARCHIVED. The HTML is sanitized; an empty result clears the changelog. */
    async setChangelog(actor: Actor, resourceId: string, versionId: string, html: string) {
      const { version } = await requireEditable(actor, resourceId, versionId);
      if (!canEditChangelog(version.status)) throw notInStatus('edit the changelog of', version.status);
      const changes = { changelog: sanitizeChangelog(html), updated_at: clock.now().toISOString() };
      await db.transaction().execute(async (trx) => {
        if (!(await lockResource(trx, dialect, resourceId))) throw notFound('Resource');
        if (!(await repo.updateVersionIn(trx, versionId, NOT_ARCHIVED, changes))) {
          throw await changedMeanwhile(trx, resourceId, versionId, 'edit the changelog of');
        }
      });
      return view(resourceId, versionId);
    },

    /** Rule 4: APPROVED only; the resource has one latest version, so the previous one is unset. */
    async setLatest(actor: Actor, resourceId: string, versionId: string): Promise<VersionView> {
      const { version } = await requireEditable(actor, resourceId, versionId);
      if (!canSetLatest(version.status)) throw notInStatus('mark as latest', version.status);
      await db.transaction().execute(async (trx) => {
        const locked = await lockHead(trx, dialect, resourceId);
        const current = await repo.findVersion(trx, resourceId, versionId);
        if (current === undefined) throw notFound('Version');
        if (!canSetLatest(current.status)) throw notInStatus('mark as latest', current.status);
        // Marking the latest version latest again changes nothing and records nothing.
        if (locked.latest_version_id === versionId) return;
        await repo.setLatestVersion(trx, resourceId, versionId);
        await recordLatestChanged(trx, { at: clock.now().toISOString(), actorId: actor.userId }, locked, {
          to: current,
          fromId: locked.latest_version_id,
        });
      });
      return view(resourceId, versionId);
    },

    /** Rows of a deleted resource: versions and files go by cascade; their objects are returned for removal. */
    collectForResourceDeletion: (trx: Parameters<typeof repo.fileKeysOfResource>[0], resourceId: string) =>
      repo.fileKeysOfResource(trx, resourceId),
  };
}

/** The 404 or 409 for a conditional change that found the version gone or in another status. */
async function changedMeanwhile(
  trx: Parameters<typeof repo.findVersion>[0],
  resourceId: string,
  versionId: string,
  what: string,
) {
  const current = await repo.findVersion(trx, resourceId, versionId);
  return current === undefined ? notFound('Version') : notInStatus(what, current.status);
}
