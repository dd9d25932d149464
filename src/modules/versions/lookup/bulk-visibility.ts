// "What the caller may see" for many versions of many resources at once: the same pure rules as one version's
// check (resource-access.ts resourceGrants, version-access.ts seesEveryVersion, versions.states.ts
// isPubliclyVisible), with the caller's facts about every resource read in at most two queries instead of one
// or two per resource.
import type { Kysely } from 'kysely';
import { ownerRightsFromTeamRole } from '../../../core/auth/access.js';
import type { Access, OwnerRights } from '../../../core/auth/access.js';
import type { Actor } from '../../../core/auth/authenticate.js';
import { resourceGrants } from '../../../core/auth/resource-access.js';
import type { ResourceFacts } from '../../../core/auth/resource-access.js';
import { seesEveryVersion } from '../../../core/auth/version-access.js';
import type { DB } from '../../../core/db/schema.js';
import { isPubliclyVisible } from '../versions.states.js';
import type { VersionStatus } from '../versions.states.js';
import { contributorRoles } from './lookup.repo.js';
import type { MatchRow } from './lookup.repo.js';

export type VisibleVersion = (row: MatchRow) => boolean;

/** The rule for one resource and version status, given the caller's facts (pure). */
export function mayView(facts: ResourceFacts, versionStatus: VersionStatus): boolean {
  if (!resourceGrants(facts, 'resource.view')) return false;
  return (facts.status === 'APPROVED' && isPubliclyVisible(versionStatus)) || seesEveryVersion(facts);
}

/**
 * A predicate telling which of `rows` the caller may see. Anonymous callers get rows already filtered by
 * findFilesByHash(publicOnly), so they cost no query here; signed-in callers cost the team-role read (only when
 * a row's resource is team-owned) and the contributor-role read.
 */
export async function visibilityFor(
  db: Kysely<DB>,
  access: Access,
  actor: Actor | null,
  rows: readonly MatchRow[],
): Promise<VisibleVersion> {
  if (actor === null) return () => true;
  const teamIds = [...new Set(rows.filter((row) => row.owner_type === 'TEAM').map((row) => row.owner_id))];
  const resourceIds = [...new Set(rows.map((row) => row.resource_id))];
  const [teamRoles, contributors] = await Promise.all([
    access.teamRoles(actor.userId, teamIds),
    contributorRoles(db, actor.userId, resourceIds),
  ]);
  const ownerRightsOf = (row: MatchRow): OwnerRights => {
    if (row.owner_type === 'USER') return row.owner_id === actor.userId ? 'owner' : 'none';
    return ownerRightsFromTeamRole(teamRoles.get(row.owner_id) ?? null);
  };
  return (row) =>
    mayView(
      {
        status: row.resource_status,
        ownerRights: ownerRightsOf(row),
        contributorRole: contributors.get(row.resource_id) ?? null,
        platformRole: actor.role,
      },
      row.version_status,
    );
}
