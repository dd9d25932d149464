// Server keys (spec/extensions.md §3): the owner side creates up to MAX_SERVER_KEYS per server, each shown once
// and stored as its SHA-256 digest with a short display prefix; deleting one stops its heartbeats at once.
import type { Kysely } from 'kysely';
import type { Actor } from '../../../core/auth/authenticate.js';
import { digest, displayPrefix } from '../../../core/auth/credentials.js';
import type { ServerAccess } from '../../../core/auth/server-access.js';
import type { Clock } from '../../../core/clock.js';
import type { DialectName } from '../../../core/db/database.js';
import { lockForUpdate } from '../../../core/db/dialect.js';
import type { DB } from '../../../core/db/schema.js';
import { conflict, notFound } from '../../../core/http/errors.js';
import { newId } from '../../../core/ids.js';
import * as repo from './keys.repo.js';
import type { ServerKeyRow } from './keys.repo.js';
import { newServerKey } from './server-key.js';

export const MAX_SERVER_KEYS = 5;

const toServerKey = (row: ServerKeyRow) => ({
  id: row.id,
  name: row.name,
  prefix: row.prefix,
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
});

export type ServerKeysService = ReturnType<typeof createServerKeysService>;

export function createServerKeysService(deps: {
  db: Kysely<DB>;
  dialect: DialectName;
  clock: Clock;
  serverAccess: ServerAccess;
}) {
  const { db, dialect, clock, serverAccess } = deps;

  return {
    async list(actor: Actor, serverId: string) {
      await serverAccess.authorizeById(actor, 'server.manage', serverId);
      return { keys: (await repo.listServerKeys(db, serverId)).map(toServerKey) };
    },

    /** The plain key is returned here and never again. */
    async create(actor: Actor, serverId: string, input: { name: string }) {
      await serverAccess.authorizeById(actor, 'server.manage', serverId);
      const key = newServerKey();
      const row: ServerKeyRow = {
        id: newId(),
        server_id: serverId,
        name: input.name,
        prefix: displayPrefix(key),
        key_hash: digest(key),
        created_at: clock.now().toISOString(),
        last_used_at: null,
      };
      await db.transaction().execute(async (trx) => {
        // Concurrent creations must not slip past the limit together.
        await lockForUpdate(trx, dialect, `server-keys:${serverId}`);
        if ((await repo.countServerKeys(trx, serverId)) >= MAX_SERVER_KEYS) {
          throw conflict(`At most ${MAX_SERVER_KEYS} keys per server; delete one first`, 'LIMIT_REACHED', {
            limit: MAX_SERVER_KEYS,
          });
        }
        // A server deleted since the access check takes the insert down with it (foreign key): 404 then.
        if ((await serverAccess.findFacts(serverId, trx)) === undefined) throw notFound('Server');
        await repo.insertServerKey(trx, row);
      });
      return { id: row.id, name: row.name, key, createdAt: row.created_at };
    },

    async remove(actor: Actor, serverId: string, keyId: string): Promise<void> {
      await serverAccess.authorizeById(actor, 'server.manage', serverId);
      if (!(await repo.deleteServerKey(db, serverId, keyId))) throw notFound('Server key');
    },
  };
}
