// POST /servers/heartbeat (spec/extensions.md §3): a game server, known by its key, reports its players. One
// lookup by digest (outside the write transaction), then one transaction: the conditional update that enforces
// "one accepted heartbeat per 30 s per server", the online flip only when the server was offline, and the key's
// last_used_at at most once a minute. The directory's page cache is not bumped here (player counts reach cached
// pages through its short expiry); a flip of the online flag is a change of what lists show, so it is.
import type { Kysely } from 'kysely';
import { digest } from '../../../core/auth/credentials.js';
import type { Clock } from '../../../core/clock.js';
import type { DialectName } from '../../../core/db/database.js';
import type { DB } from '../../../core/db/schema.js';
import { badRequest, unauthorized } from '../../../core/http/errors.js';
import { recordServerEvent } from '../server-events.js';
import { bumpDirectoryVersion } from '../servers.repo.js';
import { flipOnline } from '../status/ranks.repo.js';
import * as repo from './keys.repo.js';
import { SERVER_KEY_PATTERN, plainText } from './server-key.js';

/** At most one accepted heartbeat per server in this window; the answer names the next allowed time. */
export const HEARTBEAT_INTERVAL_MS = 30_000;
/** A key's last_used_at moves at most this often (as for API keys), not on every heartbeat. */
const KEY_TOUCH_INTERVAL_MS = 60_000;

export interface Heartbeat {
  onlinePlayers: number;
  maxPlayers: number;
  version?: string | undefined;
  motd?: string | undefined;
  latencyMs?: number | undefined;
}

export type HeartbeatOutcome =
  | { accepted: true; body: { serverId: string; online: true; nextHeartbeatAfter: string } }
  | { accepted: false; retryAfterSeconds: number };

export type HeartbeatService = ReturnType<typeof createHeartbeatService>;

export const missingServerKey = () => unauthorized('Send the server key (sk_…) in the x-server-key header');

const tooSoon = (waitMs: number): HeartbeatOutcome => ({
  accepted: false,
  retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)),
});

export function createHeartbeatService(deps: { db: Kysely<DB>; dialect: DialectName; clock: Clock }) {
  const { db, dialect, clock } = deps;

  return {
    async heartbeat(presentedKey: string | undefined, input: Heartbeat): Promise<HeartbeatOutcome> {
      // The format is checked before any read: garbage costs no query.
      if (presentedKey === undefined || !SERVER_KEY_PATTERN.test(presentedKey)) throw missingServerKey();
      if (input.onlinePlayers > input.maxPlayers) {
        throw badRequest('onlinePlayers cannot be greater than maxPlayers', {
          fields: { 'body.onlinePlayers': 'must be less than or equal to maxPlayers' },
        });
      }
      const key = await repo.findKeyByDigest(db, dialect, digest(presentedKey));
      if (key === undefined) throw unauthorized('Unknown or deleted server key');
      const now = clock.now();
      const at = now.toISOString();
      // Early answer from the read; the conditional update below is what actually decides.
      if (key.last_heartbeat_at !== null) {
        const waitMs = new Date(key.last_heartbeat_at).getTime() + HEARTBEAT_INTERVAL_MS - now.getTime();
        if (waitMs > 0) return tooSoon(waitMs);
      }
      const motd = input.motd === undefined ? null : plainText(input.motd);
      const version = input.version === undefined ? null : plainText(input.version);
      const facts: repo.HeartbeatFacts = {
        online_players: input.onlinePlayers,
        max_players: input.maxPlayers,
        game_version: version === '' ? null : version,
        motd: motd === '' ? null : motd,
        latency_ms: input.latencyMs ?? null,
      };
      const acceptedBy = new Date(now.getTime() - HEARTBEAT_INTERVAL_MS).toISOString();
      const accepted = await db.transaction().execute(async (trx) => {
        const result = await repo.acceptHeartbeat(trx, key.server_id, facts, at, acceptedBy);
        // Another heartbeat of this server won the race (or the server is gone: its keys went with it).
        if (result === undefined) return false;
        if (!result.online) {
          // Conditional, like the status report's: of a concurrent report and heartbeat only one records it.
          const flipped = await flipOnline(trx, key.server_id, true);
          if (flipped !== undefined) {
            await recordServerEvent(trx, 'server.went_online', {
              at,
              actorId: null,
              server: flipped,
              data: {
                onlinePlayers: facts.online_players,
                maxPlayers: facts.max_players,
                cause: 'HEARTBEAT',
              },
            });
            await bumpDirectoryVersion(trx);
          }
        }
        const lastUsed = key.key_last_used_at === null ? 0 : new Date(key.key_last_used_at).getTime();
        if (now.getTime() - lastUsed >= KEY_TOUCH_INTERVAL_MS) await repo.touchServerKey(trx, key.key_id, at);
        return true;
      });
      if (!accepted) return tooSoon(HEARTBEAT_INTERVAL_MS);
      return {
        accepted: true,
        body: {
          serverId: key.server_id,
          online: true,
          nextHeartbeatAfter: new Date(now.getTime() + HEARTBEAT_INTERVAL_MS).toISOString(),
        },
      };
    },
  };
}
