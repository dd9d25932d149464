// /docs (swagger-ui) over plain HTTP (issue 11, defect 11): its Content-Security-Policy must not carry
// `upgrade-insecure-requests`, or a browser that opened http://some-host/docs rewrites every asset URL to
// https:// and the page stays blank. The rest of the policy stays strict.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';

let t: TestApp;

beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t.close();
});

/** The policy's directives by name. */
function directives(header: unknown): Map<string, string> {
  expect(typeof header).toBe('string');
  const entries = String(header)
    .split(';')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const [name = '', ...values] = part.split(/\s+/);
      return [name.toLowerCase(), values.join(' ')] as const;
    });
  return new Map(entries);
}

describe('GET /docs over plain HTTP', () => {
  it.each(['/docs', '/docs/', '/docs/static/swagger-initializer.js', '/docs/static/swagger-ui.css'])(
    '%s does not upgrade asset URLs to https',
    async (url) => {
      const response = await t.app.inject({ method: 'GET', url, headers: { host: 'docs.example:8080' } });
      expect(response.statusCode).toBe(200);
      const policy = directives(response.headers['content-security-policy']);
      expect(policy.has('upgrade-insecure-requests')).toBe(false);
    },
  );

  it('keeps a strict policy: same-origin scripts, no objects, no framing by others', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/docs' });
    const policy = directives(response.headers['content-security-policy']);
    expect(policy.get('default-src')).toBe("'self'");
    expect(policy.get('object-src')).toBe("'none'");
    expect(policy.get('frame-ancestors')).toBe("'self'");
    expect(policy.get('base-uri')).toBe("'self'");
    expect(policy.get('script-src')?.split(' ')).toContain("'self'");
    expect(policy.get('script-src')).not.toContain('unsafe-inline');
    expect(policy.get('script-src')).not.toContain('http:');
  });

  it('links its assets without a scheme or host, so they load from whatever host served /docs', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/docs', headers: { host: 'docs.example:8080' } });
    expect(page.statusCode).toBe(200);
    const links = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    expect(links.length).toBeGreaterThan(0);
    for (const link of links) expect(link).not.toMatch(/^[a-z]+:|^\/\//i);
  });
});
