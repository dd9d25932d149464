import type { Kysely } from 'kysely';
import { digest, displayPrefix, newApiKey } from '../../core/auth/credentials.js';
import type { Clock } from '../../core/clock.js';
import type { DialectName } from '../../core/db/database.js';
import { lockForUpdate } from '../../core/db/dialect.js';
import type { DB } from '../../core/db/schema.js';
import { badRequest, conflict, notFound } from '../../core/http/errors.js';
import { newId } from '../../core/ids.js';
import * as repo from './api-keys.repo.js';
import type { ApiKeyRow } from './api-keys.repo.js';

export const MAX_API_KEYS = 25;

const toApiKey = (row: ApiKeyRow) => ({
  id: row.id,
  name: row.name,
  prefix: row.prefix,
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
  expiresAt: row.expires_at,
});

export type ApiKeysService = ReturnType<typeof createApiKeysService>;

export function createApiKeysService({
  db,
  dialect,
  clock,
}: {
  db: Kysely<DB>;
  dialect: DialectName;
  clock: Clock;
}) {
  return {
    async list(userId: string) {
      return (await repo.listApiKeys(db, userId)).map(toApiKey);
    },

    /** The plain key is returned here and never again. */
    async create(userId: string, input: { name: string; expiresAt?: string }) {
      const now = clock.now();
      if (input.expiresAt !== undefined && new Date(input.expiresAt) <= now) {
        throw badRequest('expiresAt must be in the future', {
          fields: { 'body.expiresAt': 'must be in the future' },
        });
      }
      const key = newApiKey();
      const row: ApiKeyRow = {
        id: newId(),
        user_id: userId,
        name: input.name,
        prefix: displayPrefix(key),
        key_hash: digest(key),
        created_at: now.toISOString(),
        last_used_at: null,
        expires_at: input.expiresAt === undefined ? null : new Date(input.expiresAt).toISOString(),
        revoked_at: null,
      };
      await db.transaction().execute(async (trx) => {
        // Concurrent creations must not slip past the limit together.
        await lockForUpdate(trx, dialect, `api-keys:${userId}`);
        if ((await repo.countApiKeys(trx, userId)) >= MAX_API_KEYS) {
          throw conflict(`At most ${MAX_API_KEYS} API keys per account; delete one first`, 'LIMIT_REACHED', {
            limit: MAX_API_KEYS,
          });
        }
        await repo.insertApiKey(trx, row);
      });
      const { lastUsedAt: _unused, ...shown } = toApiKey(row);
      return { ...shown, key };
    },

    async remove(userId: string, keyId: string): Promise<void> {
      if (!(await repo.deleteApiKey(db, userId, keyId))) throw notFound('API key');
    },
  };
}
