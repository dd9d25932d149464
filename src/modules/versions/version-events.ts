// The version.* and file.* events (spec/extensions.md §1.1), recorded in the transaction of the change, with the
// resource and the version as they are after it (as they were, for a deletion).
import type { Transaction } from 'kysely';
import type { DB, ResourceStatus } from '../../core/db/schema.js';
import { recordEvent, versionPlacement } from '../../core/events/record.js';

type Trx = Transaction<DB>;

export interface Change {
  at: string;
  actorId: string | null;
}

/** What the events need of the resource: its owner and status decide where the event is placed. */
export interface EventResource {
  id: string;
  status: ResourceStatus;
  owner_type: 'USER' | 'TEAM';
  owner_id: string;
}

export interface EventVersion {
  id: string;
  version_number: string;
  channel: string;
  status: string;
}

export type VersionEventType =
  | 'version.created'
  | 'version.submitted'
  | 'version.approved'
  | 'version.rejected'
  | 'version.archived'
  | 'version.deleted';

const describe = (resource: EventResource, version: EventVersion) => ({
  resourceId: resource.id,
  versionNumber: version.version_number,
  channel: version.channel,
});

/** `reason` only for the actions that carry one (a rejection). */
export function recordVersionEvent(
  trx: Trx,
  type: VersionEventType,
  change: Change,
  resource: EventResource,
  version: EventVersion,
  reason?: string,
): Promise<string> {
  return recordEvent(trx, {
    type,
    at: change.at,
    actorId: change.actorId,
    subjectId: version.id,
    data: { ...describe(resource, version), ...(reason !== undefined ? { reason } : {}) },
    placement: versionPlacement(resource, version),
  });
}

/** How the latest version moved: to a version (from another or none), or to none (from a version). */
export type LatestMove = { to: EventVersion; fromId: string | null } | { to: null; from: EventVersion };

/**
 * The subject is the new latest version; when there is none any more, it is the version that stopped being
 * latest, and versionNumber and channel are null (they describe the latest version, and there is none).
 */
export function recordLatestChanged(
  trx: Trx,
  change: Change,
  resource: EventResource,
  move: LatestMove,
): Promise<string> {
  const subject = move.to === null ? move.from : move.to;
  return recordEvent(trx, {
    type: 'version.latest_changed',
    at: change.at,
    actorId: change.actorId,
    subjectId: subject.id,
    data: {
      resourceId: resource.id,
      versionNumber: move.to === null ? null : move.to.version_number,
      channel: move.to === null ? null : move.to.channel,
      previousLatestVersionId: move.to === null ? move.from.id : move.fromId,
    },
    placement: versionPlacement(resource, subject),
  });
}

export interface EventFile {
  id: string;
  file_name: string;
  sha256: string | null;
}

/** A file deleted with its version (or its resource) records nothing: the version's (resource's) event covers it. */
export function recordFileEvent(
  trx: Trx,
  type: 'file.uploaded' | 'file.deleted',
  change: Change,
  resource: EventResource,
  version: EventVersion,
  file: EventFile,
): Promise<string> {
  return recordEvent(trx, {
    type,
    at: change.at,
    actorId: change.actorId,
    subjectId: file.id,
    data: { versionId: version.id, resourceId: resource.id, fileName: file.file_name, sha256: file.sha256 },
    placement: versionPlacement(resource, version),
  });
}
