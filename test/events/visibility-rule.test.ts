// canReadEvent (core/events/visibility.ts) as a pure function: one row per (reader, event row, facts) with the
// expected answer, for every audience and for the fallbacks used once the subject is gone (the event's recorded
// subject_public and owner columns decide).
import { describe, expect, it } from 'vitest';
import type { EventAudience, ResourceStatus, ServerStatus, TeamRole } from '../../src/core/db/schema.js';
import { canReadEvent } from '../../src/core/events/visibility.js';
import type { EventFacts, EventReader, VisibilityRow } from '../../src/core/events/visibility.js';

const OWNER = 'u-owner';
const STRANGER = 'u-stranger';
const CONTRIBUTOR = 'u-contributor';
const REPORTER = 'u-reporter';
const INVITEE = 'u-invitee';
const TEAM = 't-team';
const OTHER_TEAM = 't-other';
const RESOURCE = 'r-1';
const VERSION = 'v-1';
const SERVER = 's-1';

type ReaderName =
  | 'anonymous'
  | 'stranger'
  | 'owner'
  | 'contributor'
  | 'teamOwner'
  | 'teamAdmin'
  | 'teamModerator'
  | 'teamMember'
  | 'otherTeamOwner'
  | 'reporter'
  | 'invitee'
  | 'moderator'
  | 'admin'
  | 'superAdmin';

/** Each reader and the facts about them that loadEventFacts would load (team roles, contributions). */
const READERS: Record<
  ReaderName,
  { reader: EventReader | null; teamRoles?: [string, TeamRole][]; contributes?: boolean }
> = {
  anonymous: { reader: null },
  stranger: { reader: { userId: STRANGER, role: 'USER' } },
  owner: { reader: { userId: OWNER, role: 'USER' } },
  contributor: { reader: { userId: CONTRIBUTOR, role: 'USER' }, contributes: true },
  teamOwner: { reader: { userId: 'u-t-owner', role: 'USER' }, teamRoles: [[TEAM, 'OWNER']] },
  teamAdmin: { reader: { userId: 'u-t-admin', role: 'USER' }, teamRoles: [[TEAM, 'ADMIN']] },
  teamModerator: { reader: { userId: 'u-t-mod', role: 'USER' }, teamRoles: [[TEAM, 'MODERATOR']] },
  teamMember: { reader: { userId: 'u-t-member', role: 'USER' }, teamRoles: [[TEAM, 'MEMBER']] },
  otherTeamOwner: { reader: { userId: 'u-o-owner', role: 'USER' }, teamRoles: [[OTHER_TEAM, 'OWNER']] },
  reporter: { reader: { userId: REPORTER, role: 'USER' } },
  invitee: { reader: { userId: INVITEE, role: 'USER' } },
  moderator: { reader: { userId: 'u-mod', role: 'MODERATOR' } },
  admin: { reader: { userId: 'u-admin', role: 'ADMIN' } },
  superAdmin: { reader: { userId: 'u-super', role: 'SUPER_ADMIN' } },
};

/** The subject as it is now (absent: deleted). */
interface Now {
  resource?: { status: ResourceStatus; owner: 'USER' | 'TEAM' };
  version?: string;
  server?: { status: ServerStatus; owner: 'USER' | 'TEAM' };
}

function factsFor(name: ReaderName, now: Now, row: VisibilityRow): EventFacts {
  const { teamRoles = [], contributes = false } = READERS[name];
  const ownerId = (owner: 'USER' | 'TEAM') => (owner === 'USER' ? OWNER : TEAM);
  return {
    resources: new Map(
      now.resource === undefined || row.resource_id === null
        ? []
        : [
            [
              row.resource_id,
              {
                status: now.resource.status,
                owner_type: now.resource.owner,
                owner_id: ownerId(now.resource.owner),
              },
            ],
          ],
    ),
    versions: new Map(
      now.version === undefined || row.version_id === null ? [] : [[row.version_id, { status: now.version }]],
    ),
    servers: new Map(
      now.server === undefined || row.server_id === null
        ? []
        : [
            [
              row.server_id,
              {
                status: now.server.status,
                owner_type: now.server.owner,
                owner_id: ownerId(now.server.owner),
              },
            ],
          ],
    ),
    teamRoles: new Map(teamRoles),
    // Contributor rows go with their resource: a deleted resource has none.
    contributions: new Set(
      contributes && now.resource !== undefined && row.resource_id ? [row.resource_id] : [],
    ),
  };
}

const row = (audience: EventAudience, columns: Partial<VisibilityRow>): VisibilityRow => ({
  audience,
  audience_user_id: null,
  resource_id: null,
  version_id: null,
  server_id: null,
  team_id: null,
  user_id: null,
  subject_public: false,
  ...columns,
});

// Event rows as the services record them.
const userResourceEvent = (subjectPublic: boolean) =>
  row('SUBJECT', { resource_id: RESOURCE, user_id: OWNER, subject_public: subjectPublic });
const teamResourceEvent = (subjectPublic: boolean) =>
  row('SUBJECT', { resource_id: RESOURCE, team_id: TEAM, subject_public: subjectPublic });
const versionEvent = (subjectPublic: boolean) =>
  row('SUBJECT', {
    resource_id: RESOURCE,
    version_id: VERSION,
    user_id: OWNER,
    subject_public: subjectPublic,
  });
const userServerEvent = (subjectPublic: boolean) =>
  row('SUBJECT', { server_id: SERVER, user_id: OWNER, subject_public: subjectPublic });
const teamServerEvent = (subjectPublic: boolean) =>
  row('SUBJECT', { server_id: SERVER, team_id: TEAM, subject_public: subjectPublic });
const teamEvent = row('SUBJECT', { team_id: TEAM, subject_public: true });
const userEvent = row('SUBJECT', { user_id: OWNER, subject_public: true });
const reportEvent = row('REPORT', { user_id: REPORTER, audience_user_id: REPORTER });
const invitationEvent = row('INVITATION', { team_id: TEAM, audience_user_id: INVITEE, subject_public: true });
const threadEvent = row('THREAD', { resource_id: RESOURCE, user_id: OWNER, subject_public: true });
const pingEvent = row('NONE', { user_id: OWNER });

interface Case {
  name: string;
  event: VisibilityRow;
  now: Now;
  /** Readers who may read it; every other reader of READERS may not. */
  readers: ReaderName[];
}

const STAFF: ReaderName[] = ['moderator', 'admin', 'superAdmin'];
const EVERYONE = Object.keys(READERS) as ReaderName[];
const TEAM_SIDE: ReaderName[] = ['teamOwner', 'teamAdmin', 'teamModerator', 'teamMember'];

const CASES: Case[] = [
  // SUBJECT: resources.
  {
    name: 'an APPROVED resource: everyone',
    event: userResourceEvent(true),
    now: { resource: { status: 'APPROVED', owner: 'USER' } },
    readers: EVERYONE,
  },
  {
    name: 'a PENDING user resource: owner, contributors, moderators',
    event: userResourceEvent(false),
    now: { resource: { status: 'PENDING', owner: 'USER' } },
    readers: ['owner', 'contributor', ...STAFF],
  },
  {
    name: 'a REJECTED team resource: every member of the owning team, contributors, moderators',
    event: teamResourceEvent(false),
    now: { resource: { status: 'REJECTED', owner: 'TEAM' } },
    readers: [...TEAM_SIDE, 'contributor', ...STAFF],
  },
  {
    name: 'an event recorded public of a resource SUSPENDED since: the current status wins',
    event: userResourceEvent(true),
    now: { resource: { status: 'SUSPENDED', owner: 'USER' } },
    readers: ['owner', 'contributor', ...STAFF],
  },
  {
    name: 'an event recorded before approval of a resource APPROVED since: public now',
    event: userResourceEvent(false),
    now: { resource: { status: 'APPROVED', owner: 'USER' } },
    readers: EVERYONE,
  },
  {
    name: 'a user resource moved to a team since: the current owner side, not the recorded one',
    event: userResourceEvent(false),
    now: { resource: { status: 'PENDING', owner: 'TEAM' } },
    readers: [...TEAM_SIDE, 'contributor', ...STAFF],
  },
  // SUBJECT: a resource that is gone.
  {
    name: 'a deleted resource recorded public: everyone',
    event: userResourceEvent(true),
    now: {},
    readers: EVERYONE,
  },
  {
    name: 'a deleted resource recorded non-public: the recorded user owner and moderators (contributors are gone)',
    event: userResourceEvent(false),
    now: {},
    readers: ['owner', ...STAFF],
  },
  {
    name: 'a deleted team resource recorded non-public: the recorded team members and moderators',
    event: teamResourceEvent(false),
    now: {},
    readers: [...TEAM_SIDE, ...STAFF],
  },
  // SUBJECT: versions and files.
  ...(['APPROVED', 'ARCHIVED'] as const).map((status): Case => ({
    name: `an ${status} version of an APPROVED resource: everyone`,
    event: versionEvent(false),
    now: { resource: { status: 'APPROVED', owner: 'USER' }, version: status },
    readers: EVERYONE,
  })),
  ...(['DRAFT', 'PENDING', 'REJECTED'] as const).map((status): Case => ({
    name: `a ${status} version of an APPROVED resource: owner side, contributors, moderators`,
    event: versionEvent(true),
    now: { resource: { status: 'APPROVED', owner: 'USER' }, version: status },
    readers: ['owner', 'contributor', ...STAFF],
  })),
  {
    name: 'an APPROVED version of a REJECTED resource: owner side, contributors, moderators',
    event: versionEvent(true),
    now: { resource: { status: 'REJECTED', owner: 'USER' }, version: 'APPROVED' },
    readers: ['owner', 'contributor', ...STAFF],
  },
  {
    name: 'a deleted version recorded public of an APPROVED resource: everyone',
    event: versionEvent(true),
    now: { resource: { status: 'APPROVED', owner: 'USER' } },
    readers: EVERYONE,
  },
  {
    name: 'a deleted version recorded non-public: the resource owner side, contributors, moderators',
    event: versionEvent(false),
    now: { resource: { status: 'APPROVED', owner: 'USER' } },
    readers: ['owner', 'contributor', ...STAFF],
  },
  {
    name: 'a deleted version recorded public of a resource SUSPENDED since: not public',
    event: versionEvent(true),
    now: { resource: { status: 'SUSPENDED', owner: 'USER' } },
    readers: ['owner', 'contributor', ...STAFF],
  },
  // SUBJECT: servers.
  {
    name: 'an APPROVED server: everyone',
    event: userServerEvent(false),
    now: { server: { status: 'APPROVED', owner: 'USER' } },
    readers: EVERYONE,
  },
  {
    name: 'a PENDING user server: its owner and moderators (servers have no contributors)',
    event: userServerEvent(true),
    now: { server: { status: 'PENDING', owner: 'USER' } },
    readers: ['owner', ...STAFF],
  },
  {
    name: 'a SUSPENDED team server: every member of the owning team and moderators',
    event: teamServerEvent(true),
    now: { server: { status: 'SUSPENDED', owner: 'TEAM' } },
    readers: [...TEAM_SIDE, ...STAFF],
  },
  {
    name: 'a user server transferred to a team since, not public: the team, no longer the old owner',
    event: userServerEvent(false),
    now: { server: { status: 'REJECTED', owner: 'TEAM' } },
    readers: [...TEAM_SIDE, ...STAFF],
  },
  {
    name: 'a deleted server recorded public: everyone',
    event: teamServerEvent(true),
    now: {},
    readers: EVERYONE,
  },
  {
    name: 'a deleted server recorded non-public: the recorded owner and moderators',
    event: userServerEvent(false),
    now: {},
    readers: ['owner', ...STAFF],
  },
  // SUBJECT: teams and users are public.
  { name: 'a team event: everyone', event: teamEvent, now: {}, readers: EVERYONE },
  { name: 'a user event (badge, follow): everyone', event: userEvent, now: {}, readers: EVERYONE },
  // REPORT.
  {
    name: 'a report event: the reporter and moderators only',
    event: reportEvent,
    now: {},
    readers: ['reporter', ...STAFF],
  },
  // INVITATION.
  {
    name: "an invitation event: the team's OWNER and ADMIN, the invitee and platform ADMIN+",
    event: invitationEvent,
    now: {},
    readers: ['teamOwner', 'teamAdmin', 'invitee', 'admin', 'superAdmin'],
  },
  // THREAD.
  {
    name: 'a thread event of an APPROVED resource: owner side, contributors, moderators, not the public',
    event: threadEvent,
    now: { resource: { status: 'APPROVED', owner: 'USER' } },
    readers: ['owner', 'contributor', ...STAFF],
  },
  {
    name: 'a thread event of a deleted resource: the recorded owner and moderators',
    event: threadEvent,
    now: {},
    readers: ['owner', ...STAFF],
  },
  // NONE.
  { name: 'a webhook ping: nobody', event: pingEvent, now: {}, readers: [] },
];

const TABLE = CASES.flatMap((testCase) =>
  EVERYONE.map((reader) => ({
    label: `${testCase.name} — ${reader}`,
    reader,
    testCase,
    expected: testCase.readers.includes(reader),
  })),
);

describe('canReadEvent', () => {
  it.each(TABLE)('$label: $expected', ({ reader, testCase, expected }) => {
    const facts = factsFor(reader, testCase.now, testCase.event);
    expect(canReadEvent(READERS[reader].reader, testCase.event, facts)).toBe(expected);
  });

  it('reads subject_public as stored by either database (SQLite 0/1, PostgreSQL booleans)', () => {
    const facts = factsFor('anonymous', {}, userResourceEvent(true));
    expect(canReadEvent(null, { ...userResourceEvent(true), subject_public: 1 }, facts)).toBe(true);
    expect(canReadEvent(null, { ...userResourceEvent(true), subject_public: 0 }, facts)).toBe(false);
  });
});
