// Resources: read one, create, edit, icon and banner (DESIGN §8 "Resource moderation", "Ownership"). Deletion is
// in delete-resource.ts, lists in resource-lists.service.ts; every permission comes from
// core/auth/resource-access.ts.
import type { Kysely } from 'kysely';
import type { Actor } from '../../core/auth/authenticate.js';
import type { ResourceAccess } from '../../core/auth/resource-access.js';
import type { Clock } from '../../core/clock.js';
import type { DialectName } from '../../core/db/database.js';
import { isUniqueViolation } from '../../core/db/dialect.js';
import type { DB, ResourceType } from '../../core/db/schema.js';
import { badRequest, notFound, slugTaken } from '../../core/http/errors.js';
import { newId } from '../../core/ids.js';
import { replaceStoredImage } from '../../core/images-store.js';
import type { MediaUrls } from '../../core/media-urls.js';
import type { Storage } from '../../core/storage/storage.js';
import type { DescriptionImagesService } from '../description-images/description-images.service.js';
import { findTeamById } from '../teams/teams.repo.js';
import * as links from './resource-links.repo.js';
import type { CatalogSelection } from './resource-links.repo.js';
import { insertEvent } from './moderation/moderation.repo.js';
import { refreshDerived } from './refresh-derived.js';
import { refreshResourceSearch } from '../search/resource-documents.js';
import { recordResourceCreated, recordResourceUpdated, sameIds } from './resource-events.js';
import type { ResourceField } from './resource-events.js';
import { findResourceView } from './resource-views.repo.js';
import { toResource } from './resources.mapper.js';
import type { ResourceView } from './resources.mapper.js';
import { queuePosition } from '../moderation/queue/queue.service.js';
import * as repo from './resources.repo.js';
import type { ResourceHead } from './resources.repo.js';

export interface NewResource extends Partial<CatalogSelection> {
  name: string;
  slug: string;
  shortDescription: string;
  description?: string;
  type: ResourceType;
  ownerType?: 'USER' | 'TEAM';
  ownerId?: string;
}

export interface ResourcePatch extends Partial<CatalogSelection> {
  name?: string;
  shortDescription?: string;
  description?: string;
}

export type ResourceImageKind = 'icon' | 'banner';

const IMAGES = {
  icon: { column: 'icon_key', scope: 'resource-icons', box: { maxWidth: 512, maxHeight: 512 } },
  banner: { column: 'banner_key', scope: 'resource-banners', box: { maxWidth: 1920, maxHeight: 1080 } },
} as const;

const NO_LINKS: CatalogSelection = { categoryIds: [], tagIds: [], gameVersionIds: [] };

/** The API field each catalog selection shows up as (resource.updated lists those in `changed`). */
const LINK_FIELDS = [
  ['categoryIds', 'categories'],
  ['tagIds', 'tags'],
  ['gameVersionIds', 'gameVersions'],
] as const satisfies ReadonlyArray<readonly [keyof CatalogSelection, ResourceField]>;

const IMAGE_FIELDS = { icon: 'iconUrl', banner: 'bannerUrl' } as const satisfies Record<
  string,
  ResourceField
>;

const unknownIds = (field: string, ids: string[]) =>
  badRequest(`${field} contains unknown IDs: ${ids.join(', ')}`, {
    fields: { [`body.${field}`]: `unknown: ${ids.join(', ')}` },
  });

export type ResourcesService = ReturnType<typeof createResourcesService>;

export function createResourcesService(deps: {
  db: Kysely<DB>;
  dialect: DialectName;
  storage: Storage;
  urls: MediaUrls;
  clock: Clock;
  resourceAccess: ResourceAccess;
  descriptionImages: Pick<DescriptionImagesService, 'markUsed'>;
}) {
  const { db, dialect, storage, urls, clock, resourceAccess, descriptionImages } = deps;

  async function requireHead(id: string): Promise<ResourceHead> {
    const head = await repo.findResourceHead(db, dialect, id);
    if (head === undefined) throw notFound('Resource');
    return head;
  }

  /** The resource as the API shows it, read after a change. */
  async function view(id: string): Promise<ResourceView> {
    const row = await findResourceView(db, dialect, { id });
    if (row === undefined) throw notFound('Resource');
    return toResource(row, urls);
  }

  async function readVisible(actor: Actor | null, by: { id: string } | { slug: string }) {
    const row = await findResourceView(db, dialect, by);
    if (row === undefined) throw notFound('Resource');
    // A caller who may see a PENDING resource is its owner side, a contributor or a moderator (§4 queue position).
    // The position is read while access is checked (one round trip fewer on PostgreSQL) and shown only after.
    const position =
      actor !== null && row.status === 'PENDING' ? queuePosition(db, clock, 'resources', row.id) : undefined;
    position?.catch(() => undefined);
    await resourceAccess.authorizeView(actor, row);
    const resource = toResource(row, urls);
    const moderation = await position;
    return moderation === undefined ? resource : { ...resource, moderation };
  }

  /**
   * Deduplicates the selected IDs and checks they exist; categories must belong to the resource's type. Only the
   * selections present in the input are returned (an absent one is left unchanged on update).
   */
  async function validateSelection(
    type: ResourceType,
    input: Partial<CatalogSelection>,
  ): Promise<Partial<CatalogSelection>> {
    const selection: Partial<CatalogSelection> = {};
    if (input.categoryIds !== undefined) {
      const ids = [...new Set(input.categoryIds)];
      const found = await links.findCategories(db, ids);
      const missing = ids.filter((id) => !found.some((row) => row.id === id));
      if (missing.length > 0) throw unknownIds('categoryIds', missing);
      const foreign = found.filter((row) => row.resource_type !== type).map((row) => row.id);
      if (foreign.length > 0) {
        throw badRequest(`categoryIds names categories of another resource type: ${foreign.join(', ')}`, {
          fields: { 'body.categoryIds': `not categories of ${type}: ${foreign.join(', ')}` },
        });
      }
      selection.categoryIds = ids;
    }
    const checks = [
      ['tagIds', input.tagIds, links.findTagIds],
      ['gameVersionIds', input.gameVersionIds, links.findGameVersionIds],
    ] as const;
    for (const [field, given, find] of checks) {
      if (given === undefined) continue;
      const ids = [...new Set(given)];
      const found = new Set(await find(db, ids));
      const missing = ids.filter((id) => !found.has(id));
      if (missing.length > 0) throw unknownIds(field, missing);
      selection[field] = ids;
    }
    return selection;
  }

  /** The stored-image routine of core/images-store.ts: object first, conditional swap, old object last. */
  async function replaceImage(
    actor: Actor,
    id: string,
    kind: ResourceImageKind,
    read: (() => Promise<Buffer>) | null,
  ): Promise<ResourceView> {
    const head = await requireHead(id);
    await resourceAccess.authorize(actor, head, 'resource.edit');
    const { column, scope, box } = IMAGES[kind];
    const at = clock.now().toISOString();
    // The swap and its resource.updated commit together; the same image again (or no image removed) is no change.
    const swap = (next: string | null) =>
      db.transaction().execute(async (trx) => {
        if (!(await repo.swapResourceImage(trx, id, column, head[column], next, at))) return false;
        const current = next === head[column] ? undefined : await repo.findResourceHead(trx, dialect, id);
        if (current !== undefined) {
          await recordResourceUpdated(trx, { at, actorId: actor.userId }, current, [IMAGE_FIELDS[kind]]);
        }
        return true;
      });
    await replaceStoredImage(
      storage,
      {
        previous: head[column],
        swap,
        current: async () => (await repo.findResourceHead(db, dialect, id))?.[column],
        what: `resource ${kind}`,
        owner: 'Resource',
      },
      read === null ? null : { upload: await read(), scope, ownerId: id, options: box },
    );
    await repo.bumpCatalogueVersion(db);
    return view(id);
  }

  return {
    requireHead,
    view,

    getById: (actor: Actor | null, id: string) => readVisible(actor, { id }),
    getBySlug: (actor: Actor | null, slug: string) => readVisible(actor, { slug }),

    /** New resources are PENDING. The row, its links, the counters and the team's resource count move together. */
    async create(actor: Actor, input: NewResource): Promise<ResourceView> {
      const ownerType = input.ownerType ?? 'USER';
      if (ownerType === 'TEAM' && input.ownerId === undefined) {
        throw badRequest('ownerId is required when ownerType is TEAM', {
          fields: { 'body.ownerId': 'is required when ownerType is TEAM' },
        });
      }
      const ownerId = input.ownerId ?? actor.userId;
      if (ownerType === 'TEAM' && (await findTeamById(db, ownerId)) === undefined) throw notFound('Team');
      await resourceAccess.authorizeCreate(actor, { ownerType, ownerId });
      const selection = await validateSelection(input.type, input);
      if (await repo.slugExists(db, input.slug)) throw slugTaken(input.slug);

      const now = clock.now().toISOString();
      const row = {
        id: newId(),
        name: input.name,
        name_key: input.name.toLowerCase(),
        slug: input.slug,
        short_description: input.shortDescription,
        description: input.description ?? '',
        type: input.type,
        status: 'PENDING' as const,
        owner_type: ownerType,
        owner_id: ownerId,
        icon_key: null,
        banner_key: null,
        latest_version_id: null,
        created_at: now,
        updated_at: now,
      };
      try {
        await db.transaction().execute(async (trx) => {
          await repo.insertResource(trx, row);
          await links.replaceLinks(trx, row, NO_LINKS, selection);
          // A PENDING resource has no search document; the call keeps that true whatever status creation sets.
          await refreshDerived(trx, dialect, [row.id]);
          await repo.moveStatusCounters(trx, row.type, null, row.status);
          // The team may have been deleted since the check above; its counter decides.
          if (ownerType === 'TEAM' && !(await repo.moveTeamResourceCount(trx, ownerId, 1))) {
            throw notFound('Team');
          }
          await descriptionImages.markUsed('RESOURCE', row.id, row.description, trx);
          await recordResourceCreated(trx, { at: now, actorId: actor.userId }, row);
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw slugTaken(input.slug);
        throw error;
      }
      return view(row.id);
    },

    /** Owner side or contributors. Any update of a REJECTED resource puts it back to PENDING for review. */
    async update(actor: Actor, id: string, patch: ResourcePatch): Promise<ResourceView> {
      const head = await requireHead(id);
      await resourceAccess.authorize(actor, head, 'resource.edit');
      const selection = await validateSelection(head.type, patch);
      const changes = {
        ...(patch.name !== undefined ? { name: patch.name, name_key: patch.name.toLowerCase() } : {}),
        ...(patch.shortDescription !== undefined ? { short_description: patch.shortDescription } : {}),
        ...(patch.description !== undefined ? { description: patch.description } : {}),
        updated_at: clock.now().toISOString(),
      };
      await db.transaction().execute(async (trx) => {
        // Serializes edits of one resource, so the link difference below is computed on what is stored.
        const current = await repo.lockResourceForEdit(trx, dialect, id);
        if (current === undefined) throw notFound('Resource');
        const changed: ResourceField[] = [];
        if (patch.name !== undefined && patch.name !== current.name) changed.push('name');
        if (patch.shortDescription !== undefined && patch.shortDescription !== current.short_description) {
          changed.push('shortDescription');
        }
        if (patch.description !== undefined && patch.description !== current.description) {
          changed.push('description');
        }
        await repo.updateResource(trx, id, changes);
        if (Object.keys(selection).length > 0) {
          const stored = await links.readLinkIds(trx, id);
          for (const [input, field] of LINK_FIELDS) {
            const next = selection[input];
            if (next !== undefined && !sameIds(stored[input], next)) changed.push(field);
          }
          await links.replaceLinks(trx, head, stored, selection);
        }
        const resubmitted = await repo.moveStatus(trx, id, 'REJECTED', 'PENDING');
        if (resubmitted) {
          changed.push('status');
          await repo.moveStatusCounters(trx, head.type, 'REJECTED', 'PENDING');
          await insertEvent(trx, {
            id: newId(),
            resource_id: id,
            action: 'RESUBMIT',
            from_status: 'REJECTED',
            to_status: 'PENDING',
            reason: null,
            moderator_id: null,
            created_at: changes.updated_at,
          });
        }
        // Catalog names and the search document follow what changed (a resubmission leaves no document: PENDING).
        if (Object.keys(selection).length > 0) {
          await refreshDerived(trx, dialect, [id]);
        } else if (changed.length > 0) {
          await refreshResourceSearch(trx, dialect, [id]);
        }
        await repo.bumpCatalogueVersion(trx);
        if (patch.description !== undefined) {
          await descriptionImages.markUsed('RESOURCE', id, patch.description, trx);
        }
        const { description: _stored, ...currentHead } = current;
        const after = {
          ...currentHead,
          name: patch.name ?? current.name,
          status: resubmitted ? ('PENDING' as const) : current.status,
        };
        await recordResourceUpdated(trx, { at: changes.updated_at, actorId: actor.userId }, after, changed);
      });
      return view(id);
    },

    setImage: (actor: Actor, id: string, kind: ResourceImageKind, read: () => Promise<Buffer>) =>
      replaceImage(actor, id, kind, read),
    removeImage: (actor: Actor, id: string, kind: ResourceImageKind) => replaceImage(actor, id, kind, null),
  };
}
