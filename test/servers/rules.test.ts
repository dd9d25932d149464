// The pure rules of the servers area: permissions (core/auth/server-access.ts), the moderation status machine
// and the address check.
import { describe, expect, it } from 'vitest';
import { ROLES } from '../../src/core/auth/roles.js';
import { seesAllServersOf, serverPermits } from '../../src/core/auth/server-access.js';
import type { ServerPermission, ServerStanding } from '../../src/core/auth/server-access.js';
import type { Role, ServerStatus } from '../../src/core/db/schema.js';
import {
  acceptedStatuses,
  nextServerStatus,
  statusAfterOwnerEdit,
} from '../../src/modules/servers/moderation/server-states.js';
import type { ServerModerationAction } from '../../src/modules/servers/moderation/server-states.js';
import { isHostname, isServerAddress } from '../../src/modules/servers/server-address.js';

const PERMISSIONS: ServerPermission[] = ['server.view', 'server.manage', 'server.delete', 'server.transfer'];

/** Who the caller is relative to the server, and what each permission must answer (view for a non-approved server). */
const STANDINGS: Array<[string, Omit<ServerStanding, 'approved'>, Record<ServerPermission, boolean>]> = [
  [
    'anonymous',
    { platformRole: null, rights: 'none', teamRole: null },
    { 'server.view': false, 'server.manage': false, 'server.delete': false, 'server.transfer': false },
  ],
  [
    'a stranger',
    { platformRole: 'USER', rights: 'none', teamRole: null },
    { 'server.view': false, 'server.manage': false, 'server.delete': false, 'server.transfer': false },
  ],
  [
    'a platform moderator',
    { platformRole: 'MODERATOR', rights: 'none', teamRole: null },
    { 'server.view': true, 'server.manage': false, 'server.delete': false, 'server.transfer': false },
  ],
  [
    'a platform admin',
    { platformRole: 'ADMIN', rights: 'none', teamRole: null },
    { 'server.view': true, 'server.manage': false, 'server.delete': false, 'server.transfer': false },
  ],
  [
    'the user owner',
    { platformRole: 'USER', rights: 'owner', teamRole: null },
    { 'server.view': true, 'server.manage': true, 'server.delete': true, 'server.transfer': true },
  ],
  [
    'the team OWNER',
    { platformRole: 'USER', rights: 'owner', teamRole: 'OWNER' },
    { 'server.view': true, 'server.manage': true, 'server.delete': true, 'server.transfer': true },
  ],
  [
    'a team ADMIN',
    { platformRole: 'USER', rights: 'owner', teamRole: 'ADMIN' },
    { 'server.view': true, 'server.manage': true, 'server.delete': true, 'server.transfer': false },
  ],
  [
    'a team MODERATOR',
    { platformRole: 'USER', rights: 'member', teamRole: 'MODERATOR' },
    { 'server.view': true, 'server.manage': true, 'server.delete': false, 'server.transfer': false },
  ],
  [
    'a team MEMBER',
    { platformRole: 'USER', rights: 'member', teamRole: 'MEMBER' },
    { 'server.view': true, 'server.manage': true, 'server.delete': false, 'server.transfer': false },
  ],
];

describe('serverPermits', () => {
  const cases = STANDINGS.flatMap(([who, standing, expected]) =>
    PERMISSIONS.map((permission) => [who, standing, permission, expected[permission]] as const),
  );

  it.each(cases)('%s, non-approved server: %s → %s', (_who, standing, permission, expected) => {
    expect(serverPermits({ ...standing, approved: false }, permission)).toBe(expected);
  });

  it.each(cases)('%s, approved server: %s → %s', (_who, standing, permission, expected) => {
    // Approval opens viewing to everyone and changes nothing else.
    const wanted = permission === 'server.view' ? true : expected;
    expect(serverPermits({ ...standing, approved: true }, permission)).toBe(wanted);
  });
});

describe('seesAllServersOf', () => {
  it.each(
    ROLES.flatMap((role) => (['owner', 'member', 'none'] as const).map((rights) => [role, rights] as const)),
  )('platform %s with %s rights', (role: Role, rights) => {
    expect(seesAllServersOf(role, rights)).toBe(rights !== 'none' || role !== 'USER');
  });

  it('an anonymous caller never does', () => {
    expect(seesAllServersOf(null, 'none')).toBe(false);
  });
});

describe('moderation status machine', () => {
  const STATUSES: ServerStatus[] = ['PENDING', 'APPROVED', 'REJECTED', 'SUSPENDED'];
  const EXPECTED: Record<ServerModerationAction, Record<ServerStatus, ServerStatus | null>> = {
    APPROVE: { PENDING: 'APPROVED', APPROVED: null, REJECTED: 'APPROVED', SUSPENDED: 'APPROVED' },
    REJECT: { PENDING: 'REJECTED', APPROVED: 'REJECTED', REJECTED: null, SUSPENDED: null },
    SUSPEND: { PENDING: 'SUSPENDED', APPROVED: 'SUSPENDED', REJECTED: null, SUSPENDED: null },
  };
  const cases = (['APPROVE', 'REJECT', 'SUSPEND'] as const).flatMap((action) =>
    STATUSES.map((from) => [action, from, EXPECTED[action][from]] as const),
  );

  it.each(cases)('%s from %s → %s', (action, from, to) => {
    expect(nextServerStatus(from, action)).toBe(to);
    expect(acceptedStatuses(action).includes(from)).toBe(to !== null);
  });

  it.each([
    ['PENDING', 'PENDING'],
    ['APPROVED', 'APPROVED'],
    ['REJECTED', 'PENDING'],
    ['SUSPENDED', 'SUSPENDED'],
  ] as const)('an owner-side edit of a %s server leaves it %s', (from, to) => {
    expect(statusAfterOwnerEdit(from)).toBe(to);
  });
});

describe('server address', () => {
  it.each([
    '203.0.113.7',
    '0.0.0.0',
    '255.255.255.255',
    '::1',
    '2001:db8::42',
    '2001:0db8:0000:0000:0000:ff00:0042:8329',
    '::ffff:192.0.2.1',
    'localhost',
    'play.example.com',
    'play.example.com.',
    'mc-01.eu.example.org',
    'xn--bcher-kva.example',
    `${'a'.repeat(63)}.example.com`,
    'EXAMPLE.COM',
    '1.example.com',
  ])('accepts %s', (address) => {
    expect(isServerAddress(address)).toBe(true);
  });

  it.each([
    '',
    ' ',
    '256.1.1.1',
    '1.2.3',
    '1.2.3.4.5',
    '[::1]',
    'fe80::1%eth0',
    '2001:db8::g',
    'play.example.com:5520',
    'http://play.example.com',
    'play..example.com',
    '.example.com',
    '-play.example.com',
    'play-.example.com',
    'play_server.example.com',
    'play example.com',
    `${'a'.repeat(64)}.example.com`,
    `${'a.'.repeat(127)}com`,
    'exämple.com',
  ])('refuses %j', (address) => {
    expect(isServerAddress(address)).toBe(false);
  });

  it('limits host names to 253 characters', () => {
    const name = Array.from({ length: 4 }, () => 'a'.repeat(63)).join('.');
    expect(name.length).toBe(255);
    expect(isHostname(name)).toBe(false);
    expect(isHostname(name.slice(2))).toBe(true);
  });
});
