// Idempotency-Key on the POSTs that create things (issue 12): every POST route documented with a 201 and a JSON
// body, so routes added later are covered by the rule. A retry with the same key and the same request from the
// same caller within 24 h gets the first 2xx answer again (status, body, Location) with
// `Idempotent-Replayed: true`; the same key with a different request is 409 IDEMPOTENCY_KEY_REUSED; while the
// first is still running, 409 IDEMPOTENCY_KEY_IN_USE (retry later). Failed answers are not kept: the key is
// released, so a corrected retry may reuse it. Answers are stored sealed (AES-256-GCM under SECRET): an API-key
// creation answer holds the plaintext key.
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import { DAY_MS } from '../../clock.js';
import type { DB } from '../../db/schema.js';
import { createSecretBox } from '../../events/secret-box.js';
import { AppError, badRequest, conflict } from '../errors.js';
import { claimKey, completeKey, findKey, purgeKeysBefore, releaseKey } from './idempotency.repo.js';
import type { KeyRow } from './idempotency.repo.js';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'idempotent-replayed';
export const IDEMPOTENCY_WINDOW_MS = DAY_MS;
/** A claim without an answer this old belongs to a process that died mid-request: it may be taken over. */
export const ABANDONED_CLAIM_MS = 5 * 60 * 1000;
/** 1–255 printable ASCII characters. */
export const IDEMPOTENCY_KEY_PATTERN = '^[\\x20-\\x7E]{1,255}$';
const KEY_FORMAT = new RegExp(IDEMPOTENCY_KEY_PATTERN);

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Honours Idempotency-Key. Set at registration by the rule above; `false` in a route's config opts out. */
    idempotent?: boolean;
  }
}

interface Claim {
  caller: string;
  key: string;
  createdAt: string;
  settled: boolean;
}

export interface IdempotencyDeps {
  db: Kysely<DB>;
  clock: Clock;
  secret: string;
}

/** The rule: POST, a 201 among the documented answers, and a JSON body schema (multipart streams cannot be hashed). */
export function createsWithJsonBody(route: RouteOptions): boolean {
  const methods = [route.method].flat();
  const responses = (route.schema?.response ?? {}) as Record<string, unknown>;
  return methods.includes('POST') && '201' in responses && route.schema?.body !== undefined;
}

/** JSON with object keys sorted, so `{"a":1,"b":2}` and `{"b":2,"a":1}` are the same request. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([name, item]) => `${JSON.stringify(name)}:${canonical(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function fingerprintOf(request: FastifyRequest): string {
  return createHash('sha256')
    .update(`${request.method} ${request.url}\n${canonical(request.body)}`)
    .digest('base64url');
}

function callerOf(request: FastifyRequest): string {
  return request.actor ? `user:${request.actor.userId}` : `ip:${request.ip}`;
}

/** The header's value when one was sent; a 400 when it is not 1–255 printable ASCII characters. */
function keyOf(request: FastifyRequest): string | undefined {
  const sent = request.headers[IDEMPOTENCY_HEADER];
  if (sent === undefined) return undefined;
  if (typeof sent !== 'string' || !KEY_FORMAT.test(sent)) {
    throw badRequest('Idempotency-Key must be 1–255 printable ASCII characters', {
      fields: { 'headers.idempotency-key': 'must be 1–255 printable ASCII characters' },
    });
  }
  return sent;
}

/** Documents the header on the routes that honour it (and lets the validator answer 400 for a bad one). */
function documentHeader(route: RouteOptions): void {
  const schema = route.schema as { headers?: { type?: string; properties?: Record<string, unknown> } };
  const header = {
    type: 'string',
    pattern: IDEMPOTENCY_KEY_PATTERN,
    description:
      'Optional. A retry with the same key and request within 24 h returns the first answer ' +
      '(`Idempotent-Replayed: true`); the same key with a different request is a 409.',
  };
  if (schema.headers === undefined) {
    schema.headers = { type: 'object', properties: { [IDEMPOTENCY_HEADER]: header } };
  } else if (schema.headers.type === 'object' && schema.headers.properties !== undefined) {
    schema.headers = {
      ...schema.headers,
      properties: { ...schema.headers.properties, [IDEMPOTENCY_HEADER]: header },
    };
  }
}

export function registerIdempotency(app: FastifyInstance, deps: IdempotencyDeps): void {
  const { db, clock } = deps;
  const box = createSecretBox(deps.secret, 'idempotency-answers');
  const claims = new WeakMap<FastifyRequest, Claim>();

  app.addHook('onRoute', (route) => {
    if (route.config?.idempotent === false || !createsWithJsonBody(route)) return;
    route.config = { ...route.config, idempotent: true };
    documentHeader(route);
  });

  async function replayOrRefuse(
    reply: FastifyReply,
    row: KeyRow,
    fingerprint: string,
  ): Promise<FastifyReply> {
    if (row.fingerprint !== fingerprint) {
      throw conflict(
        'This Idempotency-Key was already used with a different request; use a new key',
        'IDEMPOTENCY_KEY_REUSED',
      );
    }
    if (row.status_code === null || row.body_sealed === null) {
      throw conflict(
        'A request with this Idempotency-Key is still in progress; retry shortly',
        'IDEMPOTENCY_KEY_IN_USE',
      );
    }
    if (row.location !== null) reply.header('location', row.location);
    return reply
      .code(row.status_code)
      .header(REPLAYED_HEADER, 'true')
      .type('application/json; charset=utf-8')
      .send(box.open(row.body_sealed));
  }

  app.addHook('preHandler', async (request, reply) => {
    if (request.routeOptions.config?.idempotent !== true) return;
    const key = keyOf(request);
    if (key === undefined) return;
    const caller = callerOf(request);
    const fingerprint = fingerprintOf(request);
    // Two attempts: the second after clearing a row that is past its 24 h or an abandoned claim.
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const now = clock.now();
      const createdAt = now.toISOString();
      if (await claimKey(db, { caller, key, fingerprint, created_at: createdAt })) {
        claims.set(request, { caller, key, createdAt, settled: false });
        return;
      }
      const row = await findKey(db, caller, key);
      if (row === undefined) continue;
      const age = now.getTime() - new Date(row.created_at).getTime();
      const abandoned = row.status_code === null && age >= ABANDONED_CLAIM_MS;
      if (age >= IDEMPOTENCY_WINDOW_MS || abandoned) {
        await releaseKey(db, caller, key, row.created_at);
        continue;
      }
      return replayOrRefuse(reply, row, fingerprint);
    }
    throw new AppError(409, 'IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is in progress');
  });

  // Registered before Fastify's own and the ETag hooks run on the final payload: kept as the client will see it.
  app.addHook('onSend', async (request, reply, payload) => {
    const claim = claims.get(request);
    if (claim === undefined || claim.settled) return payload;
    claim.settled = true;
    const ok = reply.statusCode >= 200 && reply.statusCode < 300;
    const text =
      typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : null;
    if (ok && text !== null) {
      const location = reply.getHeader('location');
      await completeKey(db, claim.caller, claim.key, {
        status_code: reply.statusCode,
        location: typeof location === 'string' ? location : null,
        body_sealed: box.seal(text),
      });
    } else {
      await releaseKey(db, claim.caller, claim.key, claim.createdAt);
    }
    return payload;
  });

  // A request that never reached onSend (the client went away, a stream failed) leaves no claim behind.
  const releaseUnsettled = async (request: FastifyRequest) => {
    const claim = claims.get(request);
    if (claim === undefined || claim.settled) return;
    claim.settled = true;
    await releaseKey(db, claim.caller, claim.key, claim.createdAt).catch((error: unknown) =>
      request.log.warn({ err: error }, 'could not release an idempotency key'),
    );
  };
  app.addHook('onResponse', releaseUnsettled);
  app.addHook('onRequestAbort', releaseUnsettled);
}

/** The purge job's work: answers past their 24 h. */
export function purgeExpiredIdempotencyKeys(db: Kysely<DB>, clock: Clock): Promise<number> {
  return purgeKeysBefore(db, new Date(clock.now().getTime() - IDEMPOTENCY_WINDOW_MS).toISOString());
}
