// The scenario of the visibility walk (visibility-walk.test.ts): every persona of the acceptance test and a
// world that produces every event type a route records today, built through the HTTP API. Alongside, a plain
// model of that world as the scenario leaves it (who owns what, statuses, teams, who reported or was invited),
// from which the walk states its expectations without asking the code under test.
import { expect } from 'vitest';
import type { App } from '../../../src/app.js';
import type { TeamRole } from '../../../src/core/db/schema.js';
import { createUser } from '../../helpers/factories.js';
import type { TestUser } from '../../helpers/factories.js';
import { awardOk, createBadge, revoke } from '../../badges/helpers.js';
import { fileResourceReport, fileUserReport, moderateOk } from '../../reports/helpers.js';
import { addContributor, createResource, moderate as moderateResource } from '../../resources/helpers.js';
import { createServer, moderate as moderateServer, reportStatus } from '../../servers/helpers.js';
import { createTeam, invite, respond } from '../../teams/helpers.js';
import { act, createVersion, uploadFile, versionIn, versionUrl } from '../../versions/helpers.js';
import { newestEventId } from './feed.js';

export const PERSONAS = [
  'anonymous',
  'stranger',
  'owner',
  'teamOwner',
  'teamAdmin',
  'teamMember',
  'contributor',
  'maintainer',
  'reporter',
  'reportedUser',
  'invitee',
  'moderator',
  'admin',
] as const;
export type Persona = (typeof PERSONAS)[number];
export type AccountPersona = Exclude<Persona, 'anonymous'>;

export type Owner = { userId: string } | { teamId: string };

/** Events with an id at or after `publicFrom` were recorded while the (now deleted) subject was public. */
export interface Gone {
  publicFrom: string | null;
}

export interface ResourceFact {
  owner: Owner;
  status: 'PENDING' | 'APPROVED' | 'REJECTED';
  contributors: Set<string>;
  gone?: Gone;
}

export interface VersionFact {
  resourceId: string;
  status: 'DRAFT' | 'PENDING' | 'APPROVED' | 'REJECTED' | 'ARCHIVED';
  gone?: Gone;
}

export interface ServerFact {
  status: 'PENDING' | 'APPROVED' | 'REJECTED';
  /** Owners over time: each from the first event id of their tenure. */
  owners: Array<{ from: string; owner: Owner }>;
  gone?: Gone;
}

export interface World {
  users: Record<AccountPersona, TestUser>;
  teamId: string;
  teams: Map<string, Map<string, TeamRole>>;
  resources: Map<string, ResourceFact>;
  versions: Map<string, VersionFact>;
  servers: Map<string, ServerFact>;
  /** Report id → reporter id. */
  reporters: Map<string, string>;
}

const ok = (response: { statusCode: number; body: string }, status = 200) =>
  expect(response.statusCode, response.body).toBe(status);

/** The personas, and the team around teamOwner with teamAdmin (ADMIN) and teamMember (MEMBER). */
export async function createPersonasAndTeam(app: App): Promise<World> {
  const names = PERSONAS.filter((name): name is AccountPersona => name !== 'anonymous');
  const users = {} as Record<AccountPersona, TestUser>;
  for (const name of names) {
    users[name] = await createUser(app, {
      ...(name === 'moderator' ? { role: 'MODERATOR' as const } : {}),
      ...(name === 'admin' ? { role: 'ADMIN' as const } : {}),
    });
  }
  const team = await createTeam(app, users.teamOwner);
  for (const [name, role] of [
    ['teamAdmin', 'ADMIN'],
    ['teamMember', 'MEMBER'],
  ] as const) {
    const invitation = await invite(app, team.id, users.teamOwner, users[name], role);
    ok(await respond(app, invitation.id, users[name], true));
  }
  return {
    users,
    teamId: team.id,
    teams: new Map([
      [
        team.id,
        new Map<string, TeamRole>([
          [users.teamOwner.id, 'OWNER'],
          [users.teamAdmin.id, 'ADMIN'],
          [users.teamMember.id, 'MEMBER'],
        ]),
      ],
    ]),
    resources: new Map(),
    versions: new Map(),
    servers: new Map(),
    reporters: new Map(),
  };
}

/** Produces the events; the world model follows each change. */
export async function produceEvents(app: App, world: World): Promise<void> {
  const { users, teamId } = world;
  const { owner, teamOwner, teamAdmin, contributor, maintainer, moderator, admin } = users;
  const mark = async () => (await newestEventId(app))!;

  // The team's own life: an invitation declined, a member who joins, changes role and is removed.
  const declined = await invite(app, teamId, teamOwner, users.invitee);
  ok(await respond(app, declined.id, users.invitee, false));
  const passing = await createUser(app);
  const passingInvitation = await invite(app, teamId, teamAdmin, passing);
  ok(await respond(app, passingInvitation.id, passing, true));
  ok(
    await app.inject({
      method: 'PATCH',
      url: `/teams/${teamId}/members/${passing.id}`,
      headers: teamOwner.headers,
      payload: { role: 'MODERATOR' },
    }),
  );
  ok(
    await app.inject({
      method: 'DELETE',
      url: `/teams/${teamId}/members/${passing.id}`,
      headers: teamAdmin.headers,
    }),
  );

  const withContributors = async (creator: TestUser, resourceId: string) => {
    await addContributor(app, creator, resourceId, contributor, 'CONTRIBUTOR');
    await addContributor(app, creator, resourceId, maintainer, 'MAINTAINER');
    return new Set([contributor.id, maintainer.id]);
  };
  const actors = { editor: owner, moderator };

  // A resource REJECTED without ever being approved, with an approved (and latest) version and a draft.
  const rejected = await createResource(app, owner);
  const rejectedFact: ResourceFact = {
    owner: { userId: owner.id },
    status: 'PENDING',
    contributors: await withContributors(owner, rejected.id),
  };
  world.resources.set(rejected.id, rejectedFact);
  const approvedInRejected = await versionIn(app, actors, rejected.id, 'APPROVED');
  world.versions.set(approvedInRejected.id, { resourceId: rejected.id, status: 'APPROVED' });
  const draftInRejected = await createVersion(app, contributor, rejected.id);
  await uploadFile(app, maintainer, rejected.id, draftInRejected.id);
  world.versions.set(draftInRejected.id, { resourceId: rejected.id, status: 'DRAFT' });
  await moderateResource(app, moderator, rejected.id, 'REJECT', 'Not allowed here');
  rejectedFact.status = 'REJECTED';

  // An APPROVED resource with public (approved, archived) and non-public versions, a deleted file and version.
  const approved = await createResource(app, owner);
  world.resources.set(approved.id, {
    owner: { userId: owner.id },
    status: 'APPROVED',
    contributors: await withContributors(owner, approved.id),
  });
  await moderateResource(app, moderator, approved.id, 'APPROVE');
  ok(
    await app.inject({
      method: 'PATCH',
      url: `/resources/${approved.id}`,
      headers: maintainer.headers,
      payload: { name: 'A renamed resource' },
    }),
  );
  for (const status of ['APPROVED', 'REJECTED', 'PENDING'] as const) {
    const version = await versionIn(app, actors, approved.id, status);
    world.versions.set(version.id, { resourceId: approved.id, status });
  }
  const archived = await versionIn(app, actors, approved.id, 'ARCHIVED');
  world.versions.set(archived.id, { resourceId: approved.id, status: 'ARCHIVED' });
  const draft = await createVersion(app, owner, approved.id);
  world.versions.set(draft.id, { resourceId: approved.id, status: 'DRAFT' });
  await uploadFile(app, owner, approved.id, draft.id, { data: Buffer.from('one\n'), name: 'one.txt' });
  const second = await uploadFile(app, contributor, approved.id, draft.id, {
    data: Buffer.from('two\n'),
    name: 'two.txt',
  });
  ok(
    await app.inject({
      method: 'DELETE',
      url: `${versionUrl(approved.id, draft.id)}/files/${second.id}`,
      headers: owner.headers,
    }),
  );
  const doomed = await createVersion(app, owner, approved.id);
  world.versions.set(doomed.id, { resourceId: approved.id, status: 'DRAFT', gone: { publicFrom: null } });
  ok(await app.inject({ method: 'DELETE', url: versionUrl(approved.id, doomed.id), headers: owner.headers }));

  // A team-owned resource, PENDING, with a version.
  const teamResource = await createResource(app, teamOwner, { ownerType: 'TEAM', ownerId: teamId });
  world.resources.set(teamResource.id, {
    owner: { teamId },
    status: 'PENDING',
    contributors: await withContributors(teamOwner, teamResource.id),
  });
  const teamVersion = await createVersion(app, teamAdmin, teamResource.id);
  await uploadFile(app, teamAdmin, teamResource.id, teamVersion.id);
  await act(app, teamAdmin, teamResource.id, teamVersion.id, 'submit');
  world.versions.set(teamVersion.id, { resourceId: teamResource.id, status: 'PENDING' });
  // Its moderation thread: a question from the owner side about the version, a reply, an internal note.
  const thread = `/resources/${teamResource.id}/moderation/thread/messages`;
  for (const [user, payload] of [
    [users.teamMember, { body: 'Any news?', versionId: teamVersion.id }],
    [moderator, { body: 'Reviewing it this week.' }],
    [moderator, { body: 'Looks like a copy of another mod.', internal: true }],
  ] as const) {
    ok(await app.inject({ method: 'POST', url: thread, headers: user.headers, payload }), 201);
  }

  // The reported user's APPROVED resource, and a resource approved then deleted.
  const reported = await createResource(app, users.reportedUser);
  world.resources.set(reported.id, {
    owner: { userId: users.reportedUser.id },
    status: 'APPROVED',
    contributors: new Set(),
  });
  await moderateResource(app, moderator, reported.id, 'APPROVE');
  const deleted = await createResource(app, owner);
  await moderateResource(app, moderator, deleted.id, 'APPROVE');
  world.resources.set(deleted.id, {
    owner: { userId: owner.id },
    status: 'APPROVED',
    contributors: new Set(),
    gone: { publicFrom: await mark() },
  });
  ok(await app.inject({ method: 'DELETE', url: `/resources/${deleted.id}`, headers: owner.headers }), 204);

  // Servers: approved and reporting its status, pending team server, rejected, transferred away, deleted.
  const serverOf = async (creator: TestUser, owner: Owner, body: Record<string, unknown> = {}) => {
    const server = await createServer(app, creator, body);
    const fact: ServerFact = { status: 'PENDING', owners: [{ from: '', owner }] };
    world.servers.set(server.id, fact);
    return { server, fact };
  };
  const live = await serverOf(owner, { userId: owner.id });
  await moderateServer(app, moderator, live.server.id, 'approve');
  live.fact.status = 'APPROVED';
  ok(
    await app.inject({
      method: 'PATCH',
      url: `/servers/${live.server.id}`,
      headers: owner.headers,
      payload: { name: 'A renamed server' },
    }),
  );
  await reportStatus(app, owner, live.server.id, { online: true, onlinePlayers: 3, maxPlayers: 20 });
  await reportStatus(app, owner, live.server.id, { online: false, onlinePlayers: 0, maxPlayers: 20 });

  const teamServer = await serverOf(teamOwner, { teamId }, { ownerType: 'TEAM', ownerId: teamId });
  ok(
    await app.inject({
      method: 'PATCH',
      url: `/servers/${teamServer.server.id}`,
      headers: teamAdmin.headers,
      payload: { name: 'A renamed team server' },
    }),
  );
  const refused = await serverOf(owner, { userId: owner.id });
  await moderateServer(app, moderator, refused.server.id, 'reject', { reason: 'No rules', notes: 'Spam?' });
  refused.fact.status = 'REJECTED';
  // Given away while PENDING: the old owner no longer sees it, the new one does.
  const given = await serverOf(owner, { userId: owner.id });
  ok(
    await app.inject({
      method: 'POST',
      url: `/servers/${given.server.id}/transfer-ownership`,
      headers: owner.headers,
      payload: { newOwnerId: users.reportedUser.id, ownerType: 'USER' },
    }),
  );
  given.fact.owners.push({ from: await mark(), owner: { userId: users.reportedUser.id } });
  const gone = await serverOf(owner, { userId: owner.id });
  await moderateServer(app, moderator, gone.server.id, 'approve');
  gone.fact.status = 'APPROVED';
  gone.fact.gone = { publicFrom: await mark() };
  ok(await app.inject({ method: 'DELETE', url: `/servers/${gone.server.id}`, headers: owner.headers }), 204);

  // Reports: about the reported user's resource (then taken under review) and about the user.
  const aboutResource = await fileResourceReport(app, users.reporter, reported.id);
  ok(aboutResource, 201);
  const aboutUser = await fileUserReport(app, users.reporter, users.reportedUser.id);
  ok(aboutUser, 201);
  for (const response of [aboutResource, aboutUser]) {
    world.reporters.set((response.json() as { id: string }).id, users.reporter.id);
  }
  await moderateOk(app, moderator, (aboutResource.json() as { id: string }).id, {
    action: 'TAKE_UNDER_REVIEW',
  });

  // Badges and a follow.
  const badge = await createBadge(app, admin);
  await awardOk(app, admin, badge.id, users.reportedUser.id);
  await awardOk(app, admin, badge.id, owner.id);
  ok(await revoke(app, admin, badge.id, owner.id));
  ok(await app.inject({ method: 'POST', url: `/users/${owner.id}/follow`, headers: users.stranger.headers }));
}
