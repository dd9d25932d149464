// NuVotifier protocol v2, the client side (spec/extensions.md §3 "Votifier"). Over one TCP connection to the
// checked address (core/outbound/connect.ts): the peer greets with `VOTIFIER 2 <challenge>\n`; we send the
// magic 0x733A and the byte length of the message (both uint16 big-endian), then the JSON message
// `{payload, signature}`, where payload is the vote as a JSON string carrying the peer's challenge (so a recorded
// vote cannot be replayed) and signature the base64 HMAC-SHA256 of that string under the shared token; the peer
// answers one JSON line, `{"status":"ok"}` or `{"status":"error","cause":…,"error":…}`. One deadline covers DNS,
// connect and the exchange.
import { createHmac } from 'node:crypto';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { outboundConnect } from '../../../core/outbound/connect.js';
import { OutboundError, toOutboundError } from '../../../core/outbound/post.js';
import type { Lookup } from '../../../core/outbound/target.js';

export const VOTIFIER_MAGIC = 0x733a;
/** A greeting or an answer longer than this is not Votifier talking. */
const MAX_LINE_BYTES = 4096;
/** lastError is shown to the owner side; the peer's own words are cut to this. */
const MAX_ERROR_CHARS = 300;

export interface VotifierTarget {
  host: string;
  port: number;
  token: string;
}

export interface VotifierVote {
  serviceName: string;
  username: string;
  /** The voter's IP address. */
  address: string;
  /** When the vote was cast, in milliseconds since the epoch. */
  timestamp: number;
}

export interface VotifierSettings {
  timeoutMs: number;
  allowPrivate: boolean;
  lookup?: Lookup;
}

export type VotifierResult =
  { ok: true; durationMs: number } | { ok: false; error: string; durationMs: number };

/** The framed v2 message for one vote and challenge. */
export function encodeVotifierMessage(vote: VotifierVote, challenge: string, token: string): Buffer {
  const payload = JSON.stringify({ ...vote, challenge });
  const signature = createHmac('sha256', token).update(payload).digest('base64');
  const message = Buffer.from(JSON.stringify({ payload, signature }), 'utf8');
  if (message.length > 0xffff)
    throw new OutboundError('PROTOCOL', 'The vote does not fit one Votifier message');
  const header = Buffer.alloc(4);
  header.writeUInt16BE(VOTIFIER_MAGIC, 0);
  header.writeUInt16BE(message.length, 2);
  return Buffer.concat([header, message]);
}

export async function sendVotifierVote(
  target: VotifierTarget,
  vote: VotifierVote,
  settings: VotifierSettings,
): Promise<VotifierResult> {
  const started = performance.now();
  const deadline = new AbortController();
  const timer = setTimeout(
    () => deadline.abort(new OutboundError('TIMEOUT', `No answer within ${settings.timeoutMs} ms`)),
    settings.timeoutMs,
  );
  let socket: Socket | undefined;
  try {
    socket = await outboundConnect(target.host, target.port, {
      allowPrivate: settings.allowPrivate,
      lookup: settings.lookup,
      signal: deadline.signal,
    });
    const refusal = await exchange(socket, vote, target.token, deadline.signal);
    if (refusal !== undefined)
      return { ok: false, error: `REFUSED: ${refusal}`, durationMs: elapsed(started) };
    return { ok: true, durationMs: elapsed(started) };
  } catch (error) {
    const failure = toOutboundError(error);
    return { ok: false, error: `${failure.code}: ${failure.message}`, durationMs: elapsed(started) };
  } finally {
    clearTimeout(timer);
    socket?.destroy();
  }
}

/**
 * Reads the greeting, sends the vote, reads the answer: resolves undefined for ok, the peer's reason for an
 * error answer; rejects with an OutboundError on anything else.
 */
function exchange(
  socket: Socket,
  vote: VotifierVote,
  token: string,
  deadline: AbortSignal,
): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    let buffered = Buffer.alloc(0);
    let greeted = false;
    let settled = false;
    const finish = (outcome: Answer | OutboundError) => {
      if (settled) return;
      settled = true;
      deadline.removeEventListener('abort', onAbort);
      socket.removeAllListeners('data');
      if (outcome instanceof OutboundError) reject(outcome);
      else resolve(outcome.refusal);
    };
    const onAbort = () => finish(toOutboundError(deadline.reason));
    if (deadline.aborted) return onAbort();
    deadline.addEventListener('abort', onAbort, { once: true });

    const onLine = (line: string) => {
      if (!greeted) {
        greeted = true;
        const challenge = /^VOTIFIER 2(?:\.\S*)? (\S+)$/.exec(line)?.[1];
        if (challenge === undefined)
          return finish(
            new OutboundError('PROTOCOL', "The peer did not greet with 'VOTIFIER 2 <challenge>' (v2 only)"),
          );
        try {
          socket.write(encodeVotifierMessage(vote, challenge, token));
        } catch (error) {
          finish(toOutboundError(error));
        }
        return;
      }
      finish(answerError(line));
    };

    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      for (;;) {
        const end = buffered.indexOf(0x0a);
        if (end === -1) break;
        const line = buffered.subarray(0, end).toString('utf8').trim();
        buffered = buffered.subarray(end + 1);
        onLine(line);
        if (settled) return;
      }
      if (buffered.length > MAX_LINE_BYTES)
        finish(new OutboundError('PROTOCOL', 'The peer sent an over-long line'));
    });
    socket.on('error', (error) => finish(toOutboundError(error)));
    socket.on('end', () => {
      // An answer without its trailing newline still counts.
      const rest = buffered.toString('utf8').trim();
      if (greeted && rest !== '') return finish(answerError(rest));
      finish(new OutboundError('CONNECTION', 'The peer closed the connection before answering'));
    });
    socket.on('close', () =>
      finish(new OutboundError('CONNECTION', 'The peer closed the connection before answering')),
    );
  });
}

interface Answer {
  /** Undefined for `{"status":"ok"}`. */
  refusal?: string;
}

/** The peer's answer line: ok, a refusal with its reason, or not an answer at all. */
function answerError(line: string): Answer | OutboundError {
  let answer: unknown;
  try {
    answer = JSON.parse(line);
  } catch {
    return new OutboundError('PROTOCOL', 'The peer answered with something other than JSON');
  }
  const { status, cause, error } = (answer ?? {}) as Record<string, unknown>;
  if (status === 'ok') return {};
  if (status === 'error') {
    const words = [cause, error].filter((part) => typeof part === 'string' && part !== '').join(': ');
    return {
      refusal: `The peer refused the vote${words === '' ? '' : `: ${words}`}`.slice(0, MAX_ERROR_CHARS),
    };
  }
  return new OutboundError('PROTOCOL', 'The peer answered without a status');
}

const elapsed = (started: number) => Math.round(performance.now() - started);
