// Who manages a webhook (spec/extensions.md §1.2): the one rule behind creating one in a scope and reading,
// editing, pinging or deleting it afterwards. Creation checks the rule from the access facts (so it can say 404
// for an object the caller cannot see and 403 for one they see but may not manage); lists and the single-webhook
// routes apply the same rule as SQL (managedBy), so a page of webhooks costs a fixed number of queries.
//
//   USER      the user themself
//   TEAM      the team's OWNER and ADMIN
//   RESOURCE  its owner side (user owner, any member of the owning team) and its MAINTAINER contributors
//   SERVER    its owner side (user owner, any member of the owning team)
//   PLATFORM  platform ADMIN and SUPER_ADMIN
// Platform ADMIN and SUPER_ADMIN manage every webhook, in every scope.
import type { Expression, ExpressionBuilder, Kysely, SqlBool } from 'kysely';
import type { DB, WebhookScopeKind } from '../db/schema.js';
import { badRequest, forbidden, notFound } from '../http/errors.js';
import { TEAM_ROLES, ownerSideCondition, teamRoleGrants } from './access.js';
import type { Access } from './access.js';
import type { Actor } from './authenticate.js';
import { resourceGrants } from './resource-access.js';
import type { ResourceAccess } from './resource-access.js';
import { hasRank } from './roles.js';
import type { ServerAccess } from './server-access.js';

export interface WebhookScope {
  kind: WebhookScopeKind;
  /** The user, team, resource or server; null for PLATFORM. */
  id: string | null;
}

/** Team roles that manage the team's webhooks (the roles that manage the team). */
const TEAM_MANAGER_ROLES = TEAM_ROLES.filter((role) => teamRoleGrants(role, 'team.manage'));

/** Platform ADMIN and SUPER_ADMIN manage every webhook. */
export const managesEveryWebhook = (actor: Actor): boolean => hasRank(actor.role, 'ADMIN');

type WebhookFilter = (eb: ExpressionBuilder<DB, 'webhooks'>) => Expression<SqlBool>;

export type WebhookAccess = ReturnType<typeof createWebhookAccess>;

export function createWebhookAccess(deps: {
  db: Kysely<DB>;
  access: Access;
  resourceAccess: ResourceAccess;
  serverAccess: ServerAccess;
}) {
  const { db, access, resourceAccess, serverAccess } = deps;

  async function requireUserExists(userId: string): Promise<void> {
    const row = await db.selectFrom('users').select('id').where('id', '=', userId).executeTakeFirst();
    if (row === undefined) throw notFound('User');
  }

  async function requireTeamExists(teamId: string): Promise<void> {
    const row = await db.selectFrom('teams').select('id').where('id', '=', teamId).executeTakeFirst();
    if (row === undefined) throw notFound('Team');
  }

  async function authorizeResource(actor: Actor, resourceId: string): Promise<void> {
    const resource = await db
      .selectFrom('resources')
      .select(['id', 'status', 'owner_type', 'owner_id'])
      .where('id', '=', resourceId)
      .executeTakeFirst();
    if (resource === undefined) throw notFound('Resource');
    if (managesEveryWebhook(actor)) return;
    const facts = await resourceAccess.facts(actor, resource);
    if (!resourceGrants(facts, 'resource.view')) throw notFound('Resource');
    if (facts.ownerRights === 'none' && facts.contributorRole !== 'MAINTAINER') {
      throw forbidden("Only the resource's owner side or a maintainer can manage its webhooks");
    }
  }

  async function authorizeServer(actor: Actor, serverId: string): Promise<void> {
    if (!managesEveryWebhook(actor)) {
      await serverAccess.authorizeById(actor, 'server.manage', serverId);
      return;
    }
    if ((await serverAccess.findFacts(serverId)) === undefined) throw notFound('Server');
  }

  /**
   * The scope a new webhook may be created in, with its id filled in (USER defaults to the caller): 404 for an
   * object that does not exist or that the caller cannot see, 403 when the caller sees it but does not manage
   * it, 400 for a PLATFORM scope with an id.
   */
  async function authorizeScope(actor: Actor, scope: { kind: WebhookScopeKind; id?: string }) {
    const admin = managesEveryWebhook(actor);
    const required = (what: string): string => {
      if (scope.id === undefined) throw badRequest(`A ${scope.kind} scope needs the ${what} id`);
      return scope.id;
    };
    switch (scope.kind) {
      case 'USER': {
        const userId = scope.id ?? actor.userId;
        if (userId !== actor.userId) {
          if (!admin) throw forbidden('You can create USER webhooks for yourself only');
          await requireUserExists(userId);
        }
        return { kind: scope.kind, id: userId };
      }
      case 'TEAM': {
        const teamId = required('team');
        await requireTeamExists(teamId);
        if (!admin) await access.authorize(actor, 'team.manage', { teamId });
        return { kind: scope.kind, id: teamId };
      }
      case 'RESOURCE': {
        const resourceId = required('resource');
        await authorizeResource(actor, resourceId);
        return { kind: scope.kind, id: resourceId };
      }
      case 'SERVER': {
        const serverId = required('server');
        await authorizeServer(actor, serverId);
        return { kind: scope.kind, id: serverId };
      }
      case 'PLATFORM':
        if (scope.id !== undefined) {
          throw badRequest('A PLATFORM scope has no id', { fields: { 'scope.id': 'must be absent' } });
        }
        if (!admin) throw forbidden('PLATFORM webhooks need the ADMIN role or higher');
        return { kind: scope.kind, id: null };
    }
  }

  /** The webhooks `actor` manages, as a WHERE condition on `webhooks`; null when they manage all of them. */
  function managedBy(actor: Actor): WebhookFilter | null {
    if (managesEveryWebhook(actor)) return null;
    const userId = actor.userId;
    return (eb) =>
      eb.or([
        eb.and([eb('webhooks.scope_kind', '=', 'USER'), eb('webhooks.scope_id', '=', userId)]),
        eb.and([
          eb('webhooks.scope_kind', '=', 'TEAM'),
          eb.exists(
            eb
              .selectFrom('team_members')
              .select('team_members.user_id')
              .whereRef('team_members.team_id', '=', 'webhooks.scope_id')
              .where('team_members.user_id', '=', userId)
              .where('team_members.role', 'in', TEAM_MANAGER_ROLES),
          ),
        ]),
        eb.and([
          eb('webhooks.scope_kind', '=', 'RESOURCE'),
          eb.or([
            eb.exists(
              eb
                .selectFrom('resources')
                .select('resources.id')
                .whereRef('resources.id', '=', 'webhooks.scope_id')
                .where(ownerSideCondition('resources', userId)),
            ),
            eb.exists(
              eb
                .selectFrom('resource_contributors')
                .select('resource_contributors.user_id')
                .whereRef('resource_contributors.resource_id', '=', 'webhooks.scope_id')
                .where('resource_contributors.user_id', '=', userId)
                .where('resource_contributors.role', '=', 'MAINTAINER'),
            ),
          ]),
        ]),
        eb.and([
          eb('webhooks.scope_kind', '=', 'SERVER'),
          eb.exists(
            eb
              .selectFrom('servers')
              .select('servers.id')
              .whereRef('servers.id', '=', 'webhooks.scope_id')
              .where(ownerSideCondition('servers', userId)),
          ),
        ]),
      ]);
  }

  return { authorizeScope, managedBy };
}
