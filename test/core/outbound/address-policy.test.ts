import { describe, expect, it } from 'vitest';
import { type AddressRefusalReason, classifyAddress } from '../../../src/core/outbound/address-policy.js';

const guarded = { allowPrivate: false };

const REFUSED: [string, AddressRefusalReason][] = [
  // IPv4
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['10.0.0.1', 'private'],
  ['10.255.255.255', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.254', 'private'],
  ['192.168.1.1', 'private'],
  ['169.254.169.254', 'link-local'],
  ['100.64.0.1', 'carrier-grade-nat'],
  ['100.127.255.254', 'carrier-grade-nat'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['255.255.255.255', 'broadcast'],
  ['240.0.0.1', 'reserved'],
  ['192.0.0.8', 'reserved'],
  ['192.88.99.1', 'reserved'],
  ['192.0.2.1', 'documentation'],
  ['198.51.100.7', 'documentation'],
  ['203.0.113.9', 'documentation'],
  ['198.18.0.1', 'benchmarking'],
  ['198.19.255.254', 'benchmarking'],
  // IPv6
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['fc00::1', 'private'],
  ['fd12:3456:789a::1', 'private'],
  ['fec0::1', 'private'],
  ['64:ff9b:1::a00:1', 'private'],
  ['fe80::1', 'link-local'],
  ['febf:ffff::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['ff02::1', 'multicast'],
  ['ff0e::101', 'multicast'],
  ['2001:db8::1', 'documentation'],
  ['3fff::1', 'documentation'],
  ['2001:2::1', 'benchmarking'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'tunnel'],
  ['2001:10::1', 'reserved'],
  ['100::1', 'reserved'],
  ['5f00::1', 'reserved'],
  // IPv6 forms carrying an IPv4 address are judged by it
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::ffff:10.1.2.3', 'private'],
  ['::ffff:169.254.169.254', 'link-local'],
  ['::ffff:0.0.0.0', 'unspecified'],
  ['::127.0.0.1', 'loopback'],
  ['::192.168.0.1', 'private'],
  ['::ffff:0:10.0.0.1', 'private'],
  ['64:ff9b::127.0.0.1', 'loopback'],
  ['64:ff9b::a9fe:a9fe', 'link-local'],
  ['64:ff9b::100.64.0.1', 'carrier-grade-nat'],
  ['2002:7f00:1::', 'loopback'],
  ['2002:c0a8:101::1', 'private'],
  ['2002:a9fe:a9fe:1::1', 'link-local'],
  ['2002:e000:1::', 'multicast'],
];

const PUBLIC = [
  '8.8.8.8',
  '1.1.1.1',
  '93.184.215.14',
  '172.32.0.1', // just outside 172.16/12
  '100.128.0.1', // just outside 100.64/10
  '2606:4700::1111',
  '2a00:1450:4001:82a::200e',
  '::ffff:8.8.8.8',
  '64:ff9b::8.8.8.8',
  '2002:808:808::1',
];

describe('classifyAddress', () => {
  it.each(REFUSED)('refuses %s as %s', (address, reason) => {
    expect(classifyAddress(address, guarded)).toEqual({ allowed: false, reason });
  });

  it.each(PUBLIC)('allows the public address %s', (address) => {
    expect(classifyAddress(address, guarded)).toEqual({ allowed: true });
  });

  it.each(REFUSED.map(([address]) => address))('allowPrivate lifts the refusal of %s', (address) => {
    expect(classifyAddress(address, { allowPrivate: true })).toEqual({ allowed: true });
  });

  it.each(['localhost', '', '127.1', '0x7f000001', '2130706433', '1.2.3.4.5', '[::1]'])(
    'refuses %j as not a canonical IP address, even with allowPrivate',
    (address) => {
      expect(classifyAddress(address, guarded)).toEqual({ allowed: false, reason: 'invalid' });
      expect(classifyAddress(address, { allowPrivate: true })).toEqual({ allowed: false, reason: 'invalid' });
    },
  );
});
