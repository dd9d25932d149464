import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.js';
import type { DialectName } from '../../core/db/database.js';
import type { DB } from '../../core/db/schema.js';
import { parseJsonArray } from '../../core/db/dialect.js';
import { notFound } from '../../core/http/errors.js';
import { replaceStoredImage } from '../../core/images-store.js';
import type { MediaUrls } from '../../core/media-urls.js';
import type { Storage } from '../../core/storage/storage.js';
import { toSocialLink } from '../social-links/social-links.mapper.js';
import type { BadgeReader } from './badge-reader.js';
import { toPrivateProfile, toPublicProfile, toUserSummary } from './users.mapper.js';
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

  async function publicProfile(row: ProfileRow | undefined) {
    // Banned accounts have no public profile.
    if (row === undefined || row.status === 'BANNED') throw notFound('User');
    const badgeMap = await badges.forUsers([row.id]);
    const links = parseJsonArray<ProfileLinkJson>(row.social_links).map(toSocialLink);
    return toPublicProfile(row, urls, badgeMap.get(row.id) ?? [], links, Boolean(row.is_following));
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

    async getPrivateProfile(userId: string) {
      return privateProfile(await requireUser(userId));
    },

    async getPublicProfileById(userId: string, viewerId: string | undefined) {
      return publicProfile(await repo.findProfileRow(db, dialect, { id: userId }, viewerId));
    },

    async getPublicProfileByUsername(username: string, viewerId: string | undefined) {
      return publicProfile(await repo.findProfileRow(db, dialect, { username }, viewerId));
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
      await repo.updateUser(db, userId, changes);
      return privateProfile({ ...user, ...changes });
    },

    async search(q: string, limit: number) {
      const rows = await repo.searchUsers(db, dialect, q, limit);
      const badgeMap = await badges.forUsers(rows.map((row) => row.id));
      return rows.map((row) => ({ ...toUserSummary(row, urls), badges: badgeMap.get(row.id) ?? [] }));
    },

    setAvatar: (userId: string, upload: Buffer) => replaceImage(userId, 'image_key', upload),
    removeAvatar: (userId: string) => replaceImage(userId, 'image_key', null),
    setBanner: (userId: string, upload: Buffer) => replaceImage(userId, 'banner_key', upload),
    removeBanner: (userId: string) => replaceImage(userId, 'banner_key', null),
  };
}
