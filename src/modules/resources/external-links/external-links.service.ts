// External links of a resource (DESIGN §8 "Social"): at most 20, `order` gapless from 0, a reorder lists exactly
// the existing ids. Reading follows the resource's visibility; writing needs edit rights.
import { planReorder } from '../../../core/http/reorder.js';
import type { Kysely } from 'kysely';
import type { Actor } from '../../../core/auth/authenticate.js';
import type { ResourceAccess } from '../../../core/auth/resource-access.js';
import type { Clock } from '../../../core/clock.js';
import type { DialectName } from '../../../core/db/database.js';
import type { DB } from '../../../core/db/schema.js';
import { conflict, notFound } from '../../../core/http/errors.js';
import { newId } from '../../../core/ids.js';
import { lockResource } from '../resources.repo.js';
import type { ResourcesService } from '../resources.service.js';
import * as repo from './external-links.repo.js';
import type { ExternalLinkRow } from './external-links.repo.js';
import { toExternalLink } from './external-links.mapper.js';
import type { ExternalLinkView } from './external-links.mapper.js';
import { MAX_EXTERNAL_LINKS } from './external-links.schemas.js';
import type { ExternalLinkType } from './external-links.schemas.js';

export type ExternalLinksService = ReturnType<typeof createExternalLinksService>;

export function createExternalLinksService(deps: {
  db: Kysely<DB>;
  dialect: DialectName;
  clock: Clock;
  resourceAccess: ResourceAccess;
  resources: Pick<ResourcesService, 'requireHead'>;
}) {
  const { db, dialect, clock, resourceAccess, resources } = deps;

  async function requireEditable(actor: Actor, resourceId: string): Promise<void> {
    await resourceAccess.authorize(actor, await resources.requireHead(resourceId), 'resource.edit');
  }

  return {
    async list(actor: Actor | null, resourceId: string): Promise<ExternalLinkView[]> {
      await resourceAccess.authorizeView(actor, await resources.requireHead(resourceId));
      return (await repo.listLinks(db, resourceId)).map(toExternalLink);
    },

    async create(
      actor: Actor,
      resourceId: string,
      input: { title: string; url: string; type: ExternalLinkType },
    ): Promise<ExternalLinkView> {
      await requireEditable(actor, resourceId);
      return db.transaction().execute(async (trx) => {
        if (!(await lockResource(trx, dialect, resourceId))) throw notFound('Resource');
        const existing = await repo.listLinks(trx, resourceId);
        if (existing.length >= MAX_EXTERNAL_LINKS) {
          throw conflict(`At most ${MAX_EXTERNAL_LINKS} external links are allowed`, 'LIMIT_REACHED', {
            limit: MAX_EXTERNAL_LINKS,
          });
        }
        const now = clock.now().toISOString();
        const row: ExternalLinkRow = {
          id: newId(),
          resource_id: resourceId,
          title: input.title,
          url: input.url,
          type: input.type,
          position: existing.length,
          created_at: now,
          updated_at: now,
        };
        await repo.insertLink(trx, row);
        return toExternalLink(row);
      });
    },

    async update(
      actor: Actor,
      resourceId: string,
      linkId: string,
      patch: { title?: string; url?: string },
    ): Promise<ExternalLinkView> {
      await requireEditable(actor, resourceId);
      const link = (await repo.listLinks(db, resourceId)).find((row) => row.id === linkId);
      if (link === undefined) throw notFound('External link');
      const changes = {
        title: patch.title ?? link.title,
        url: patch.url ?? link.url,
        updated_at: clock.now().toISOString(),
      };
      await repo.updateLink(db, linkId, changes);
      return toExternalLink({ ...link, ...changes });
    },

    async remove(actor: Actor, resourceId: string, linkId: string): Promise<void> {
      await requireEditable(actor, resourceId);
      await db.transaction().execute(async (trx) => {
        if (!(await lockResource(trx, dialect, resourceId))) throw notFound('Resource');
        const links = await repo.listLinks(trx, resourceId);
        if (!links.some((row) => row.id === linkId)) throw notFound('External link');
        await repo.deleteLink(trx, linkId);
        const remaining = links.filter((row) => row.id !== linkId);
        for (const [index, row] of remaining.entries()) {
          if (row.position !== index) await repo.updateLink(trx, row.id, { position: index });
        }
      });
    },

    async reorder(actor: Actor, resourceId: string, linkIds: string[]): Promise<ExternalLinkView[]> {
      await requireEditable(actor, resourceId);
      return db.transaction().execute(async (trx) => {
        if (!(await lockResource(trx, dialect, resourceId))) throw notFound('Resource');
        const links = await repo.listLinks(trx, resourceId);
        for (const { id, position } of planReorder(links, linkIds, 'linkIds', 'external link')) {
          await repo.updateLink(trx, id, { position });
        }
        const byId = new Map(links.map((row) => [row.id, row]));
        return linkIds.map((id, position) => toExternalLink({ ...byId.get(id)!, position }));
      });
    },
  };
}
