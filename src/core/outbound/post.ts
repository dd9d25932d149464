// The one way the service POSTs to a user-supplied URL (DESIGN §11). The host is resolved once, every address is
// checked, and the socket connects to the checked address through a pinned lookup, so a DNS answer that changes
// between the check and the connect (rebinding) cannot redirect it. One deadline covers DNS, connect and response.

import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { checkTargetUrl, type Lookup, type ResolvedAddress, targetRefusalMessage } from './target.js';

export type OutboundErrorCode = 'TARGET_REFUSED' | 'DNS' | 'TIMEOUT' | 'CONNECTION' | 'TLS' | 'PROTOCOL';

/** A failed outbound request. Messages name what failed, never the resolved address (split-horizon DNS). */
export class OutboundError extends Error {
  durationMs = 0;

  constructor(
    readonly code: OutboundErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'OutboundError';
  }
}

export interface OutboundPostOptions {
  headers?: Record<string, string>;
  body: string | Buffer;
  timeoutMs: number;
  /** Bytes of the response body kept; the socket is closed once they have arrived. */
  maxResponseBytes?: number;
  allowPrivate: boolean;
  lookup?: Lookup;
}

export interface OutboundResponse {
  /** Any status, 3xx included: redirects are never followed and their Location is not exposed. */
  status: number;
  body: string;
  durationMs: number;
}

export const DEFAULT_MAX_RESPONSE_BYTES = 1024;

export async function outboundPost(url: string, options: OutboundPostOptions): Promise<OutboundResponse> {
  const started = performance.now();
  const deadline = new AbortController();
  const timer = setTimeout(
    () => deadline.abort(new OutboundError('TIMEOUT', `No complete response within ${options.timeoutMs} ms`)),
    options.timeoutMs,
  );
  try {
    const target = await beforeDeadline(
      checkTargetUrl(url, { allowPrivate: options.allowPrivate, lookup: options.lookup }),
      deadline.signal,
    );
    if (!target.allowed) {
      if (target.reason === 'unresolvable') throw new OutboundError('DNS', 'The host name does not resolve');
      throw new OutboundError('TARGET_REFUSED', targetRefusalMessage(target.reason));
    }
    const { status, body } = await send(target.url, target.addresses[0]!, options, deadline.signal);
    return { status, body, durationMs: elapsed(started) };
  } catch (error) {
    const failure = toOutboundError(error);
    failure.durationMs = elapsed(started);
    throw failure;
  } finally {
    clearTimeout(timer);
  }
}

function send(
  url: URL,
  pinned: ResolvedAddress,
  options: OutboundPostOptions,
  deadline: AbortSignal,
): Promise<{ status: number; body: string }> {
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const body = typeof options.body === 'string' ? Buffer.from(options.body) : options.body;
  const headers = withoutHeader(options.headers ?? {}, 'content-length');
  headers['content-length'] = String(body.length);

  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      deadline.removeEventListener('abort', onDeadline);
      outcome();
    };
    const fail = (error: unknown) => finish(() => reject(toOutboundError(error)));

    const request = (url.protocol === 'https:' ? https : http).request(url, {
      method: 'POST',
      headers,
      // A fresh connection per request: a pooled socket could belong to another resolution of the same name.
      agent: false,
      lookup: pinnedLookup(pinned),
    });
    const onDeadline = () => {
      fail(deadline.reason);
      request.destroy();
    };
    deadline.addEventListener('abort', onDeadline, { once: true });

    request.on('error', fail);
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      let received = 0;
      const complete = () => {
        const kept = Buffer.concat(chunks, received).subarray(0, maxBytes).toString('utf8');
        finish(() => resolve({ status: response.statusCode ?? 0, body: kept }));
        // Whatever the peer still sends is not wanted: close instead of draining it.
        request.destroy();
      };
      response.on('data', (chunk: Buffer) => {
        if (settled) return;
        chunks.push(chunk);
        received += chunk.length;
        if (received >= maxBytes) complete();
      });
      response.on('end', complete);
      response.on('error', fail);
    });
    request.end(body);
  });
}

/** Answers node's connect-time lookup with the address already checked; no second DNS query is made. */
function pinnedLookup({ address, family }: ResolvedAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

export function beforeDeadline<T>(work: Promise<T>, deadline: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    if (deadline.aborted) return reject(deadline.reason);
    const onAbort = () => reject(deadline.reason);
    deadline.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => deadline.removeEventListener('abort', onAbort));
  });
}

const CONNECTION_MESSAGES: Record<string, string> = {
  ECONNREFUSED: 'The connection was refused',
  ECONNRESET: 'The connection was reset',
  EPIPE: 'The connection was closed while sending',
  EHOSTUNREACH: 'The host is unreachable',
  ENETUNREACH: 'The network is unreachable',
  ETIMEDOUT: 'The connection timed out',
};

export function toOutboundError(error: unknown): OutboundError {
  if (error instanceof OutboundError) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code ?? '';
  const message = error instanceof Error ? error.message : String(error);
  if (code.startsWith('HPE_'))
    return new OutboundError('PROTOCOL', `The response is not valid HTTP: ${code}`);
  // The code or OpenSSL's reason only: a certificate's names would tell the caller what runs at an address.
  const tlsReason = TLS_CODE.test(code) ? code : /SSL routines:[^:]*:([^:]+)/.exec(message)?.[1];
  if (tlsReason !== undefined) return new OutboundError('TLS', `The TLS handshake failed: ${tlsReason}`);
  return new OutboundError(
    'CONNECTION',
    CONNECTION_MESSAGES[code] ?? `The connection failed: ${code || message}`,
  );
}

const TLS_CODE =
  /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)/;

function withoutHeader(headers: Record<string, string>, name: string): Record<string, string> {
  const copy: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() !== name) copy[key] = value;
  return copy;
}

const elapsed = (started: number) => Math.round(performance.now() - started);
