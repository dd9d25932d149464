// The one way the service opens a raw TCP connection to a user-supplied host (Votifier; DESIGN §11). Same rules
// as outboundPost: the host is resolved once, every address is checked, and the socket connects to the checked
// address itself, so a DNS answer that changes in between (rebinding) cannot redirect it.

import net from 'node:net';
import { beforeDeadline, OutboundError, toOutboundError } from './post.js';
import { checkTargetHost, type Lookup, REFUSAL_MESSAGES } from './target.js';

export interface OutboundConnectOptions {
  allowPrivate: boolean;
  /** Aborting it (the caller's overall deadline) ends the lookup or the connect; its reason is thrown. */
  signal: AbortSignal;
  lookup?: Lookup;
}

/** A connected socket to `host:port`, or an OutboundError (TARGET_REFUSED, DNS, CONNECTION, or the abort reason). */
export async function outboundConnect(
  host: string,
  port: number,
  options: OutboundConnectOptions,
): Promise<net.Socket> {
  const target = await beforeDeadline(
    checkTargetHost(host, { allowPrivate: options.allowPrivate, lookup: options.lookup }),
    options.signal,
  );
  if (!target.allowed) {
    if (target.reason === 'unresolvable') throw new OutboundError('DNS', 'The host name does not resolve');
    // Never the resolved address: with split-horizon DNS it tells the caller what lives inside the network.
    throw new OutboundError('TARGET_REFUSED', `The host ${REFUSAL_MESSAGES[target.reason]}`);
  }
  const { address, family } = target.addresses[0]!;
  const { signal } = options;
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(toOutboundError(signal.reason));
    const socket = net.connect({ host: address, port, family });
    const done = () => {
      signal.removeEventListener('abort', onAbort);
      socket.off('connect', onConnect);
      socket.off('error', onError);
    };
    const onAbort = () => {
      done();
      socket.destroy();
      reject(toOutboundError(signal.reason));
    };
    const onConnect = () => {
      done();
      resolve(socket);
    };
    const onError = (error: Error) => {
      done();
      socket.destroy();
      reject(toOutboundError(error));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', onConnect);
    socket.once('error', onError);
  });
}
