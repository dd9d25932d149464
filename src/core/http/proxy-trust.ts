// Which peers may name the client through X-Forwarded-For (TRUST_PROXY). Rate limits and download counting
// key on request.ip, so trusting too much lets any client choose the address they count against.
import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';
import type { Config } from '../../config.js';

/**
 * The Fastify `trustProxy` option for a configured value. A hop count trusts that many proxies in front of
 * the process whatever their address; Fastify 5 no longer does hop counts itself (it reads a number as
 * "trust nothing"), so the count becomes proxy-addr's (address, hop) test here.
 */
export function trustProxyOption(trustProxy: Config['trustProxy']): FastifyServerOptions['trustProxy'] {
  if (typeof trustProxy !== 'number') return trustProxy;
  const hops = trustProxy;
  return (_address, hop) => hop < hops;
}

/** TRUST_PROXY=true stays accepted (a quick start behind a proxy) but is named once at start. */
export function warnIfTrustingEveryProxy(log: FastifyBaseLogger, trustProxy: Config['trustProxy']): void {
  if (trustProxy !== true) return;
  log.warn(
    'TRUST_PROXY=true: any client can choose its IP address with X-Forwarded-For and so escape per-IP rate ' +
      'limits; set TRUST_PROXY to your load balancer addresses/CIDRs (or its hop count) instead',
  );
}
