// The resource version status machine (interface "Resource version status" and its rules 1–5, DESIGN §8
// "Versions"), as pure functions. Who may act (owner side, contributor, moderator) is decided in core/auth;
// these functions only say what a version's status allows.

export const VERSION_STATUSES = ['DRAFT', 'PENDING', 'APPROVED', 'REJECTED', 'ARCHIVED'] as const;
export type VersionStatus = (typeof VERSION_STATUSES)[number];

export const VERSION_CHANNELS = ['RELEASE', 'BETA', 'ALPHA', 'SNAPSHOT'] as const;
export type VersionChannel = (typeof VERSION_CHANNELS)[number];

export const VERSION_ACTIONS = ['submit', 'resubmit', 'approve', 'reject', 'archive'] as const;
export type VersionAction = (typeof VERSION_ACTIONS)[number];

export const isVersionStatus = (value: string): value is VersionStatus =>
  (VERSION_STATUSES as readonly string[]).includes(value);

export const isVersionChannel = (value: string): value is VersionChannel =>
  (VERSION_CHANNELS as readonly string[]).includes(value);

/** What the machine needs to know about the version besides its status. */
export interface TransitionFacts {
  /** Files the version has right now. */
  fileCount: number;
}

/**
 * Why an action was refused; both are 409 in the API. The status is checked first, so a version in the wrong
 * status is INVALID_STATUS whether or not it has files.
 */
export type TransitionRefusal = 'INVALID_STATUS' | 'NO_FILES';

export type TransitionResult = { ok: true; to: VersionStatus } | { ok: false; reason: TransitionRefusal };

interface TransitionRule {
  from: VersionStatus;
  to: VersionStatus;
  /** The interface's "at least 1 file" condition (Limits: minimum files to submit or resubmit). */
  needsFiles: boolean;
}

/**
 * The whole machine. Side effects the caller applies with the change:
 * - submit may carry an optional submissionNote;
 * - approve makes the version latest when its resource has no latest version (DESIGN §8);
 * - reject requires a non-empty reason: a missing reason is a 400 from body validation, checked before this
 *   machine is asked, so it is not a fact here;
 * - archive (DESIGN §8, `POST …/archive`, owner side) unsets isLatest; the version stays downloadable and
 *   becomes read-only.
 */
export const VERSION_TRANSITIONS: Readonly<Record<VersionAction, TransitionRule>> = {
  submit: { from: 'DRAFT', to: 'PENDING', needsFiles: true },
  resubmit: { from: 'REJECTED', to: 'PENDING', needsFiles: true },
  approve: { from: 'PENDING', to: 'APPROVED', needsFiles: false },
  reject: { from: 'PENDING', to: 'REJECTED', needsFiles: false },
  archive: { from: 'APPROVED', to: 'ARCHIVED', needsFiles: false },
};

/** Where `action` takes a version in `status`, or why it cannot. */
export function transition(
  status: VersionStatus,
  action: VersionAction,
  facts: TransitionFacts,
): TransitionResult {
  const rule = VERSION_TRANSITIONS[action];
  if (status !== rule.from) return { ok: false, reason: 'INVALID_STATUS' };
  if (rule.needsFiles && facts.fileCount < 1) return { ok: false, reason: 'NO_FILES' };
  return { ok: true, to: rule.to };
}

const isOneOf = (status: VersionStatus, statuses: readonly VersionStatus[]): boolean =>
  statuses.includes(status);

/** Rule 1: name, channel and compatible game versions change only in DRAFT or REJECTED. */
export const canUpdate = (status: VersionStatus): boolean => isOneOf(status, ['DRAFT', 'REJECTED']);

/**
 * Rule 2 forbids delete in PENDING and APPROVED. ARCHIVED is refused as well: the version permission table
 * (Authentication item 4) allows "update or delete" only in DRAFT or REJECTED, and DESIGN §8 keeps archived
 * versions downloadable and read-only, which deleting them would break.
 */
export const canDelete = (status: VersionStatus): boolean => isOneOf(status, ['DRAFT', 'REJECTED']);

/** Rule 3: the changelog stays editable in every status except ARCHIVED. */
export const canEditChangelog = (status: VersionStatus): boolean => status !== 'ARCHIVED';

/** Rule 4: only an APPROVED version can be marked latest. */
export const canSetLatest = (status: VersionStatus): boolean => status === 'APPROVED';

/** DESIGN §8: files are added only while the version can still be edited and (re)submitted. */
export const canUploadFiles = (status: VersionStatus): boolean => isOneOf(status, ['DRAFT', 'REJECTED']);

/** Why a file cannot be deleted: both are 409 in the API. */
export type FileDeletionRefusal = 'INVALID_STATUS' | 'LAST_FILE';

/**
 * DESIGN §8 and rule 5: files can be deleted in every status but ARCHIVED, except the last file of a PENDING or
 * APPROVED version (those statuses promise at least one file). `fileCount` counts the file being deleted;
 * null means the deletion is allowed.
 */
export function fileDeletionRefusal(status: VersionStatus, fileCount: number): FileDeletionRefusal | null {
  if (status === 'ARCHIVED') return 'INVALID_STATUS';
  if (isOneOf(status, ['PENDING', 'APPROVED']) && fileCount <= 1) return 'LAST_FILE';
  return null;
}

export const canDeleteFile = (status: VersionStatus, fileCount: number): boolean =>
  fileDeletionRefusal(status, fileCount) === null;

/** DESIGN §8: the primary file can be changed in every status but ARCHIVED. */
export const canChangePrimary = (status: VersionStatus): boolean => status !== 'ARCHIVED';

/**
 * Whether anonymous callers and strangers see the version and may download its files. APPROVED per the
 * permission table; ARCHIVED too, since DESIGN §8 keeps archived versions downloadable (an old release that
 * others depend on must not vanish when a newer one replaces it). The resource itself must also be visible.
 */
export const isPubliclyVisible = (status: VersionStatus): boolean =>
  isOneOf(status, ['APPROVED', 'ARCHIVED']);

/**
 * DESIGN §8 "Downloads": only APPROVED versions count. Owner-side and moderator downloads of drafts are
 * reviews, and archived versions are served without moving the counters.
 */
export const countsDownloads = (status: VersionStatus): boolean => status === 'APPROVED';
