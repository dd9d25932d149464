// Which IP addresses an outbound connection to a user-supplied target may reach (spec/extensions.md, shared rules
// "Outbound connections"; DESIGN §11). Pure: no DNS, no sockets. Judged on the address actually connected to.
//
// Refused classes (reason → ranges):
//   unspecified        0.0.0.0/8, ::/128
//   loopback           127.0.0.0/8, ::1/128, names "localhost" and "*.localhost" (target.ts)
//   private            10/8, 172.16/12, 192.168/16, fc00::/7 (unique local), fec0::/10 (old site-local),
//                      64:ff9b:1::/48 (local-use NAT64, RFC 8215)
//   link-local         169.254.0.0/16, fe80::/10
//   carrier-grade-nat  100.64.0.0/10
//   multicast          224.0.0.0/4, ff00::/8
//   broadcast          255.255.255.255/32
//   reserved           192.0.0.0/24 (IETF), 192.88.99.0/24 (6to4 relay), 240.0.0.0/4, 2001::/23 (IETF protocol
//                      assignments), and any IPv6 outside 2000::/3 not listed here (100::/64 discard, 5f00::/16 …)
//   documentation      192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24, 2001:db8::/32, 3fff::/20
//   benchmarking       198.18.0.0/15, 2001:2::/48
//   tunnel             2001::/32 Teredo (the real peer is hidden behind a relay; nobody serves webhooks there)
//   invalid            not a canonical IPv4 or IPv6 address
// IPv6 forms that carry an IPv4 address are judged by that IPv4 address: IPv4-mapped ::ffff:a.b.c.d,
// IPv4-compatible ::a.b.c.d, IPv4-translated ::ffff:0:a.b.c.d, NAT64 64:ff9b::a.b.c.d, 6to4 2002:aabb:ccdd::/48.
// Everything else is public and allowed. `allowPrivate` (OUTBOUND_ALLOW_PRIVATE) lifts every class but `invalid`.

import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

export type AddressRefusalReason =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'carrier-grade-nat'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'documentation'
  | 'benchmarking'
  | 'tunnel'
  | 'invalid';

export type AddressVerdict = { allowed: true } | { allowed: false; reason: AddressRefusalReason };

export interface AddressPolicyOptions {
  allowPrivate: boolean;
}

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;
type Rule<T> = readonly [reason: AddressRefusalReason, range: [T, number]];

const v4 = (cidr: string) => ipaddr.IPv4.parseCIDR(cidr);
const v6 = (cidr: string) => ipaddr.IPv6.parseCIDR(cidr);

const IPV4_RULES: readonly Rule<IPv4>[] = [
  ['unspecified', v4('0.0.0.0/8')],
  ['loopback', v4('127.0.0.0/8')],
  ['private', v4('10.0.0.0/8')],
  ['private', v4('172.16.0.0/12')],
  ['private', v4('192.168.0.0/16')],
  ['link-local', v4('169.254.0.0/16')],
  ['carrier-grade-nat', v4('100.64.0.0/10')],
  ['multicast', v4('224.0.0.0/4')],
  ['broadcast', v4('255.255.255.255/32')],
  ['documentation', v4('192.0.2.0/24')],
  ['documentation', v4('198.51.100.0/24')],
  ['documentation', v4('203.0.113.0/24')],
  ['benchmarking', v4('198.18.0.0/15')],
  ['reserved', v4('192.0.0.0/24')],
  ['reserved', v4('192.88.99.0/24')],
  ['reserved', v4('240.0.0.0/4')],
];

// Checked in order: the specific ranges inside 2001::/23 and 2000::/3 come before the ranges that contain them.
const IPV6_RULES: readonly Rule<IPv6>[] = [
  ['private', v6('fc00::/7')],
  ['private', v6('fec0::/10')],
  ['private', v6('64:ff9b:1::/48')],
  ['link-local', v6('fe80::/10')],
  ['multicast', v6('ff00::/8')],
  ['tunnel', v6('2001::/32')],
  ['benchmarking', v6('2001:2::/48')],
  ['documentation', v6('2001:db8::/32')],
  ['documentation', v6('3fff::/20')],
  ['reserved', v6('2001::/23')],
];

const UNSPECIFIED_V6 = v6('::/128');
const LOOPBACK_V6 = v6('::1/128');
const GLOBAL_UNICAST_V6 = v6('2000::/3');
const SIX_TO_FOUR = v6('2002::/16');

// Prefixes whose last 32 bits are an IPv4 address the traffic really goes to.
const LAST_32_BITS_IPV4: readonly [IPv6, number][] = [
  v6('::ffff:0:0/96'), // IPv4-mapped
  v6('::ffff:0:0:0/96'), // IPv4-translated (RFC 6145)
  v6('64:ff9b::/96'), // NAT64 well-known prefix (RFC 6052)
  v6('::/96'), // IPv4-compatible (deprecated)
];

const ALLOWED: AddressVerdict = { allowed: true };

/** Judges one IP address (as connected to, e.g. a DNS answer). */
export function classifyAddress(address: string, options: AddressPolicyOptions): AddressVerdict {
  if (isIP(address) === 0) return { allowed: false, reason: 'invalid' };
  if (options.allowPrivate) return ALLOWED;
  const reason = refusalReason(ipaddr.parse(address));
  return reason === null ? ALLOWED : { allowed: false, reason };
}

function refusalReason(ip: IPv4 | IPv6): AddressRefusalReason | null {
  return ip.kind() === 'ipv4' ? ipv4Refusal(ip as IPv4) : ipv6Refusal(ip as IPv6);
}

function ipv4Refusal(ip: IPv4): AddressRefusalReason | null {
  for (const [reason, range] of IPV4_RULES) if (ip.match(range)) return reason;
  return null;
}

function ipv6Refusal(ip: IPv6): AddressRefusalReason | null {
  // :: and ::1 lie inside the IPv4-compatible ::/96, so they are judged before any embedded IPv4 address.
  if (ip.match(UNSPECIFIED_V6)) return 'unspecified';
  if (ip.match(LOOPBACK_V6)) return 'loopback';
  const embedded = embeddedIPv4(ip);
  if (embedded !== null) return ipv4Refusal(embedded);
  for (const [reason, range] of IPV6_RULES) if (ip.match(range)) return reason;
  return ip.match(GLOBAL_UNICAST_V6) ? null : 'reserved';
}

function embeddedIPv4(ip: IPv6): IPv4 | null {
  const bytes = ip.toByteArray();
  if (LAST_32_BITS_IPV4.some((prefix) => ip.match(prefix))) return new ipaddr.IPv4(bytes.slice(12, 16));
  // 6to4: 2002:AABB:CCDD::/48 tunnels to the IPv4 address AA.BB.CC.DD.
  if (ip.match(SIX_TO_FOUR)) return new ipaddr.IPv4(bytes.slice(2, 6));
  return null;
}
