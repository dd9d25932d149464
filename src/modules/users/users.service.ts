import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.js';
import type { DialectName } from '../../core/db/database.js';
import type { DB } from '../../core/db/schema.js';
import { parseJsonArray } from '../../core/db/dialect.js';
import { notFound } from '../../core/http/errors.js';
import { replaceStoredImage } from '../../core/images-store.js';
import type { MediaUrls } from '../../core/media-urls.js';
import type { Storage } from '../../core/storage/storage.js';
import { refreshDocumentsOfOwner } from '../search/owner-documents.js';
import { refreshUserSearch } from '../search/user-documents.js';
import { toSocialLink } from '../social-links/social-links.mapper.js';
import type { BadgeReader } from './badge-reader.js';
import { toPrivateProfile, toPublicProfile, toUserSummary } from './users.mapper.js';
import { searchUsers } from './user-search.repo.js';
import * as repo from './users.repo.js';
import type { ProfileLinkJson, ProfileRow, UserRow } from './users.repo.js';

export interface ProfilePatch {
  displayName?: string | null;
  bio?: string | null;
  location?: string | null;
  website?: string | null;
}

const AVATAR_BOX = 512;
const BANNER_BOX = { maxWidth: 1920, maxHeight: 1080 };

export type UsersService = ReturnType<typeof createUsersService>;

export function createUsersService(deps: {
  db: Kysely<DB>;
  dialect: DialectName;
  storage: Storage;
  urls: MediaUrls;
  clock: Clock;
  badges: BadgeReader;
}) {
  const { db, dialect, storage, urls, clock, badges } = deps;

  async function requireUser(userId: string): Promise<UserRow> {
    const row = await repo.findUserById(db, userId);
    if (row === undefined) throw notFound('User');
    return row;
  }

  async function privateProfile(row: UserRow) {
    const badgeMap = await badges.forUsers([row.id]);
    return toPrivateProfile(row, urls, badgeMap.get(row.id) ?? []);
  }

  function publicProfile(row: ProfileRow | undefined) {
    // Banned accounts have no public profile.
    if (row === undefined || row.status === 'BANNED') throw notFound('User');
    const links = parseJsonArray<ProfileLinkJson>(row.social_links).map(toSocialLink);
    return toPublicProfile(row, urls, badges.parse(row.badges), links, Boolean(row.is_following));
  }

  async function replaceImage(userId: string, column: 'image_key' | 'banner_key', upload: Buffer | null) {
    const user = await requireUser(userId);
    const at = clock.now().toISOString();
    const avatar = column === 'image_key';
    const key = await replaceStoredImage(
      storage,
      {
        previous: user[column],
        swap: (next) => repo.swapUserImage(db, userId, column, user[column], next, at),
        current: async () => (await repo.findUserById(db, userId))?.[column],
        what: avatar ? 'avatar' : 'banner',
        owner: 'User',
      },
      upload === null
        ? null
        : {
            upload,
            scope: avatar ? 'avatars' : 'banners',
            ownerId: userId,
            options: avatar ? { maxWidth: AVATAR_BOX, maxHeight: AVATAR_BOX } : BANNER_BOX,
          },
    );
    return privateProfile({ ...user, [column]: key, updated_at: at });
  }

  return {
    requireUser,

    /** GET /users/me: one round trip (the user with their badges column). */
    async getPrivateProfile(userId: string) {
      const row = await repo.findPrivateProfileRow(db, dialect, userId, badges.column);
      if (row === undefined) throw notFound('User');
      return toPrivateProfile(row, urls, badges.parse(row.badges));
    },

    async getPublicProfileById(userId: string, viewerId: string | undefined) {
      return publicProfile(await repo.findProfileRow(db, dialect, { id: userId }, viewerId, badges.column));
    },

    async getPublicProfileByUsername(username: string, viewerId: string | undefined) {
      return publicProfile(await repo.findProfileRow(db, dialect, { username }, viewerId, badges.column));
    },

    async updateProfile(userId: string, patch: ProfilePatch) {
      const user = await requireUser(userId);
      const changes = {
        ...(patch.displayName !== undefined ? { display_name: patch.displayName } : {}),
        ...(patch.bio !== undefined ? { bio: patch.bio === '' ? null : patch.bio } : {}),
        ...(patch.location !== undefined ? { location: patch.location === '' ? null : patch.location } : {}),
        ...(patch.website !== undefined ? { website: patch.website } : {}),
        updated_at: clock.now().toISOString(),
      };
      await db.transaction().execute(async (trx) => {
        await repo.updateUser(trx, userId, changes);
        // The display name is searched (user_search) and is part of the owner's resources' and servers' documents.
        if (changes.display_name !== undefined && changes.display_name !== user.display_name) {
          await refreshUserSearch(trx, [userId]);
          await refreshDocumentsOfOwner(trx, dialect, 'USER', userId);
        }
      });
      return privateProfile({ ...user, ...changes });
    },

    async search(q: string, limit: number) {
      const rows = await searchUsers(db, dialect, q, limit);
      const badgeMap = await badges.forUsers(rows.map((row) => row.id));
      return rows.map((row) => ({ ...toUserSummary(row, urls), badges: badgeMap.get(row.id) ?? [] }));
    },

    setAvatar: (userId: string, upload: Buffer) => replaceImage(userId, 'image_key', upload),
    removeAvatar: (userId: string) => replaceImage(userId, 'image_key', null),
    setBanner: (userId: string, upload: Buffer) => replaceImage(userId, 'banner_key', upload),
    removeBanner: (userId: string) => replaceImage(userId, 'banner_key', null),
  };
}
