// Who may see and do what with a resource (DESIGN §8 "Resource moderation", "Ownership"): named permissions
// answered from three facts — owner rights (the user owner, or the owning team's roles), the contributor role,
// and the platform role. The rules are pure functions (unit-tested); createResourceAccess only looks the facts
// up, in at most one query, and applies them.
import type { Expression, ExpressionBuilder, Kysely, SqlBool, Transaction } from 'kysely';
import { dialectOf, prepared } from '../db/prepared.js';
import type { DB, ResourceContributorRole, ResourceStatus, Role, TeamRole } from '../db/schema.js';
import { forbidden, notFound, unauthorized } from '../http/errors.js';
import { ownerRightsFromTeamRole, ownerSideCondition } from './access.js';
import type { Access, OwnerRef, OwnerRights } from './access.js';
import type { Actor } from './authenticate.js';
import { hasRank } from './roles.js';
import { assertTeamObject } from './scopes.js';

export type ResourcePermission =
  /** See it whatever its status: owner side, contributors, MODERATOR+; everyone sees APPROVED ones. */
  | 'resource.view'
  /** "Owner or contributor" in the interface: details, icon, banner, links, description images, versions. */
  | 'resource.edit'
  /** Add a contributor: "resource owner" only (the user owner, the owning team's OWNER and ADMIN). */
  | 'resource.contributors.add'
  /** Change a contributor's role or remove one: owner rights or MAINTAINER. */
  | 'resource.contributors.manage'
  /** Delete the resource: owner rights only. */
  | 'resource.delete';

export interface ResourceFacts {
  status: ResourceStatus;
  /** 'owner': user owner or team OWNER/ADMIN; 'member': team MODERATOR/MEMBER (contributor rights). */
  ownerRights: OwnerRights;
  contributorRole: ResourceContributorRole | null;
  platformRole: Role | null;
}

/** The resource fields the rules need, as the row has them. */
export interface ResourceSubject {
  id: string;
  status: ResourceStatus;
  owner_type: 'USER' | 'TEAM';
  owner_id: string;
}

/** Whether the facts grant the permission (pure). */
export function resourceGrants(facts: ResourceFacts, permission: ResourcePermission): boolean {
  const ownerSide = facts.ownerRights !== 'none';
  switch (permission) {
    case 'resource.view':
      return (
        facts.status === 'APPROVED' ||
        ownerSide ||
        facts.contributorRole !== null ||
        (facts.platformRole !== null && hasRank(facts.platformRole, 'MODERATOR'))
      );
    case 'resource.edit':
      return ownerSide || facts.contributorRole !== null;
    case 'resource.contributors.add':
    case 'resource.delete':
      return facts.ownerRights === 'owner';
    case 'resource.contributors.manage':
      return facts.ownerRights === 'owner' || facts.contributorRole === 'MAINTAINER';
  }
}

const DENIED: Record<Exclude<ResourcePermission, 'resource.view'>, string> = {
  'resource.edit': 'Only the resource owner or a contributor can do this',
  'resource.contributors.add': 'Only the resource owner can add contributors',
  'resource.contributors.manage': 'Only the resource owner or a maintainer can manage contributors',
  'resource.delete': 'Only the resource owner can delete it',
};

/** MODERATOR and above see resources in every status. */
export const seesEveryStatus = (actor: Actor | null): boolean =>
  actor !== null && hasRank(actor.role, 'MODERATOR');

type Executor = Kysely<DB> | Transaction<DB>;
export type ResourceAccess = ReturnType<typeof createResourceAccess>;

/** The caller's contributor role on a user-owned resource (the owner side costs no query). */
const contributorRoleQuery = prepared<{ role: ResourceContributorRole }, [string, string]>(
  2,
  (db, _dialect, resourceId, userId) =>
    db
      .selectFrom('resource_contributors')
      .select('role')
      .where('resource_id', '=', resourceId!)
      .where('user_id', '=', userId!),
);

/** A team-owned resource: the caller's team role and contributor role, read together. */
const teamAndContributorRoleQuery = prepared<
  { team_role: TeamRole | null; contributor_role: ResourceContributorRole | null },
  [string, string, string]
>(3, (db, _dialect, teamId, resourceId, userId) =>
  db.selectNoFrom((eb) => [
    eb
      .selectFrom('team_members')
      .select('role')
      .where('team_id', '=', teamId!)
      .where('user_id', '=', userId!)
      .as('team_role'),
    eb
      .selectFrom('resource_contributors')
      .select('role')
      .where('resource_id', '=', resourceId!)
      .where('user_id', '=', userId!)
      .as('contributor_role'),
  ]),
);

export function createResourceAccess({ db, access }: { db: Kysely<DB>; access: Access }) {
  // Both fact reads are prepared (compiled once; named statements on PostgreSQL): they run on every
  // authenticated read of a resource that is not APPROVED and on every write to one.
  async function contributorRole(
    userId: string,
    resourceId: string,
    executor: Executor,
  ): Promise<ResourceContributorRole | null> {
    const rows = await contributorRoleQuery(executor as Kysely<DB>, dialectOf(executor), resourceId, userId);
    return rows[0]?.role ?? null;
  }

  /**
   * The caller's facts about one resource. A user owner costs no query; anyone else one: the team role and the
   * contributor role are read together.
   */
  async function facts(
    actor: Actor | null,
    resource: ResourceSubject,
    executor: Executor = db,
  ): Promise<ResourceFacts> {
    const base = { status: resource.status, platformRole: actor?.role ?? null };
    if (actor === null) return { ...base, ownerRights: 'none', contributorRole: null };
    const owner: OwnerRef = { ownerType: resource.owner_type, ownerId: resource.owner_id };
    if (owner.ownerType === 'USER') {
      const ownerRights = await access.ownerRights(actor.userId, owner);
      if (ownerRights === 'owner') return { ...base, ownerRights, contributorRole: null };
      return {
        ...base,
        ownerRights,
        contributorRole: await contributorRole(actor.userId, resource.id, executor),
      };
    }
    const [row] = await teamAndContributorRoleQuery(
      executor as Kysely<DB>,
      dialectOf(executor),
      owner.ownerId,
      resource.id,
      actor.userId,
    );
    return {
      ...base,
      ownerRights: ownerRightsFromTeamRole(row?.team_role ?? null),
      contributorRole: row?.contributor_role ?? null,
    };
  }

  /** 404 unless the caller may see the resource; an APPROVED one costs no query. */
  async function authorizeView(
    actor: Actor | null,
    resource: ResourceSubject,
    executor: Executor = db,
  ): Promise<void> {
    if (resource.status === 'APPROVED') return;
    if (!resourceGrants(await facts(actor, resource, executor), 'resource.view')) throw notFound('Resource');
  }

  /**
   * 404 when the caller may not see the resource (existence is not revealed), then 401 for an anonymous caller
   * and 403 when the permission is missing. Returns the facts for rules that depend on them.
   */
  async function authorize(
    actor: Actor | null,
    resource: ResourceSubject,
    permission: Exclude<ResourcePermission, 'resource.view'>,
    executor: Executor = db,
  ): Promise<ResourceFacts> {
    const known = await facts(actor, resource, executor);
    if (!resourceGrants(known, 'resource.view')) throw notFound('Resource');
    if (actor === null) throw unauthorized();
    // A team-bound API key changes only resources its team owns (spec/extensions.md §5).
    assertTeamObject(actor, { ownerType: resource.owner_type, ownerId: resource.owner_id });
    if (!resourceGrants(known, permission)) throw forbidden(DENIED[permission]);
    return known;
  }

  /**
   * Creating for yourself is always allowed; creating for a team needs team role ADMIN or OWNER (DESIGN §8
   * "Ownership"). The team must already be known to exist.
   */
  async function authorizeCreate(actor: Actor, owner: OwnerRef): Promise<void> {
    assertTeamObject(actor, owner);
    if (owner.ownerType === 'USER') {
      if (owner.ownerId !== actor.userId) {
        throw forbidden('You can create resources for yourself or for a team you own or administer');
      }
      return;
    }
    if (!(await access.canCreateForTeam(actor.userId, owner.ownerId))) {
      throw forbidden('Creating a resource for a team needs the team role ADMIN or OWNER');
    }
  }

  /**
   * The list filter for "what may this caller see": null when everything (MODERATOR+), otherwise APPROVED, or
   * owned by the caller or a team they belong to, or contributed to by them.
   */
  function listVisibility(
    actor: Actor | null,
  ): ((eb: ExpressionBuilder<DB, 'resources'>) => Expression<SqlBool>) | null {
    if (seesEveryStatus(actor)) return null;
    if (actor === null) return (eb) => eb('resources.status', '=', 'APPROVED');
    const userId = actor.userId;
    return (eb) =>
      eb.or([
        eb('resources.status', '=', 'APPROVED'),
        ownerSideCondition('resources', userId),
        eb.exists(
          eb
            .selectFrom('resource_contributors')
            .select('resource_contributors.user_id')
            .whereRef('resource_contributors.resource_id', '=', 'resources.id')
            .where('resource_contributors.user_id', '=', userId),
        ),
      ]);
  }

  return { facts, authorizeView, authorize, authorizeCreate, listVisibility };
}
