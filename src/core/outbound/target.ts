// Validates a user-supplied outbound URL (webhook create/update) and resolves it once. outboundPost uses the same
// check at delivery time and connects to the addresses returned here, because DNS answers can change in between.

import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import { AppError } from '../http/errors.js';
import { type AddressRefusalReason, classifyAddress } from './address-policy.js';

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** dns.promises.lookup with `{all: true}`; injectable so tests can answer DNS themselves. */
export type Lookup = (hostname: string, options: { all: true }) => Promise<ResolvedAddress[]>;

export type TargetRefusalReason = AddressRefusalReason | 'not-a-url' | 'scheme' | 'userinfo' | 'unresolvable';

export interface TargetOptions {
  allowPrivate: boolean;
  /** Plain http is accepted only when false; defaults to `!allowPrivate` (http only where private targets are). */
  requireHttps?: boolean;
  lookup?: Lookup;
}

export type TargetCheck =
  | { allowed: true; url: URL; hostname: string; addresses: ResolvedAddress[] }
  | { allowed: false; reason: TargetRefusalReason };

export const REFUSAL_MESSAGES: Record<TargetRefusalReason, string> = {
  'not-a-url': 'is not an absolute URL',
  scheme: 'must use https',
  userinfo: 'must not contain a user name or password',
  unresolvable: 'has a host name that does not resolve',
  invalid: 'resolves to an address that is not a valid IP address',
  unspecified: 'resolves to an unspecified address',
  loopback: 'resolves to a loopback address',
  private: 'resolves to a private network address',
  'link-local': 'resolves to a link-local address',
  'carrier-grade-nat': 'resolves to a carrier-grade NAT address',
  multicast: 'resolves to a multicast address',
  broadcast: 'resolves to a broadcast address',
  reserved: 'resolves to a reserved address',
  documentation: 'resolves to an address reserved for documentation',
  benchmarking: 'resolves to an address reserved for benchmarking',
  tunnel: 'resolves to a Teredo tunnel address',
};

/** Why a target was refused, in words safe to show the caller: never the resolved address (split-horizon DNS). */
export const targetRefusalMessage = (reason: TargetRefusalReason) =>
  `The target URL ${REFUSAL_MESSAGES[reason]}`;

/** The 400 a create/update answers with when checkTargetUrl refuses the URL. */
export const outboundTargetRefused = (reason: TargetRefusalReason) =>
  new AppError(400, 'OUTBOUND_TARGET_REFUSED', targetRefusalMessage(reason), { reason });

/**
 * Checks scheme, userinfo and every address the host resolves to. Refused when ANY address is refused: the
 * connection could otherwise be steered to the refused one by the resolver's ordering.
 */
export async function checkTargetUrl(raw: string, options: TargetOptions): Promise<TargetCheck> {
  const url = URL.canParse(raw) ? new URL(raw) : null;
  if (url === null) return refused('not-a-url');
  const requireHttps = options.requireHttps ?? !options.allowPrivate;
  if (url.protocol !== 'https:' && (url.protocol !== 'http:' || requireHttps)) return refused('scheme');
  if (url.username !== '' || url.password !== '') return refused('userinfo');

  // URL keeps IPv6 literals in brackets and has already normalised IPv4 forms such as 0x7f.1 to dotted quads.
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const host = await checkTargetHost(hostname, options);
  return host.allowed ? { allowed: true, url, hostname, addresses: host.addresses } : host;
}

export type HostCheck =
  { allowed: true; addresses: ResolvedAddress[] } | { allowed: false; reason: TargetRefusalReason };

/**
 * The resolve-and-check step alone, for connections that are not URLs (Votifier's host and port): resolves the
 * host (an IP literal as itself) and refuses it when ANY address is refused. Connect to the addresses returned.
 */
export async function checkTargetHost(hostname: string, options: TargetOptions): Promise<HostCheck> {
  const addresses = await resolve(hostname, options);
  if (addresses === 'loopback-name') return refused('loopback');
  if (addresses.length === 0) return refused('unresolvable');
  for (const { address } of addresses) {
    const verdict = classifyAddress(address, options);
    if (!verdict.allowed) return refused(verdict.reason);
  }
  return { allowed: true, addresses };
}

/** checkTargetUrl for create/update: throws the 400 OUTBOUND_TARGET_REFUSED, returns the parsed URL. */
export async function requireAllowedTarget(raw: string, options: TargetOptions): Promise<URL> {
  const check = await checkTargetUrl(raw, options);
  if (!check.allowed) throw outboundTargetRefused(check.reason);
  return check.url;
}

async function resolve(
  hostname: string,
  options: TargetOptions,
): Promise<ResolvedAddress[] | 'loopback-name'> {
  const family = isIP(hostname);
  if (family !== 0) return [{ address: hostname, family }];
  // RFC 6761: these names are loopback whatever a resolver answers for them.
  const name = hostname.toLowerCase().replace(/\.$/, '');
  if ((name === 'localhost' || name.endsWith('.localhost')) && !options.allowPrivate) return 'loopback-name';
  const lookup = options.lookup ?? systemLookup;
  try {
    return await lookup(hostname, { all: true });
  } catch {
    return [];
  }
}

const systemLookup: Lookup = (hostname, lookupOptions) => dns.lookup(hostname, lookupOptions);

const refused = (reason: TargetRefusalReason): { allowed: false; reason: TargetRefusalReason } => ({
  allowed: false,
  reason,
});
