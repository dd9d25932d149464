// The pure rules of reports: the status machine (every status × every action) and who may see, cancel and
// act on what.
import { describe, expect, it } from 'vitest';
import { canActOnAccount, canViewReport } from '../../src/core/auth/report-access.js';
import type { Actor } from '../../src/core/auth/authenticate.js';
import type { ReportModerationAction, ReportStatus, Role } from '../../src/core/db/schema.js';
import { canCancel, isOpen, nextReportStatus } from '../../src/modules/reports/reports.states.js';

const TRANSITIONS: Array<[ReportStatus, ReportModerationAction, ReportStatus | null]> = [
  ['PENDING', 'TAKE_UNDER_REVIEW', 'UNDER_REVIEW'],
  ['PENDING', 'RESOLVE', 'RESOLVED'],
  ['PENDING', 'DISMISS', 'DISMISSED'],
  ['UNDER_REVIEW', 'TAKE_UNDER_REVIEW', null],
  ['UNDER_REVIEW', 'RESOLVE', 'RESOLVED'],
  ['UNDER_REVIEW', 'DISMISS', 'DISMISSED'],
  ['RESOLVED', 'TAKE_UNDER_REVIEW', null],
  ['RESOLVED', 'RESOLVE', null],
  ['RESOLVED', 'DISMISS', null],
  ['DISMISSED', 'TAKE_UNDER_REVIEW', null],
  ['DISMISSED', 'RESOLVE', null],
  ['DISMISSED', 'DISMISS', null],
];

describe('report status machine', () => {
  it.each(TRANSITIONS)('%s + %s → %s', (from, action, to) => {
    expect(nextReportStatus(from, action)).toBe(to);
  });

  it.each([
    ['PENDING', true, true],
    ['UNDER_REVIEW', true, false],
    ['RESOLVED', false, false],
    ['DISMISSED', false, false],
  ] as const)('%s: open %s, cancellable %s', (status, open, cancellable) => {
    expect(isOpen(status)).toBe(open);
    expect(canCancel(status)).toBe(cancellable);
  });
});

const actor = (role: Role, userId = 'actor'): Actor => ({
  userId,
  role,
  credential: { kind: 'api_key', id: 'key' },
});

describe('report access rules', () => {
  it.each([
    ['USER', false],
    ['MODERATOR', true],
    ['ADMIN', true],
    ['SUPER_ADMIN', true],
  ] as const)('a %s who did not file the report sees it: %s', (role, visible) => {
    expect(canViewReport(actor(role), { reporterId: 'someone', reportedUserId: 'x' })).toBe(visible);
  });

  it('the reporter always sees their report', () => {
    expect(canViewReport(actor('USER', 'me'), { reporterId: 'me', reportedUserId: 'x' })).toBe(true);
  });

  // [moderator role, target role, may act]
  const RANKS: Array<[Role, Role, boolean]> = [
    ['MODERATOR', 'USER', true],
    ['MODERATOR', 'MODERATOR', false],
    ['MODERATOR', 'ADMIN', false],
    ['MODERATOR', 'SUPER_ADMIN', false],
    ['ADMIN', 'USER', true],
    ['ADMIN', 'MODERATOR', true],
    ['ADMIN', 'ADMIN', false],
    ['ADMIN', 'SUPER_ADMIN', false],
    ['SUPER_ADMIN', 'USER', true],
    ['SUPER_ADMIN', 'MODERATOR', true],
    ['SUPER_ADMIN', 'ADMIN', true],
    ['SUPER_ADMIN', 'SUPER_ADMIN', true],
  ];
  it.each(RANKS)('a %s acting on a %s account: %s', (actorRole, targetRole, allowed) => {
    expect(canActOnAccount(actorRole, targetRole)).toBe(allowed);
  });
});
