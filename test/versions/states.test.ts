// The version status machine: every status × every action, with and without files, and every status rule.
import { describe, expect, it } from 'vitest';
import {
  canChangePrimary,
  canDelete,
  canDeleteFile,
  canEditChangelog,
  canSetLatest,
  canUpdate,
  canUploadFiles,
  countsDownloads,
  fileDeletionRefusal,
  isPubliclyVisible,
  isVersionChannel,
  isVersionStatus,
  transition,
  VERSION_ACTIONS,
  VERSION_CHANNELS,
  VERSION_STATUSES,
} from '../../src/modules/versions/versions.states.js';
import type {
  FileDeletionRefusal,
  TransitionResult,
  VersionAction,
  VersionStatus,
} from '../../src/modules/versions/versions.states.js';

const to = (status: VersionStatus): TransitionResult => ({ ok: true, to: status });
const INVALID: TransitionResult = { ok: false, reason: 'INVALID_STATUS' };
const NO_FILES: TransitionResult = { ok: false, reason: 'NO_FILES' };

// [from, action, result with 0 files, result with 1 file]
const TRANSITIONS: Array<[VersionStatus, VersionAction, TransitionResult, TransitionResult]> = [
  ['DRAFT', 'submit', NO_FILES, to('PENDING')],
  ['DRAFT', 'resubmit', INVALID, INVALID],
  ['DRAFT', 'approve', INVALID, INVALID],
  ['DRAFT', 'reject', INVALID, INVALID],
  ['DRAFT', 'archive', INVALID, INVALID],
  ['PENDING', 'submit', INVALID, INVALID],
  ['PENDING', 'resubmit', INVALID, INVALID],
  ['PENDING', 'approve', to('APPROVED'), to('APPROVED')],
  ['PENDING', 'reject', to('REJECTED'), to('REJECTED')],
  ['PENDING', 'archive', INVALID, INVALID],
  ['APPROVED', 'submit', INVALID, INVALID],
  ['APPROVED', 'resubmit', INVALID, INVALID],
  ['APPROVED', 'approve', INVALID, INVALID],
  ['APPROVED', 'reject', INVALID, INVALID],
  ['APPROVED', 'archive', to('ARCHIVED'), to('ARCHIVED')],
  ['REJECTED', 'submit', INVALID, INVALID],
  ['REJECTED', 'resubmit', NO_FILES, to('PENDING')],
  ['REJECTED', 'approve', INVALID, INVALID],
  ['REJECTED', 'reject', INVALID, INVALID],
  ['REJECTED', 'archive', INVALID, INVALID],
  ['ARCHIVED', 'submit', INVALID, INVALID],
  ['ARCHIVED', 'resubmit', INVALID, INVALID],
  ['ARCHIVED', 'approve', INVALID, INVALID],
  ['ARCHIVED', 'reject', INVALID, INVALID],
  ['ARCHIVED', 'archive', INVALID, INVALID],
];

describe('version status machine', () => {
  it('the table covers every status × action exactly once', () => {
    const covered = TRANSITIONS.map(([from, action]) => `${from}/${action}`).sort();
    const expected = VERSION_STATUSES.flatMap((from) => VERSION_ACTIONS.map((action) => `${from}/${action}`));
    expect(covered).toEqual(expected.sort());
  });

  it.each(TRANSITIONS)('%s + %s → %j without files, %j with one', (from, action, withoutFiles, withOne) => {
    expect(transition(from, action, { fileCount: 0 })).toEqual(withoutFiles);
    expect(transition(from, action, { fileCount: 1 })).toEqual(withOne);
    // More files never change the outcome of a one-file rule.
    expect(transition(from, action, { fileCount: 7 })).toEqual(withOne);
  });
});

// [status, update, delete, changelog, set latest, upload files, change primary, public, counts downloads]
const RULES: Array<[VersionStatus, boolean, boolean, boolean, boolean, boolean, boolean, boolean, boolean]> =
  [
    ['DRAFT', true, true, true, false, true, true, false, false],
    ['PENDING', false, false, true, false, false, true, false, false],
    ['APPROVED', false, false, true, true, false, true, true, true],
    ['REJECTED', true, true, true, false, true, true, false, false],
    ['ARCHIVED', false, false, false, false, false, false, true, false],
  ];

describe('version status rules', () => {
  it('the table covers every status', () => {
    expect(RULES.map(([status]) => status)).toEqual([...VERSION_STATUSES]);
  });

  it.each(RULES)(
    '%s: update %s, delete %s, changelog %s, set latest %s, upload %s, primary %s, public %s, counts %s',
    (status, update, remove, changelog, latest, upload, primary, visible, counts) => {
      expect(canUpdate(status)).toBe(update);
      expect(canDelete(status)).toBe(remove);
      expect(canEditChangelog(status)).toBe(changelog);
      expect(canSetLatest(status)).toBe(latest);
      expect(canUploadFiles(status)).toBe(upload);
      expect(canChangePrimary(status)).toBe(primary);
      expect(isPubliclyVisible(status)).toBe(visible);
      expect(countsDownloads(status)).toBe(counts);
    },
  );
});

// [status, file count including the one being deleted, refusal]
const FILE_DELETIONS: Array<[VersionStatus, number, FileDeletionRefusal | null]> = [
  ['DRAFT', 1, null],
  ['DRAFT', 2, null],
  ['PENDING', 1, 'LAST_FILE'],
  ['PENDING', 2, null],
  ['APPROVED', 1, 'LAST_FILE'],
  ['APPROVED', 2, null],
  ['REJECTED', 1, null],
  ['REJECTED', 2, null],
  ['ARCHIVED', 1, 'INVALID_STATUS'],
  ['ARCHIVED', 2, 'INVALID_STATUS'],
];

describe('file deletion (rule 5)', () => {
  it.each(FILE_DELETIONS)('%s with %i file(s): refusal %s', (status, fileCount, refusal) => {
    expect(fileDeletionRefusal(status, fileCount)).toBe(refusal);
    expect(canDeleteFile(status, fileCount)).toBe(refusal === null);
  });
});

describe('status and channel guards', () => {
  it('accepts exactly the listed statuses and channels, case-sensitively', () => {
    for (const status of VERSION_STATUSES) expect(isVersionStatus(status)).toBe(true);
    for (const channel of VERSION_CHANNELS) expect(isVersionChannel(channel)).toBe(true);
    expect(VERSION_CHANNELS).toEqual(['RELEASE', 'BETA', 'ALPHA', 'SNAPSHOT']);
    for (const value of ['draft', 'DELETED', '', 'RELEASE']) expect(isVersionStatus(value)).toBe(false);
    for (const value of ['release', 'STABLE', '', 'DRAFT']) expect(isVersionChannel(value)).toBe(false);
  });
});
