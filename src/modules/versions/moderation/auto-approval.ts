// Trusted creators (spec/extensions.md §4): a version submitted by a trusted user is approved in the same
// transaction when every file is clean. The approval is a normal one (status, latest version, version.approved
// event) with no actor; the history row says `automatic`, the audit log `version.approved` with actor null.
import type { Transaction } from 'kysely';
import type { DB } from '../../../core/db/schema.js';
import { newId } from '../../../core/ids.js';
import { recordAudit } from '../../audit/record.js';
import type { ResourceHead } from '../../resources/resources.repo.js';
import { findUserById } from '../../users/users.repo.js';
import { listFiles } from '../version-files/version-files.repo.js';
import type { VersionFileRow } from '../version-files/version-files.repo.js';
import { recordLatestChanged, recordVersionEvent } from '../version-events.js';
import * as repo from '../versions.repo.js';
import type { VersionRow } from '../versions.repo.js';

/** Scan states that let a file through (§2.4): clean, or no scanner configured. */
const PASSING_SCANS: ReadonlySet<string> = new Set(['CLEAN', 'NOT_SCANNED']);

/**
 * Whether one file is clean (spec/extensions.md §2): stored whole (a key, a size and its digests), scanned
 * CLEAN or NOT_SCANNED (PENDING, INFECTED and ERROR wait for a moderator), and not a duplicate of another
 * owner's file. Inspection adds no rule here: an unsafe archive is refused at upload and never gets a row, and
 * inspection warnings (nested archives, native code) are common in honest plugins — the moderator sees them.
 */
export function fileIsClean(file: VersionFileRow): boolean {
  return (
    file.storage_key !== '' &&
    Number(file.file_size) > 0 &&
    file.sha256 !== '' &&
    file.sha1 !== '' &&
    PASSING_SCANS.has(file.scan_status) &&
    file.duplicate_of_file_id === null
  );
}

/** Whether the version has files and every one is clean (fileIsClean): the only gate of auto-approval. */
export async function filesAreClean(trx: Transaction<DB>, versionId: string): Promise<boolean> {
  const files = await listFiles(trx, versionId);
  return files.length > 0 && files.every(fileIsClean);
}

/**
 * Called right after a submission moved the version to PENDING, under the resource lock. Whose trust counts: the
 * submitter's (the person who vouches for these files), not the resource owner's, so an untrusted contributor's
 * submission to a trusted creator's resource still waits for a moderator. Returns whether it approved.
 */
export async function autoApproveIfTrusted(
  trx: Transaction<DB>,
  input: { submitterId: string; head: ResourceHead; version: VersionRow; at: string },
): Promise<boolean> {
  const { submitterId, head, version, at } = input;
  if (version.status !== 'PENDING') return false;
  const submitter = await findUserById(trx, submitterId);
  if (submitter === undefined || !submitter.trusted) return false;
  if (!(await filesAreClean(trx, version.id))) return false;
  const moved = await repo.updateVersionIn(trx, version.id, ['PENDING'], {
    status: 'APPROVED',
    approved_at: at,
    rejection_reason: null,
    updated_at: at,
  });
  if (!moved) return false;
  const approved: VersionRow = { ...version, status: 'APPROVED' };
  const change = { at, actorId: null };
  await recordVersionEvent(trx, 'version.approved', change, head, approved);
  // DESIGN §8: the first approved version becomes latest when the resource has none.
  if (await repo.setLatestVersionIfNone(trx, head.id, version.id)) {
    await recordLatestChanged(trx, change, head, { to: approved, fromId: null });
  }
  await repo.insertModerationEvent(trx, {
    id: newId(),
    version_id: version.id,
    action: 'APPROVE',
    from_status: 'PENDING',
    to_status: 'APPROVED',
    reason: null,
    actor_id: null,
    automatic: true,
    created_at: at,
  });
  await recordAudit(trx, {
    actorId: null,
    action: 'version.approved',
    subjectKind: 'VERSION',
    subjectId: version.id,
    before: { status: 'PENDING' },
    after: { status: 'APPROVED', automatic: true },
    at,
  });
  return true;
}
