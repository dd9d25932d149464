import { describe, it, expect } from 'vitest';
import { attachmentDisposition, signUrl, verifySignature } from '../../src/core/storage/signed-urls.js';

const secret = 'test-secret-that-is-at-least-32-characters-long';
const now = new Date('2026-01-15T12:00:00.000Z');
const nowSeconds = Math.floor(now.getTime() / 1000);
const key = 'files/version-1/file-1';
const downloadName = 'My Map (v1.2) – ünïcode.zip';

function parts(url: string) {
  const parsed = new URL(url);
  return {
    path: parsed.pathname,
    expires: parsed.searchParams.get('expires') ?? '',
    name: parsed.searchParams.get('name') ?? '',
    signature: parsed.searchParams.get('signature') ?? '',
  };
}

describe('signed URLs', () => {
  const url = signUrl({
    cdnUrl: 'http://cdn.test/cdn',
    key,
    downloadName,
    expiresAt: nowSeconds + 3600,
    secret,
  });
  const signed = parts(url);

  it('maps the key straight onto the CDN path and round-trips', () => {
    expect(url.startsWith(`http://cdn.test/cdn/${key}?`)).toBe(true);
    expect(signed.path).toBe(`/cdn/${key}`);
    expect(signed.expires).toBe(String(nowSeconds + 3600));
    expect(signed.name).toBe(downloadName);
    expect(signed.signature).toMatch(/^[0-9a-f]{64}$/);
    expect(verifySignature({ key, ...signed, secret, now })).toBe(true);
  });

  it('rejects an altered key, expiry, name, signature or secret', () => {
    expect(verifySignature({ key: 'files/version-1/file-2', ...signed, secret, now })).toBe(false);
    expect(verifySignature({ key, ...signed, expires: String(nowSeconds + 7200), secret, now })).toBe(false);
    expect(verifySignature({ key, ...signed, name: 'other.zip', secret, now })).toBe(false);
    const flipped = (signed.signature[0] === 'a' ? 'b' : 'a') + signed.signature.slice(1);
    expect(verifySignature({ key, ...signed, signature: flipped, secret, now })).toBe(false);
    expect(verifySignature({ key, ...signed, secret: `${secret}x`, now })).toBe(false);
  });

  it('rejects malformed signatures and expiries without throwing', () => {
    for (const signature of [
      '',
      'abc',
      signed.signature.slice(0, 62),
      `${signed.signature}00`,
      'z'.repeat(64),
    ]) {
      expect(verifySignature({ key, ...signed, signature, secret, now })).toBe(false);
    }
    for (const expires of ['', 'soon', '-1', '1e12', `${nowSeconds + 3600}.0`]) {
      expect(verifySignature({ key, ...signed, expires, secret, now })).toBe(false);
    }
  });

  it('rejects an expired link', () => {
    const later = new Date((nowSeconds + 3600) * 1000);
    expect(verifySignature({ key, ...signed, secret, now: new Date(later.getTime() - 1000) })).toBe(true);
    expect(verifySignature({ key, ...signed, secret, now: later })).toBe(false);
  });

  it('only signs keys under files/', () => {
    expect(() =>
      signUrl({
        cdnUrl: 'http://cdn.test',
        key: 'images/a.png',
        downloadName,
        expiresAt: nowSeconds,
        secret,
      }),
    ).toThrow();
    expect(() =>
      signUrl({ cdnUrl: 'http://cdn.test', key: 'files/../x', downloadName, expiresAt: nowSeconds, secret }),
    ).toThrow();
  });

  it('builds an attachment disposition with an ASCII fallback and the UTF-8 name', () => {
    expect(attachmentDisposition('plain.zip')).toBe(
      `attachment; filename="plain.zip"; filename*=UTF-8''plain.zip`,
    );
    const header = attachmentDisposition('naïve "map"\r\n(1).zip');
    expect(header).toBe(
      `attachment; filename="na_ve _map___(1).zip"; filename*=UTF-8''na%C3%AFve%20%22map%22%0D%0A%281%29.zip`,
    );
    expect(attachmentDisposition('\ud800.zip')).toContain(`filename*=UTF-8''%EF%BF%BD.zip`);
  });
});
