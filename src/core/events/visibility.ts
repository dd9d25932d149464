// Who may read an event (spec/extensions.md §1.1), used by GET /events and by every webhook delivery (for the
// webhook's creator, at delivery time). The rule is a pure function of the event row and a few facts about the
// reader; loadEventFacts gathers those facts for a whole batch of events in a fixed number of queries.
//
//   SUBJECT     whoever can see the subject now: everyone while it is APPROVED (and, for versions and files,
//               the version is APPROVED or ARCHIVED); otherwise its owner side (user owner, owning team's
//               members), a resource's contributors, and MODERATOR+. Teams and users are public. Once the
//               subject is gone, the event's own record of whether it was public and who owned it decides.
//   REPORT      the reporter and MODERATOR+ (never the reported user or the owners of a reported resource).
//   INVITATION  the team's OWNER and ADMIN, the invitee, and platform ADMIN+.
//   THREAD      those who can read the moderation thread: the owner side (and contributors) and MODERATOR+.
//   MODERATORS  MODERATOR+ only: internal thread messages, which the owner side never sees (by any route).
//   NONE        nobody (webhook pings are delivered to their webhook only).
import type { Kysely } from 'kysely';
import { hasRank } from '../auth/roles.js';
import type { DB, EventsTable, ResourceStatus, Role, ServerStatus, TeamRole } from '../db/schema.js';

export interface EventReader {
  userId: string;
  role: Role;
}

/** The columns of an event row the rule reads. */
export type VisibilityRow = Pick<
  EventsTable,
  | 'audience'
  | 'audience_user_id'
  | 'resource_id'
  | 'version_id'
  | 'server_id'
  | 'team_id'
  | 'user_id'
  | 'subject_public'
>;

interface OwnedNow {
  status: ResourceStatus | ServerStatus;
  owner_type: 'USER' | 'TEAM';
  owner_id: string;
}

export interface EventFacts {
  resources: Map<string, OwnedNow>;
  versions: Map<string, { status: string }>;
  servers: Map<string, OwnedNow>;
  /** The reader's roles in the teams they belong to. */
  teamRoles: Map<string, TeamRole>;
  /** Resources the reader contributes to (among those of the batch). */
  contributions: Set<string>;
}

const PUBLIC_VERSION_STATUSES: ReadonlySet<string> = new Set(['APPROVED', 'ARCHIVED']);

function ownsNow(reader: EventReader | null, owned: OwnedNow, facts: EventFacts): boolean {
  if (reader === null) return false;
  return owned.owner_type === 'USER' ? owned.owner_id === reader.userId : facts.teamRoles.has(owned.owner_id);
}

/** The owner side as the event recorded it, for subjects that no longer exist. */
function ownedWhenRecorded(reader: EventReader | null, event: VisibilityRow, facts: EventFacts): boolean {
  if (reader === null) return false;
  if (event.team_id !== null) return facts.teamRoles.has(event.team_id);
  return event.user_id === reader.userId;
}

function ownerSide(reader: EventReader | null, event: VisibilityRow, facts: EventFacts): boolean {
  if (event.resource_id !== null) {
    const resource = facts.resources.get(event.resource_id);
    if (resource === undefined) return ownedWhenRecorded(reader, event, facts);
    return ownsNow(reader, resource, facts) || facts.contributions.has(event.resource_id);
  }
  if (event.server_id !== null) {
    const server = facts.servers.get(event.server_id);
    return server === undefined ? ownedWhenRecorded(reader, event, facts) : ownsNow(reader, server, facts);
  }
  return false;
}

function publicNow(event: VisibilityRow, facts: EventFacts): boolean {
  const recordedPublic = Boolean(event.subject_public);
  if (event.resource_id !== null) {
    const resource = facts.resources.get(event.resource_id);
    if (resource === undefined) return recordedPublic;
    if (resource.status !== 'APPROVED') return false;
    if (event.version_id === null) return true;
    const version = facts.versions.get(event.version_id);
    return version === undefined ? recordedPublic : PUBLIC_VERSION_STATUSES.has(version.status);
  }
  if (event.server_id !== null) {
    const server = facts.servers.get(event.server_id);
    return server === undefined ? recordedPublic : server.status === 'APPROVED';
  }
  // Teams and users are public.
  return true;
}

export function canReadEvent(reader: EventReader | null, event: VisibilityRow, facts: EventFacts): boolean {
  const moderator = reader !== null && hasRank(reader.role, 'MODERATOR');
  switch (event.audience) {
    case 'NONE':
      return false;
    case 'REPORT':
      return moderator || (reader !== null && event.audience_user_id === reader.userId);
    case 'INVITATION': {
      if (reader === null) return false;
      if (hasRank(reader.role, 'ADMIN') || event.audience_user_id === reader.userId) return true;
      const role = event.team_id === null ? undefined : facts.teamRoles.get(event.team_id);
      return role === 'OWNER' || role === 'ADMIN';
    }
    case 'THREAD':
      return moderator || ownerSide(reader, event, facts);
    case 'MODERATORS':
      return moderator;
    case 'SUBJECT':
      return moderator || publicNow(event, facts) || ownerSide(reader, event, facts);
  }
}

const distinct = (values: (string | null)[]): string[] => [
  ...new Set(values.filter((value): value is string => value !== null)),
];

const readTeamRoles = (db: Kysely<DB>, userId: string) =>
  db.selectFrom('team_members').select(['team_id', 'role']).where('user_id', '=', userId).execute();

/** The facts canReadEvent needs for these events, in at most five queries (none or one for moderators). */
export async function loadEventFacts(
  db: Kysely<DB>,
  reader: EventReader | null,
  events: readonly VisibilityRow[],
): Promise<EventFacts> {
  // ADMIN+ read every event and MODERATORs every one but invitations: no subject facts are needed for them.
  if (reader !== null && hasRank(reader.role, 'MODERATOR')) {
    const needsTeams =
      !hasRank(reader.role, 'ADMIN') && events.some((event) => event.audience === 'INVITATION');
    const teamRoles = needsTeams ? await readTeamRoles(db, reader.userId) : [];
    return {
      resources: new Map(),
      versions: new Map(),
      servers: new Map(),
      teamRoles: new Map(teamRoles.map((row) => [row.team_id, row.role])),
      contributions: new Set(),
    };
  }
  const resourceIds = distinct(events.map((event) => event.resource_id));
  const versionIds = distinct(events.map((event) => event.version_id));
  const serverIds = distinct(events.map((event) => event.server_id));
  const [resources, versions, servers, teamRoles, contributions] = await Promise.all([
    resourceIds.length === 0
      ? []
      : db
          .selectFrom('resources')
          .select(['id', 'status', 'owner_type', 'owner_id'])
          .where('id', 'in', resourceIds)
          .execute(),
    versionIds.length === 0
      ? []
      : db.selectFrom('resource_versions').select(['id', 'status']).where('id', 'in', versionIds).execute(),
    serverIds.length === 0
      ? []
      : db
          .selectFrom('servers')
          .select(['id', 'status', 'owner_type', 'owner_id'])
          .where('id', 'in', serverIds)
          .execute(),
    reader === null ? [] : readTeamRoles(db, reader.userId),
    reader === null || resourceIds.length === 0
      ? []
      : db
          .selectFrom('resource_contributors')
          .select('resource_id')
          .where('user_id', '=', reader.userId)
          .where('resource_id', 'in', resourceIds)
          .execute(),
  ]);
  return {
    resources: new Map(resources.map(({ id, ...row }) => [id, row])),
    versions: new Map(versions.map(({ id, status }) => [id, { status }])),
    servers: new Map(servers.map(({ id, ...row }) => [id, row])),
    teamRoles: new Map(teamRoles.map((row) => [row.team_id, row.role])),
    contributions: new Set(contributions.map((row) => row.resource_id)),
  };
}
