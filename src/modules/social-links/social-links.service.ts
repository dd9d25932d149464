// Social links of users, teams and servers: one set of rules (DESIGN §8 "Social"): at most 10 per owner,
// `order` gapless from 0, a reorder lists exactly the existing ids.
import { planReorder } from '../../core/http/reorder.js';
import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../../core/clock.js';
import type { DialectName } from '../../core/db/database.js';
import { lockForUpdate } from '../../core/db/dialect.js';
import type { DB } from '../../core/db/schema.js';
import { conflict, notFound } from '../../core/http/errors.js';
import { newId } from '../../core/ids.js';
import { toSocialLink } from './social-links.mapper.js';
import type { SocialLinkView } from './social-links.mapper.js';
import * as repo from './social-links.repo.js';
import type { SocialLinkOwnerType } from './social-links.repo.js';
import { MAX_SOCIAL_LINKS } from './social-links.schemas.js';

export interface SocialLinkInput {
  platform: string;
  url: string;
}

export type SocialLinksService = ReturnType<typeof createSocialLinksService>;

export function createSocialLinksService({
  db,
  dialect,
  clock,
}: {
  db: Kysely<DB>;
  dialect: DialectName;
  clock: Clock;
}) {
  /** Link writes of one owner run one at a time: the limit and the gapless order depend on it. */
  const lockOwner = (trx: Transaction<DB>, ownerType: SocialLinkOwnerType, ownerId: string) =>
    lockForUpdate(trx, dialect, `social-links:${ownerType}:${ownerId}`);

  async function list(ownerType: SocialLinkOwnerType, ownerId: string): Promise<SocialLinkView[]> {
    return (await repo.listLinks(db, ownerType, ownerId)).map(toSocialLink);
  }

  async function ownedLink(ownerType: SocialLinkOwnerType, ownerId: string, linkId: string) {
    const link = (await repo.listLinks(db, ownerType, ownerId)).find((row) => row.id === linkId);
    if (link === undefined) throw notFound('Social link');
    return link;
  }

  return {
    list,

    create(ownerType: SocialLinkOwnerType, ownerId: string, input: SocialLinkInput): Promise<SocialLinkView> {
      return db.transaction().execute(async (trx) => {
        await lockOwner(trx, ownerType, ownerId);
        const existing = await repo.listLinks(trx, ownerType, ownerId);
        if (existing.length >= MAX_SOCIAL_LINKS) {
          throw conflict(`At most ${MAX_SOCIAL_LINKS} social links are allowed`, 'LIMIT_REACHED', {
            limit: MAX_SOCIAL_LINKS,
          });
        }
        const row = {
          id: newId(),
          owner_type: ownerType,
          owner_id: ownerId,
          platform: input.platform,
          url: input.url,
          position: existing.length,
          created_at: clock.now().toISOString(),
        };
        await repo.insertLink(trx, row);
        return toSocialLink(row);
      });
    },

    async update(
      ownerType: SocialLinkOwnerType,
      ownerId: string,
      linkId: string,
      patch: Partial<SocialLinkInput>,
    ): Promise<SocialLinkView> {
      const link = await ownedLink(ownerType, ownerId, linkId);
      const changes = { platform: patch.platform ?? link.platform, url: patch.url ?? link.url };
      await repo.updateLink(db, linkId, changes);
      return toSocialLink({ ...link, ...changes });
    },

    async remove(ownerType: SocialLinkOwnerType, ownerId: string, linkId: string): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await lockOwner(trx, ownerType, ownerId);
        const links = await repo.listLinks(trx, ownerType, ownerId);
        if (!links.some((row) => row.id === linkId)) throw notFound('Social link');
        await repo.deleteLink(trx, linkId);
        // Keep `order` gapless from 0.
        const remaining = links.filter((row) => row.id !== linkId);
        for (const [index, row] of remaining.entries()) {
          if (row.position !== index) await repo.updateLink(trx, row.id, { position: index });
        }
      });
    },

    async reorder(
      ownerType: SocialLinkOwnerType,
      ownerId: string,
      linkIds: string[],
    ): Promise<SocialLinkView[]> {
      return db.transaction().execute(async (trx) => {
        await lockOwner(trx, ownerType, ownerId);
        const links = await repo.listLinks(trx, ownerType, ownerId);
        for (const { id, position } of planReorder(links, linkIds, 'linkIds', 'social link')) {
          await repo.updateLink(trx, id, { position });
        }
        const byId = new Map(links.map((row) => [row.id, row]));
        return linkIds.map((id, position) => toSocialLink({ ...byId.get(id)!, position }));
      });
    },
  };
}
