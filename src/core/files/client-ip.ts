// The client identity downloads are deduplicated by (DESIGN §8 "Downloads": client IP, IPv6 grouped by /64).
// One IPv6 subscriber usually holds a whole /64 and can pick a new address in it at will, so counting per
// address would let a single client inflate counts; an IPv4 address is already about one subscriber.
import { isIPv4, isIPv6 } from 'node:net';

const HEXTETS = 8;

/** The 8 hextets of a valid IPv6 address (zone id already removed), with `::` and a dotted tail expanded. */
function hextetsOf(address: string): number[] {
  let text = address.toLowerCase();
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    const [a = 0, b = 0, c = 0, d = 0] = tail.split('.').map(Number);
    text = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const gap = text.indexOf('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  let parts: string[];
  if (gap === -1) {
    parts = groups(text);
  } else {
    const before = groups(text.slice(0, gap));
    const after = groups(text.slice(gap + 2));
    parts = [...before, ...Array<string>(HEXTETS - before.length - after.length).fill('0'), ...after];
  }
  return parts.map((part) => Number.parseInt(part, 16));
}

const dotted = (high: number, low: number): string => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;

/**
 * The key a download is counted under for a client address:
 * - IPv4 as is;
 * - IPv4-mapped IPv6 (`::ffff:1.2.3.4`, also written `::ffff:102:304`) and the NAT64 well-known prefix
 *   (`64:ff9b::1.2.3.4`) as the IPv4 address they carry, so one client has one key whichever socket family
 *   it arrived on;
 * - any other IPv6 as its /64 prefix: the first four hextets, lower-case hex without leading zeros, then
 *   `::/64` (`2001:DB8:0:0a::1%eth0` → `2001:db8:0:a::/64`). Brackets and zone ids are ignored.
 * Anything that is not an IP address (a misconfigured proxy header) is returned trimmed and lower-cased, so it
 * still deduplicates against itself.
 */
export function downloadClientKey(ip: string): string {
  let address = ip.trim();
  if (address.startsWith('[') && address.endsWith(']')) address = address.slice(1, -1);
  const zone = address.indexOf('%');
  if (zone !== -1) address = address.slice(0, zone);
  if (isIPv4(address)) return address;
  if (!isIPv6(address)) return ip.trim().toLowerCase();

  const hextets = hextetsOf(address);
  const [h0 = 0, h1 = 0, h2 = 0, h3 = 0, h4 = 0, h5 = 0, h6 = 0, h7 = 0] = hextets;
  const ipv4Mapped = h0 === 0 && h1 === 0 && h2 === 0 && h3 === 0 && h4 === 0 && h5 === 0xffff;
  const nat64 = h0 === 0x64 && h1 === 0xff9b && h2 === 0 && h3 === 0 && h4 === 0 && h5 === 0;
  if (ipv4Mapped || nat64) return dotted(h6, h7);
  return `${[h0, h1, h2, h3].map((hextet) => hextet.toString(16)).join(':')}::/64`;
}
