import type { Kysely } from 'kysely';
import type { Actor } from '../../core/auth/authenticate.js';
import { digest, displayPrefix, newApiKey } from '../../core/auth/credentials.js';
import { SCOPES, effectiveScopes, formatScopes, scopesForRole } from '../../core/auth/scopes.js';
import type { Scope } from '../../core/auth/scopes.js';
import type { Clock } from '../../core/clock.js';
import type { DialectName } from '../../core/db/database.js';
import { lockForUpdate } from '../../core/db/dialect.js';
import type { DB, Role } from '../../core/db/schema.js';
import { AppError, badRequest, conflict, forbidden, notFound, unauthorized } from '../../core/http/errors.js';
import { newId } from '../../core/ids.js';
import * as repo from './api-keys.repo.js';
import type { ApiKeyRow } from './api-keys.repo.js';

export const MAX_API_KEYS = 25;

/** Scopes shown are those in force: the stored ones cut down to what the owner's role allows now. */
const toApiKey = (row: ApiKeyRow, role: Role) => ({
  id: row.id,
  name: row.name,
  prefix: row.prefix,
  scopes: [...effectiveScopes(row.scopes, role)],
  teamId: row.team_id,
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
  lastUsedIp: row.last_used_ip,
  expiresAt: row.expires_at,
});

/**
 * A caller using an API key can only hand out (create, rotate) keys within its own scopes: otherwise a read-only
 * key could mint itself an everything key. Sessions and internal callers (no `scopes`) hold every scope.
 */
function requireCallerHolds(caller: Actor | undefined, scopes: readonly Scope[]): void {
  const held = caller?.scopes;
  const lacking = held === undefined ? [] : scopes.filter((scope) => !held.has(scope));
  if (lacking.length > 0) {
    throw new AppError(
      403,
      'SCOPE_NOT_ALLOWED',
      `The API key making this request lacks: ${lacking.join(', ')}`,
      { scopes: lacking },
    );
  }
}

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
      const [role, rows] = await Promise.all([repo.findUserRole(db, userId), repo.listApiKeys(db, userId)]);
      if (role === undefined) throw unauthorized();
      return rows.map((row) => toApiKey(row, role));
    },

    /**
     * The plain key is returned here and never again. `scopes` defaults to every scope the user's role allows,
     * stored as "every scope" so that the key follows the role (a promoted moderator's default key can moderate),
     * or, when an API key creates it, to the scopes that key holds now; `teamId` binds the key to a team the user belongs to (any team role: the key
     * never exceeds its user's own rights, it only narrows them).
     */
    async create(
      userId: string,
      input: { name: string; expiresAt?: string; scopes?: Scope[]; teamId?: string },
      caller?: Actor,
    ) {
      const now = clock.now();
      if (input.expiresAt !== undefined && new Date(input.expiresAt) <= now) {
        throw badRequest('expiresAt must be in the future', {
          fields: { 'body.expiresAt': 'must be in the future' },
        });
      }
      const role = await repo.findUserRole(db, userId);
      if (role === undefined) throw unauthorized();
      const allowed = scopesForRole(role);
      let scopes: Scope[];
      if (input.scopes === undefined) {
        const held = caller?.scopes;
        scopes = held === undefined ? [...SCOPES] : allowed.filter((scope) => held.has(scope));
      } else {
        scopes = SCOPES.filter((scope) => input.scopes!.includes(scope));
        const beyondRole = scopes.filter((scope) => !allowed.includes(scope));
        if (beyondRole.length > 0) {
          throw new AppError(403, 'SCOPE_NOT_ALLOWED', `Your role does not allow: ${beyondRole.join(', ')}`, {
            scopes: beyondRole,
          });
        }
      }
      requireCallerHolds(caller, scopes);
      if (scopes.length === 0) {
        throw badRequest('A key needs at least one scope', {
          fields: { 'body.scopes': 'must not be empty' },
        });
      }
      if (input.teamId !== undefined) {
        const membership = await repo.findTeamMembership(db, input.teamId, userId);
        if (!membership.exists) throw notFound('Team');
        if (membership.role === null)
          throw forbidden('You can bind a key only to a team you are a member of');
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
        last_used_ip: null,
        expires_at: input.expiresAt === undefined ? null : new Date(input.expiresAt).toISOString(),
        revoked_at: null,
        scopes: formatScopes(scopes),
        team_id: input.teamId ?? null,
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
      return { ...toApiKey(row, role), key };
    },

    /**
     * A new secret for the same record (name, scopes, team, expiry kept). Credentials are read from the database
     * on every request, so the old secret fails on the very next one.
     */
    async rotate(userId: string, keyId: string, caller?: Actor) {
      const [row, role] = await Promise.all([
        repo.findApiKey(db, userId, keyId),
        repo.findUserRole(db, userId),
      ]);
      if (row === undefined || role === undefined) throw notFound('API key');
      requireCallerHolds(caller, [...effectiveScopes(row.scopes, role)]);
      const key = newApiKey();
      const secret = { key_hash: digest(key), prefix: displayPrefix(key) };
      if (!(await repo.replaceSecret(db, userId, keyId, secret))) throw notFound('API key');
      return { ...toApiKey({ ...row, ...secret }, role), key };
    },

    async remove(userId: string, keyId: string): Promise<void> {
      if (!(await repo.deleteApiKey(db, userId, keyId))) throw notFound('API key');
    },
  };
}
