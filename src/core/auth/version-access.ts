// Who may see and manage a resource's versions (interface "Authentication" 4, DESIGN §8 "Versions"), on top of
// the resource's own permissions (resource-access.ts):
// - the owner side, contributors and MODERATOR+ see every version of a resource they may see;
// - everyone else sees only publicly visible versions (APPROVED, and ARCHIVED ones, which stay downloadable) of
//   an APPROVED resource; anything else does not exist for them (404);
// - create, update, delete, upload, submit, resubmit, set-latest, changelog and archive need `resource.edit`
//   (owner side or contributor; platform moderators do not get it by their role);
// - approve and reject need MODERATOR+ (a route gate) and are refused (403) to a moderator who is on the
//   resource's owner side or a contributor: nobody approves their own work.
import type { Kysely, Transaction } from 'kysely';
import type { DB, Role } from '../db/schema.js';
import { forbidden, notFound, unauthorized } from '../http/errors.js';
import type { Actor } from './authenticate.js';
import { resourceGrants } from './resource-access.js';
import type { ResourceAccess, ResourceFacts, ResourceSubject } from './resource-access.js';
import { hasRank } from './roles.js';
import { assertTeamObject } from './scopes.js';

type Executor = Kysely<DB> | Transaction<DB>;

/** Statuses the public may see and download (versions.states.ts isPubliclyVisible, kept in step). */
const PUBLIC_STATUSES: ReadonlySet<string> = new Set(['APPROVED', 'ARCHIVED']);

const isModerator = (role: Role | null): boolean => role !== null && hasRank(role, 'MODERATOR');

/** Whether the facts show every version (pure). */
export function seesEveryVersion(facts: ResourceFacts): boolean {
  return facts.ownerRights !== 'none' || facts.contributorRole !== null || isModerator(facts.platformRole);
}

/** Whether the facts allow deciding (approve, reject) on the resource's versions, given MODERATOR+ (pure). */
export function mayModerateVersions(facts: ResourceFacts): boolean {
  return isModerator(facts.platformRole) && facts.ownerRights === 'none' && facts.contributorRole === null;
}

export type VersionAccess = ReturnType<typeof createVersionAccess>;

export function createVersionAccess({ resourceAccess }: { resourceAccess: ResourceAccess }) {
  /**
   * What the caller may see of the resource's versions: 'all', or 'public' (publicly visible statuses only).
   * 404 when the caller may not see the resource at all. An anonymous caller on an APPROVED resource costs no
   * query.
   */
  async function scope(
    actor: Actor | null,
    resource: ResourceSubject,
    executor?: Executor,
  ): Promise<'all' | 'public'> {
    if (actor === null) {
      if (resource.status !== 'APPROVED') throw notFound('Resource');
      return 'public';
    }
    const facts = await resourceAccess.facts(actor, resource, executor);
    if (!resourceGrants(facts, 'resource.view')) throw notFound('Resource');
    // Seeing a resource that is not APPROVED already implies seeing every version of it.
    return seesEveryVersion(facts) ? 'all' : 'public';
  }

  /**
   * 404 unless the caller may see this version. The hot public case (an APPROVED or ARCHIVED version of an
   * APPROVED resource) costs no query.
   */
  async function authorizeView(
    actor: Actor | null,
    resource: ResourceSubject,
    versionStatus: string,
    executor?: Executor,
  ): Promise<void> {
    if (resource.status === 'APPROVED' && PUBLIC_STATUSES.has(versionStatus)) return;
    if ((await scope(actor, resource, executor)) === 'public') throw notFound('Version');
  }

  /**
   * Managing a version (or creating one): 404 when the resource or the version is invisible to the caller,
   * 401 anonymous, 403 without `resource.edit`. `versionStatus` is omitted when creating.
   */
  async function authorizeEdit(
    actor: Actor | null,
    resource: ResourceSubject,
    versionStatus?: string,
  ): Promise<void> {
    if (actor === null) throw unauthorized();
    const facts = await resourceAccess.facts(actor, resource);
    if (!resourceGrants(facts, 'resource.view')) throw notFound('Resource');
    if (
      versionStatus !== undefined &&
      !seesEveryVersion(facts) &&
      !(resource.status === 'APPROVED' && PUBLIC_STATUSES.has(versionStatus))
    ) {
      throw notFound('Version');
    }
    // A team-bound API key manages only versions of resources its team owns (spec/extensions.md §5).
    assertTeamObject(actor, { ownerType: resource.owner_type, ownerId: resource.owner_id });
    if (!resourceGrants(facts, 'resource.edit')) {
      throw forbidden('Only the resource owner or a contributor can manage its versions');
    }
  }

  /** Approve and reject, after the MODERATOR+ route gate: 403 on one's own (owner side, contributor) resource. */
  async function authorizeModerate(actor: Actor, resource: ResourceSubject): Promise<void> {
    const facts = await resourceAccess.facts(actor, resource);
    if (!resourceGrants(facts, 'resource.view')) throw notFound('Resource');
    if (!mayModerateVersions(facts)) {
      throw forbidden('Moderators cannot approve or reject versions of their own or their team’s resources');
    }
  }

  return { scope, authorizeView, authorizeEdit, authorizeModerate };
}
