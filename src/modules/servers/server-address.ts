// What a game client can connect to: an IPv4 or IPv6 address, or a DNS hostname (DESIGN §8 "Servers").
import { isIPv4, isIPv6 } from 'node:net';

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;

/**
 * RFC 1123 host names: dot-separated labels of letters, digits and inner hyphens, 1–63 characters each, 253 in
 * all, one trailing dot allowed. A name whose last label is all digits would be a malformed IPv4 address
 * ("1.2.3.999"), not a host name, so it is refused.
 */
export function isHostname(value: string): boolean {
  const name = value.endsWith('.') ? value.slice(0, -1) : value;
  if (name.length === 0 || name.length > 253) return false;
  const labels = name.split('.');
  if (!labels.every((label) => LABEL.test(label))) return false;
  return !/^\d+$/.test(labels[labels.length - 1]!);
}

/**
 * IPv6 is accepted bare: no brackets (the port is a separate field) and no zone index ("%eth0"), which only
 * means something on the local machine.
 */
export function isServerAddress(value: string): boolean {
  if (isIPv4(value)) return true;
  if (value.includes(':')) return !value.includes('%') && isIPv6(value);
  return isHostname(value);
}
