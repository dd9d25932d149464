// A server's Votifier settings (spec/extensions.md §3): owner side only; the token is sealed and never returned.
import type { Kysely } from 'kysely';
import type { Actor } from '../../../core/auth/authenticate.js';
import type { ServerAccess } from '../../../core/auth/server-access.js';
import type { Clock } from '../../../core/clock.js';
import type { DB } from '../../../core/db/schema.js';
import type { SecretBox } from '../../../core/events/secret-box.js';
import { AppError, badRequest, notFound } from '../../../core/http/errors.js';
import { checkTargetHost, REFUSAL_MESSAGES } from '../../../core/outbound/target.js';
import { isServerAddress } from '../server-address.js';
import { toVotifier } from './votes.mapper.js';
import { deleteVotifier, findVotifier, insertVotifier, updateVotifier } from './votes.repo.js';

export interface VotifierInput {
  host: string;
  port: number;
  token?: string;
  enabled?: boolean;
}

export type VotifierService = ReturnType<typeof createVotifierService>;

export function createVotifierService(deps: {
  db: Kysely<DB>;
  clock: Clock;
  serverAccess: ServerAccess;
  secretBox: SecretBox;
  outboundAllowPrivate: boolean;
}) {
  const { db, clock, serverAccess, secretBox, outboundAllowPrivate } = deps;

  /** The outbound rules at configuration time; delivery checks again (DNS can change). */
  async function requireAllowedHost(host: string): Promise<void> {
    if (!isServerAddress(host))
      throw badRequest('host must be a hostname or an IP address (without brackets or port)', {
        field: 'host',
      });
    const check = await checkTargetHost(host, { allowPrivate: outboundAllowPrivate });
    if (!check.allowed)
      throw new AppError(400, 'OUTBOUND_TARGET_REFUSED', `The host ${REFUSAL_MESSAGES[check.reason]}`, {
        reason: check.reason,
      });
  }

  return {
    async put(actor: Actor, serverId: string, input: VotifierInput) {
      await serverAccess.authorizeById(actor, 'server.manage', serverId);
      // DNS before the transaction: no network I/O while holding it.
      await requireAllowedHost(input.host);
      const at = clock.now().toISOString();
      const enabled = input.enabled ?? true;
      return db.transaction().execute(async (trx) => {
        const current = await findVotifier(trx, serverId);
        if (current === undefined) {
          if (input.token === undefined)
            throw badRequest('token is required when the server has no Votifier yet', { field: 'token' });
          const row = {
            server_id: serverId,
            host: input.host,
            port: input.port,
            token_sealed: secretBox.seal(input.token),
            enabled,
            created_at: at,
            updated_at: at,
          };
          await insertVotifier(trx, row);
          return toVotifier(row);
        }
        const changes = {
          host: input.host,
          port: input.port,
          token_sealed: input.token === undefined ? current.token_sealed : secretBox.seal(input.token),
          enabled,
          updated_at: at,
        };
        await updateVotifier(trx, serverId, changes);
        return toVotifier({ ...current, ...changes });
      });
    },

    async get(actor: Actor, serverId: string) {
      await serverAccess.authorizeById(actor, 'server.manage', serverId);
      const row = await findVotifier(db, serverId);
      if (row === undefined) throw notFound('Votifier');
      return toVotifier(row);
    },

    async remove(actor: Actor, serverId: string): Promise<void> {
      await serverAccess.authorizeById(actor, 'server.manage', serverId);
      if (!(await deleteVotifier(db, serverId))) throw notFound('Votifier');
    },
  };
}
