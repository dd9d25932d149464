// downloadClientKey: IPv4 as is, IPv4 carried in IPv6 unwrapped, other IPv6 grouped by /64 in one spelling.
import { describe, expect, it } from 'vitest';
import { downloadClientKey } from '../../../src/core/files/client-ip.js';

describe('downloadClientKey', () => {
  it.each([
    ['1.2.3.4', '1.2.3.4'],
    ['203.0.113.250', '203.0.113.250'],
    ['  10.0.0.1 ', '10.0.0.1'],
    ['::ffff:1.2.3.4', '1.2.3.4'],
    ['::FFFF:1.2.3.4', '1.2.3.4'],
    ['0:0:0:0:0:ffff:1.2.3.4', '1.2.3.4'],
    ['::ffff:102:304', '1.2.3.4'],
    ['64:ff9b::198.51.100.7', '198.51.100.7'],
    ['::1', '0:0:0:0::/64'],
    ['::', '0:0:0:0::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['2001:0DB8:0000:000A:0000:0000:0000:0001', '2001:db8:0:a::/64'],
    ['2001:db8:0:a:ffff:eeee:dddd:cccc', '2001:db8:0:a::/64'],
    ['2001:DB8:0:A::FFFF', '2001:db8:0:a::/64'],
    ['2001:db8:1:2:3::', '2001:db8:1:2::/64'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1::2:3:4', '2001:db8:1:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['FE80::ABCD%25en0', 'fe80:0:0:0::/64'],
    ['[2001:db8::7]', '2001:db8:0:0::/64'],
    ['::1.2.3.4', '0:0:0:0::/64'],
  ])('%s → %s', (ip, key) => {
    expect(downloadClientKey(ip)).toBe(key);
  });

  it('gives every address of one /64 the same key and neighbouring /64s different ones', () => {
    const sameNetwork = [
      '2a02:8070:a1b2:c3d4::1',
      '2a02:8070:a1b2:c3d4:9f0e:1234:5678:9abc',
      '2A02:8070:A1B2:C3D4::',
    ];
    expect(new Set(sameNetwork.map(downloadClientKey))).toEqual(new Set(['2a02:8070:a1b2:c3d4::/64']));
    expect(downloadClientKey('2a02:8070:a1b2:c3d5::1')).not.toBe(downloadClientKey(sameNetwork[0]!));
  });

  it('keeps something that is not an address, so it still deduplicates against itself', () => {
    expect(downloadClientKey('Unknown')).toBe('unknown');
    expect(downloadClientKey('1.2.3')).toBe('1.2.3');
  });
});
