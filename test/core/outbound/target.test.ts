import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/core/http/errors.js';
import {
  checkTargetUrl,
  type Lookup,
  outboundTargetRefused,
  requireAllowedTarget,
} from '../../../src/core/outbound/target.js';

const guarded = { allowPrivate: false };

/** A resolver that answers every name with the given addresses and records the names asked. */
function answering(...addresses: string[]): Lookup & { asked: string[] } {
  const asked: string[] = [];
  const lookup = async (hostname: string) => {
    asked.push(hostname);
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(lookup, { asked });
}

const failing: Lookup = async (hostname) => {
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
};

describe('checkTargetUrl', () => {
  it('allows an https URL whose host resolves to public addresses only, with any port', async () => {
    const lookup = answering('93.184.215.14', '2606:4700::1111');
    const check = await checkTargetUrl('https://hooks.example.com:8443/in?x=1', { ...guarded, lookup });
    expect(check).toMatchObject({ allowed: true, hostname: 'hooks.example.com' });
    expect(check.allowed && check.addresses.map((a) => a.address)).toEqual([
      '93.184.215.14',
      '2606:4700::1111',
    ]);
    expect(lookup.asked).toEqual(['hooks.example.com']);
  });

  it('refuses plain http unless private targets are allowed', async () => {
    const lookup = answering('93.184.215.14');
    expect(await checkTargetUrl('http://hooks.example.com/', { ...guarded, lookup })).toEqual({
      allowed: false,
      reason: 'scheme',
    });
    expect(await checkTargetUrl('http://hooks.example.com/', { allowPrivate: true, lookup })).toMatchObject({
      allowed: true,
    });
    expect(
      await checkTargetUrl('http://hooks.example.com/', { allowPrivate: true, requireHttps: true, lookup }),
    ).toEqual({ allowed: false, reason: 'scheme' });
  });

  it.each([
    'ftp://hooks.example.com/',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'ws://hooks.example.com/',
  ])('refuses the scheme of %s even with allowPrivate', async (url) => {
    const check = await checkTargetUrl(url, { allowPrivate: true, lookup: answering('93.184.215.14') });
    expect(check).toEqual({ allowed: false, reason: 'scheme' });
  });

  it.each(['/relative/path', 'hooks.example.com/in', '', 'https://'])(
    'refuses %j as not a URL',
    async (url) => {
      expect(await checkTargetUrl(url, { ...guarded, lookup: answering('93.184.215.14') })).toEqual({
        allowed: false,
        reason: 'not-a-url',
      });
    },
  );

  it.each([
    'https://user:pass@hooks.example.com/',
    'https://user@hooks.example.com/',
    'https://:pw@hooks.example.com/',
  ])('refuses userinfo in %s', async (url) => {
    const lookup = answering('93.184.215.14');
    expect(await checkTargetUrl(url, { ...guarded, lookup })).toEqual({ allowed: false, reason: 'userinfo' });
    expect(lookup.asked).toEqual([]);
  });

  it.each(['https://localhost/', 'https://LOCALHOST./x', 'https://api.localhost:8443/'])(
    'refuses %s as loopback without asking DNS',
    async (url) => {
      const lookup = answering('93.184.215.14');
      expect(await checkTargetUrl(url, { ...guarded, lookup })).toEqual({
        allowed: false,
        reason: 'loopback',
      });
      expect(lookup.asked).toEqual([]);
    },
  );

  it('refuses a name whose DNS answer is a private address', async () => {
    const lookup = answering('10.0.0.7');
    expect(await checkTargetUrl('https://intranet.example.com/', { ...guarded, lookup })).toEqual({
      allowed: false,
      reason: 'private',
    });
  });

  it('refuses a name when any one of its addresses is refused, whatever the order', async () => {
    for (const lookup of [answering('93.184.215.14', '169.254.169.254'), answering('::1', '93.184.215.14')]) {
      const check = await checkTargetUrl('https://mixed.example.com/', { ...guarded, lookup });
      expect(check.allowed).toBe(false);
    }
  });

  it.each([
    ['https://127.0.0.1/', 'loopback'],
    ['https://0x7f.1/', 'loopback'], // the URL parser normalises it to 127.0.0.1
    ['https://2130706433/', 'loopback'],
    ['https://[::1]:8443/', 'loopback'],
    ['https://[::ffff:192.168.0.1]/', 'private'],
    ['https://[64:ff9b::a9fe:a9fe]/', 'link-local'],
    ['https://169.254.169.254/latest/meta-data', 'link-local'],
  ])('refuses the IP literal in %s as %s without asking DNS', async (url, reason) => {
    const lookup = answering('93.184.215.14');
    expect(await checkTargetUrl(url, { ...guarded, lookup })).toEqual({ allowed: false, reason });
    expect(lookup.asked).toEqual([]);
  });

  it('allows a public IP literal without asking DNS', async () => {
    const lookup = answering('10.0.0.1');
    const check = await checkTargetUrl('https://[2606:4700::1111]/hook', { ...guarded, lookup });
    expect(check).toMatchObject({ allowed: true, addresses: [{ address: '2606:4700::1111', family: 6 }] });
    expect(lookup.asked).toEqual([]);
  });

  it('refuses a host that does not resolve, or resolves to nothing, as unresolvable', async () => {
    for (const lookup of [failing, answering()]) {
      expect(await checkTargetUrl('https://nowhere.example.com/', { ...guarded, lookup })).toEqual({
        allowed: false,
        reason: 'unresolvable',
      });
    }
  });

  it('lets loopback through with allowPrivate', async () => {
    expect(await checkTargetUrl('http://127.0.0.1:3000/hook', { allowPrivate: true })).toMatchObject({
      allowed: true,
      addresses: [{ address: '127.0.0.1', family: 4 }],
    });
    expect(await checkTargetUrl('http://localhost:3000/hook', { allowPrivate: true })).toMatchObject({
      allowed: true,
    });
  });
});

describe('outboundTargetRefused / requireAllowedTarget', () => {
  it('builds the 400 OUTBOUND_TARGET_REFUSED with the reason and no resolved address', async () => {
    const error = outboundTargetRefused('private');
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({
      statusCode: 400,
      code: 'OUTBOUND_TARGET_REFUSED',
      details: { reason: 'private' },
    });

    const lookup = answering('10.20.30.40');
    const thrown = await requireAllowedTarget('https://intranet.example.com/', { ...guarded, lookup }).catch(
      (caught: unknown) => caught,
    );
    expect(thrown).toMatchObject({
      statusCode: 400,
      code: 'OUTBOUND_TARGET_REFUSED',
      details: { reason: 'private' },
    });
    expect((thrown as Error).message).not.toContain('10.20.30.40');
  });

  it('returns the parsed URL when allowed', async () => {
    const url = await requireAllowedTarget('https://hooks.example.com/in', {
      ...guarded,
      lookup: answering('93.184.215.14'),
    });
    expect(url.href).toBe('https://hooks.example.com/in');
  });
});
