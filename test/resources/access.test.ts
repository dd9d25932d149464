// core/auth/resource-access.ts: the pure permission rules, every combination of facts, and the fact lookup
// (one query at most) against a real database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccess } from '../../src/core/auth/access.js';
import { createResourceAccess, resourceGrants } from '../../src/core/auth/resource-access.js';
import type { ResourceFacts, ResourcePermission } from '../../src/core/auth/resource-access.js';
import type { Actor } from '../../src/core/auth/authenticate.js';
import type { ResourceContributorRole, ResourceStatus, Role } from '../../src/core/db/schema.js';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createResourceCast, resourceFor } from './helpers.js';
import type { ResourceCast } from './helpers.js';

const OWNER_RIGHTS = ['owner', 'member', 'none'] as const;
const CONTRIBUTOR_ROLES: Array<ResourceContributorRole | null> = ['MAINTAINER', 'CONTRIBUTOR', null];
const PLATFORM_ROLES: Array<Role | null> = ['USER', 'MODERATOR', 'ADMIN', 'SUPER_ADMIN', null];
const STATUSES: ResourceStatus[] = ['PENDING', 'APPROVED', 'REJECTED', 'SUSPENDED'];

/** The rules of the brief, written independently of the implementation. */
function expected(facts: ResourceFacts, permission: ResourcePermission): boolean {
  const ownerSide = facts.ownerRights !== 'none';
  const staff = facts.platformRole !== null && facts.platformRole !== 'USER';
  switch (permission) {
    case 'resource.view':
      return facts.status === 'APPROVED' || ownerSide || facts.contributorRole !== null || staff;
    case 'resource.edit':
      return ownerSide || facts.contributorRole !== null;
    case 'resource.contributors.add':
      return facts.ownerRights === 'owner';
    case 'resource.contributors.manage':
      return facts.ownerRights === 'owner' || facts.contributorRole === 'MAINTAINER';
    case 'resource.delete':
      return facts.ownerRights === 'owner';
  }
}

const PERMISSIONS: ResourcePermission[] = [
  'resource.view',
  'resource.edit',
  'resource.contributors.add',
  'resource.contributors.manage',
  'resource.delete',
];

const COMBINATIONS = STATUSES.flatMap((status) =>
  OWNER_RIGHTS.flatMap((ownerRights) =>
    CONTRIBUTOR_ROLES.flatMap((contributorRole) =>
      PLATFORM_ROLES.map((platformRole): ResourceFacts => ({
        status,
        ownerRights,
        contributorRole,
        platformRole,
      })),
    ),
  ),
);

describe('resourceGrants (pure)', () => {
  it.each(PERMISSIONS)('%s over every combination of facts', (permission) => {
    for (const facts of COMBINATIONS) {
      expect(resourceGrants(facts, permission), JSON.stringify(facts)).toBe(expected(facts, permission));
    }
  });

  it('moderators see a suspended resource but cannot edit or delete it', () => {
    const facts: ResourceFacts = {
      status: 'SUSPENDED',
      ownerRights: 'none',
      contributorRole: null,
      platformRole: 'ADMIN',
    };
    expect(resourceGrants(facts, 'resource.view')).toBe(true);
    expect(resourceGrants(facts, 'resource.edit')).toBe(false);
    expect(resourceGrants(facts, 'resource.delete')).toBe(false);
  });
});

describe('facts from the database', () => {
  let t: TestApp;
  let cast: ResourceCast;

  beforeAll(async () => {
    t = await buildTestApp();
    cast = await createResourceCast(t.app);
  });
  afterAll(async () => t.close());

  const actorOf = (user: { id: string; role: Role }): Actor => ({
    userId: user.id,
    role: user.role,
    credential: { kind: 'api_key', id: 'test' },
  });

  it.each([
    ['USER', 'owner', 'owner', null],
    ['USER', 'teamOwner', 'none', null],
    ['USER', 'maintainer', 'none', 'MAINTAINER'],
    ['USER', 'contributor', 'none', 'CONTRIBUTOR'],
    ['TEAM', 'teamOwner', 'owner', null],
    ['TEAM', 'teamAdmin', 'owner', null],
    ['TEAM', 'teamModerator', 'member', null],
    ['TEAM', 'teamMember', 'member', null],
    ['TEAM', 'contributor', 'none', 'CONTRIBUTOR'],
    ['TEAM', 'stranger', 'none', null],
    ['TEAM', 'moderator', 'none', null],
  ] as const)('%s-owned, %s: owner rights %s, contributor role %s', async (kind, persona, rights, role) => {
    const { db } = t.app.context.database;
    const resourceAccess = createResourceAccess({ db, access: createAccess({ db }) });
    const resource = await resourceFor(t.app, cast, kind, 'PENDING');
    const row = await db
      .selectFrom('resources')
      .select(['id', 'status', 'owner_type', 'owner_id'])
      .where('id', '=', resource.id)
      .executeTakeFirstOrThrow();
    const user = cast[persona];
    const facts = await resourceAccess.facts(actorOf(user), row);
    expect(facts).toEqual({
      status: 'PENDING',
      ownerRights: rights,
      contributorRole: role,
      platformRole: user.role,
    });
    expect(await resourceAccess.facts(null, row)).toEqual({
      status: 'PENDING',
      ownerRights: 'none',
      contributorRole: null,
      platformRole: null,
    });
  });
});
