// Servers: create, read, edit, delete and the two images (DESIGN §8 "Servers"). Permissions come from
// core/auth/server-access.ts. Every write that depends on the server's current state runs in a transaction that
// first takes the server's lock, so moderation, edits, transfers and deletes of one server never interleave.
import type { Insertable, Kysely, Transaction } from 'kysely';
import type { Access } from '../../core/auth/access.js';
import type { Actor } from '../../core/auth/authenticate.js';
import type { ServerAccess, ServerFacts } from '../../core/auth/server-access.js';
import { assertTeamObject } from '../../core/auth/scopes.js';
import type { Clock } from '../../core/clock.js';
import type { DialectName } from '../../core/db/database.js';
import { isUniqueViolation, lockForUpdate } from '../../core/db/dialect.js';
import type { DB, ServersTable } from '../../core/db/schema.js';
import { badRequest, conflict, forbidden, notFound, slugTaken } from '../../core/http/errors.js';
import { newId } from '../../core/ids.js';
import { replaceStoredImage } from '../../core/images-store.js';
import type { MediaUrls } from '../../core/media-urls.js';
import type { Storage } from '../../core/storage/storage.js';
import type { DescriptionImagesService } from '../description-images/description-images.service.js';
import { refreshServerSearch } from '../search/server-documents.js';
import { deleteLinksOfOwner } from '../social-links/social-links.repo.js';
import * as links from './catalogs/catalog-links.repo.js';
import type { CatalogKind } from './catalogs/catalog-links.repo.js';
import { insertModerationEvent } from './moderation/moderation.repo.js';
import { statusAfterOwnerEdit } from './moderation/server-states.js';
import { isServerAddress } from './server-address.js';
import { changedServerFields, recordServerEvent, serverSummary } from './server-events.js';
import { findServerDetail } from './server-reads.repo.js';
import { toServer } from './servers.mapper.js';
import type { ServerView } from './servers.mapper.js';
import * as repo from './servers.repo.js';
import type { ServerRow } from './servers.repo.js';
import { queuePosition } from '../moderation/queue/queue.service.js';
import type { QueuePosition } from '../moderation/queue/queue.service.js';
import { DEFAULT_SERVER_PORT } from './servers.schemas.js';

export interface NewServer {
  name: string;
  slug: string;
  shortDescription?: string | null;
  description?: string | null;
  ip: string;
  port?: number;
  categoryIds?: string[];
  tagIds?: string[];
  ownerId?: string;
  ownerType?: 'USER' | 'TEAM';
}

export interface ServerPatch {
  name?: string;
  shortDescription?: string | null;
  description?: string | null;
  ip?: string;
  port?: number;
  categoryIds?: string[];
  tagIds?: string[];
}

export type ServerImageKind = 'logo' | 'banner';

const IMAGES = {
  logo: { column: 'logo_key', scope: 'server-logos', box: { maxWidth: 512, maxHeight: 512 } },
  banner: { column: 'banner_key', scope: 'server-banners', box: { maxWidth: 1920, maxHeight: 1080 } },
} as const;

/** The per-server lock every state-dependent write takes first (a no-op on SQLite, where writes are serial). */
export const serverLockKey = (serverId: string) => `server:${serverId}`;

/** An empty text means "none", like null. */
export const optionalText = (text: string | null | undefined) =>
  text === undefined || text === null || text === '' ? null : text;

export const changedMeanwhile = () =>
  conflict('The server was changed by another request at the same time; try again');

export const factsOf = (row: Pick<ServerRow, 'id' | 'status' | 'owner_type' | 'owner_id'>): ServerFacts => ({
  id: row.id,
  status: row.status,
  ownerType: row.owner_type,
  ownerId: row.owner_id,
});

function checkAddress(ip: string): void {
  if (!isServerAddress(ip)) {
    throw badRequest('ip must be an IPv4 or IPv6 address or a hostname', {
      fields: { 'body.ip': 'must be an IPv4 or IPv6 address or a hostname' },
    });
  }
}

export type ServersService = ReturnType<typeof createServersService>;

export function createServersService(deps: {
  db: Kysely<DB>;
  dialect: DialectName;
  storage: Storage;
  urls: MediaUrls;
  clock: Clock;
  access: Access;
  serverAccess: ServerAccess;
  descriptionImages: Pick<DescriptionImagesService, 'markUsed' | 'deleteRowsOf' | 'deleteObjects'>;
}) {
  const { db, dialect, storage, urls, clock, access, serverAccess, descriptionImages } = deps;

  async function view(id: string): Promise<ServerView> {
    const row = await findServerDetail(db, dialect, { id });
    if (row === undefined) throw notFound('Server');
    return toServer(row, urls);
  }

  /** 400 listing the ids that are not in the catalog. */
  async function requireCatalogIds(kind: CatalogKind, ids: readonly string[]): Promise<void> {
    const found = new Set(await links.existingIds(db, kind, ids));
    const unknown = ids.filter((id) => !found.has(id));
    if (unknown.length > 0) {
      const field = kind === 'tag' ? 'body.tagIds' : 'body.categoryIds';
      throw badRequest(`Unknown server ${kind === 'tag' ? 'tag' : 'category'} ids: ${unknown.join(', ')}`, {
        fields: { [field]: 'contains unknown ids' },
        unknownIds: unknown,
      });
    }
  }

  /** ownerId/ownerType default to the caller; a team owner needs team role ADMIN or OWNER (DESIGN §8). */
  async function resolveNewOwner(actor: Actor, input: NewServer) {
    const ownerType = input.ownerType ?? 'USER';
    if (ownerType === 'USER') {
      if (input.ownerId !== undefined && input.ownerId !== actor.userId) {
        throw forbidden('A server can be created for yourself or for a team in which you are OWNER or ADMIN');
      }
      // A team-bound API key creates servers for its team only (spec/extensions.md §5).
      assertTeamObject(actor, { ownerType, ownerId: actor.userId });
      return { ownerType, ownerId: actor.userId } as const;
    }
    if (input.ownerId === undefined) {
      throw badRequest('ownerId is required when ownerType is TEAM', {
        fields: { 'body.ownerId': 'is required when ownerType is TEAM' },
      });
    }
    if (!(await repo.teamExists(db, input.ownerId))) throw notFound('Team');
    assertTeamObject(actor, { ownerType, ownerId: input.ownerId });
    if (!(await access.canCreateForTeam(actor.userId, input.ownerId))) {
      throw forbidden('Creating a server for a team needs the team role OWNER or ADMIN');
    }
    return { ownerType, ownerId: input.ownerId } as const;
  }

  /** Replaces the links of one kind; on an APPROVED server the usage counters follow. True if any moved. */
  async function replaceLinks(
    trx: Transaction<DB>,
    server: ServerRow,
    kind: CatalogKind,
    wanted: readonly string[],
  ): Promise<boolean> {
    const current = await links.linkedIds(trx, kind, server.id);
    const added = wanted.filter((id) => !current.includes(id));
    const removed = current.filter((id) => !wanted.includes(id));
    if (added.length + removed.length === 0) return false;
    await links.removeLinks(trx, kind, server.id, removed);
    await links.addLinks(trx, kind, server.id, added);
    if (server.status === 'APPROVED') {
      await links.moveUsage(trx, kind, added, 1);
      await links.moveUsage(trx, kind, removed, -1);
    }
    return true;
  }

  /** Reads the server under its lock and checks that its owner is still the one permissions were checked on. */
  async function lockServer(trx: Transaction<DB>, facts: ServerFacts): Promise<ServerRow> {
    await lockForUpdate(trx, dialect, serverLockKey(facts.id));
    const row = await repo.findServerRow(trx, facts.id);
    if (row === undefined) throw notFound('Server');
    if (row.owner_type !== facts.ownerType || row.owner_id !== facts.ownerId) throw changedMeanwhile();
    return row;
  }

  /** Stores the new image first, then swaps the key in the row, then removes the old object (DESIGN §4.6). */
  async function replaceImage(
    actor: Actor,
    serverId: string,
    kind: ServerImageKind,
    read: (() => Promise<Buffer>) | null,
  ): Promise<ServerView> {
    await serverAccess.authorizeById(actor, 'server.manage', serverId);
    const server = await repo.findServerRow(db, serverId);
    if (server === undefined) throw notFound('Server');
    const { column, scope, box } = IMAGES[kind];
    const at = clock.now().toISOString();
    await replaceStoredImage(
      storage,
      {
        previous: server[column],
        swap: (next) => repo.swapServerImage(db, serverId, column, server[column], next, at),
        current: async () => (await repo.findServerRow(db, serverId))?.[column],
        what: `server ${kind}`,
        owner: 'Server',
      },
      read === null ? null : { upload: await read(), scope, ownerId: serverId, options: box },
    );
    await repo.bumpDirectoryVersion(db);
    return view(serverId);
  }

  return {
    view,

    /** A server by id or slug, if the caller may see it (404 otherwise, as if it did not exist). */
    async getVisible(
      actor: Actor | null,
      by: { id: string } | { slug: string },
    ): Promise<ServerView & { moderation?: QueuePosition }> {
      const row = await findServerDetail(db, dialect, by);
      if (row === undefined) throw notFound('Server');
      // APPROVED servers are public: no permission lookup on the hot path.
      if (row.status !== 'APPROVED') await serverAccess.authorize(actor, 'server.view', factsOf(row));
      const server = toServer(row, urls);
      // A caller who may see a PENDING server is its owner side or a moderator (§4 queue position).
      if (actor === null || row.status !== 'PENDING') return server;
      const moderation = await queuePosition(db, clock, 'servers', row.id);
      return moderation === undefined ? server : { ...server, moderation };
    },

    /** New servers are PENDING; a team-owned one moves the team's server_count in the same transaction. */
    async create(actor: Actor, input: NewServer): Promise<ServerView> {
      const owner = await resolveNewOwner(actor, input);
      checkAddress(input.ip);
      const tagIds = input.tagIds ?? [];
      const categoryIds = input.categoryIds ?? [];
      await requireCatalogIds('tag', tagIds);
      await requireCatalogIds('category', categoryIds);
      if (await repo.slugExists(db, input.slug)) throw slugTaken(input.slug);
      const now = clock.now().toISOString();
      const row: Insertable<ServersTable> & Pick<ServersTable, 'id' | 'description'> = {
        id: newId(),
        name: input.name,
        slug: input.slug,
        short_description: optionalText(input.shortDescription),
        description: optionalText(input.description),
        ip: input.ip,
        port: input.port ?? DEFAULT_SERVER_PORT,
        online: false,
        online_players: 0,
        max_players: 0,
        rank: null,
        status: 'PENDING',
        status_reason: null,
        status_updated_at: now,
        owner_type: owner.ownerType,
        owner_id: owner.ownerId,
        logo_key: null,
        banner_key: null,
        last_reported_at: null,
        created_at: now,
        updated_at: now,
      };
      try {
        await db.transaction().execute(async (trx) => {
          await repo.insertServer(trx, row);
          await links.addLinks(trx, 'tag', row.id, tagIds);
          await links.addLinks(trx, 'category', row.id, categoryIds);
          // The team may have been deleted since the check; its counter update is the final word.
          if (owner.ownerType === 'TEAM' && !(await repo.moveTeamServerCount(trx, owner.ownerId, 1))) {
            throw notFound('Team');
          }
          await descriptionImages.markUsed('SERVER', row.id, row.description ?? '', trx);
          await refreshServerSearch(trx, [row.id]);
          await recordServerEvent(trx, 'server.created', {
            at: now,
            actorId: actor.userId,
            server: row,
            data: serverSummary(row),
          });
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw slugTaken(input.slug);
        throw error;
      }
      return view(row.id);
    },

    /**
     * Owner side or team member. Editing a REJECTED server puts it back to PENDING for another review (like
     * resources, DESIGN §8), recorded in the history as RESUBMIT. A PATCH whose values all equal the stored
     * ones writes nothing: no updated_at, no resubmission, no server.updated event.
     */
    async update(actor: Actor, serverId: string, patch: ServerPatch): Promise<ServerView> {
      const facts = await serverAccess.authorizeById(actor, 'server.manage', serverId);
      if (patch.ip !== undefined) checkAddress(patch.ip);
      if (patch.tagIds !== undefined) await requireCatalogIds('tag', patch.tagIds);
      if (patch.categoryIds !== undefined) await requireCatalogIds('category', patch.categoryIds);
      const changes = {
        ...(patch.name !== undefined ? { name: patch.name } : {}),
        ...(patch.shortDescription !== undefined
          ? { short_description: optionalText(patch.shortDescription) }
          : {}),
        ...(patch.description !== undefined ? { description: optionalText(patch.description) } : {}),
        ...(patch.ip !== undefined ? { ip: patch.ip } : {}),
        ...(patch.port !== undefined ? { port: patch.port } : {}),
      };
      const touched =
        Object.keys(changes).length > 0 || patch.tagIds !== undefined || patch.categoryIds !== undefined;
      if (!touched) return view(serverId);
      await db.transaction().execute(async (trx) => {
        const server = await lockServer(trx, facts);
        const changed = changedServerFields(server, changes);
        if (patch.tagIds !== undefined && (await replaceLinks(trx, server, 'tag', patch.tagIds))) {
          changed.push('tagIds');
        }
        if (
          patch.categoryIds !== undefined &&
          (await replaceLinks(trx, server, 'category', patch.categoryIds))
        ) {
          changed.push('categoryIds');
        }
        if (changed.length === 0) return;
        const now = clock.now().toISOString();
        const status = statusAfterOwnerEdit(server.status);
        const resubmit = status !== server.status;
        await repo.updateServer(trx, serverId, {
          ...changes,
          updated_at: now,
          ...(resubmit ? { status, status_updated_at: now } : {}),
        });
        if (resubmit) {
          await insertModerationEvent(trx, {
            id: newId(),
            server_id: serverId,
            action: 'RESUBMIT',
            from_status: server.status,
            to_status: status,
            reason: null,
            notes: null,
            moderator_id: null,
            created_at: now,
          });
        }
        if (changes.description !== undefined) {
          await descriptionImages.markUsed('SERVER', serverId, changes.description ?? '', trx);
        }
        await refreshServerSearch(trx, [serverId]);
        await repo.bumpDirectoryVersion(trx);
        const after = { ...server, ...changes, status };
        await recordServerEvent(trx, 'server.updated', {
          at: now,
          actorId: actor.userId,
          server: after,
          data: { ...serverSummary(after), changed },
        });
      });
      return view(serverId);
    },

    /**
     * User owner, or the owning team's OWNER or ADMIN. Rows go in one transaction (the server, its links,
     * history, social links and description images; counters move with them); stored objects after the commit.
     */
    async remove(actor: Actor, serverId: string): Promise<void> {
      const facts = await serverAccess.authorizeById(actor, 'server.delete', serverId);
      const { server, imageKeys } = await db.transaction().execute(async (trx) => {
        const row = await lockServer(trx, facts);
        if (row.status === 'APPROVED') {
          await links.moveUsageOfServer(trx, serverId, -1);
          await repo.moveApprovedTotal(trx, -1);
        }
        const keys = await descriptionImages.deleteRowsOf(trx, 'SERVER', serverId);
        // Social links serve several owner kinds, so they have no foreign key to cascade from.
        await deleteLinksOfOwner(trx, 'SERVER', serverId);
        await repo.deleteServerRow(trx, serverId);
        await refreshServerSearch(trx, [serverId]);
        if (row.owner_type === 'TEAM') await repo.moveTeamServerCount(trx, row.owner_id, -1);
        await repo.bumpDirectoryVersion(trx);
        // One event for the server; its links, history and images go with it and record none of their own.
        await recordServerEvent(trx, 'server.deleted', {
          at: clock.now().toISOString(),
          actorId: actor.userId,
          server: row,
          data: serverSummary(row),
        });
        return { server: row, imageKeys: keys };
      });
      // The server is gone whatever happens next: an object that fails to delete is an orphan, not an error.
      await Promise.allSettled([
        descriptionImages.deleteObjects(imageKeys),
        ...[server.logo_key, server.banner_key].flatMap((key) => (key === null ? [] : [storage.delete(key)])),
      ]);
    },

    setImage: (actor: Actor, serverId: string, kind: ServerImageKind, read: () => Promise<Buffer>) =>
      replaceImage(actor, serverId, kind, read),
    removeImage: (actor: Actor, serverId: string, kind: ServerImageKind) =>
      replaceImage(actor, serverId, kind, null),
  };
}
