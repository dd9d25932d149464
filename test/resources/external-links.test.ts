// External links of a resource: create (type enum), list in order, update title/url, reorder (exact ids),
// delete with a gapless order, at most 20; links belong to their resource.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { expectError } from '../helpers/http.js';
import { createResourceCast, resourceFor } from './helpers.js';
import type { ResourceBody, ResourceCast } from './helpers.js';

interface LinkBody {
  id: string;
  title: string;
  url: string;
  type: string;
  order: number;
  createdAt: string;
  updatedAt: string;
}

let t: TestApp;
let cast: ResourceCast;

beforeAll(async () => {
  t = await buildTestApp();
  cast = await createResourceCast(t.app);
});
afterAll(async () => t.close());

async function addLink(resource: ResourceBody, title: string, type = 'WEBSITE'): Promise<LinkBody> {
  const response = await t.app.inject({
    method: 'POST',
    url: `/resources/${resource.id}/external-links`,
    headers: cast.owner.headers,
    payload: { title, url: `https://example.test/${encodeURIComponent(title)}`, type },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as LinkBody;
}

async function links(resource: ResourceBody): Promise<LinkBody[]> {
  const response = await t.app.inject({ method: 'GET', url: `/resources/${resource.id}/external-links` });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { externalLinks: LinkBody[] }).externalLinks;
}

describe('resource external links', () => {
  it('creates links in order and lists them publicly', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const code = await addLink(resource, 'Source', 'CODE_HOSTING');
    expect(code).toMatchObject({
      title: 'Source',
      url: 'https://example.test/Source',
      type: 'CODE_HOSTING',
      order: 0,
      createdAt: t.clock.now().toISOString(),
    });
    await addLink(resource, 'Discord', 'CHAT_COMMUNITY');
    await addLink(resource, 'Docs', 'DOCUMENTATION');
    expect((await links(resource)).map((link) => [link.title, link.order])).toEqual([
      ['Source', 0],
      ['Discord', 1],
      ['Docs', 2],
    ]);
  });

  it.each([
    ['an unknown type', { title: 'X', url: 'https://x.example', type: 'GITHUB' }],
    ['a non-http URL', { title: 'X', url: 'javascript:alert(1)', type: 'WEBSITE' }],
    ['an ftp URL', { title: 'X', url: 'ftp://x.example', type: 'WEBSITE' }],
    ['an empty title', { title: '', url: 'https://x.example', type: 'WEBSITE' }],
    [
      'a URL over 2,048 characters',
      { title: 'X', url: `https://x.example/${'a'.repeat(2048)}`, type: 'WEBSITE' },
    ],
    ['no type', { title: 'X', url: 'https://x.example' }],
  ])('refuses %s with 400', async (_what, payload) => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    expectError(
      await t.app.inject({
        method: 'POST',
        url: `/resources/${resource.id}/external-links`,
        headers: cast.owner.headers,
        payload,
      }),
      400,
    );
  });

  it('updates the title and URL only', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const link = await addLink(resource, 'Old', 'CODE_HOSTING');
    t.clock.advance(5000);
    const response = await t.app.inject({
      method: 'PATCH',
      url: `/resources/${resource.id}/external-links/${link.id}`,
      headers: cast.contributor.headers,
      payload: { title: 'New', url: 'https://new.example', type: 'OTHER' },
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({
      id: link.id,
      title: 'New',
      url: 'https://new.example',
      type: 'CODE_HOSTING',
      order: 0,
      updatedAt: t.clock.now().toISOString(),
    });
    const urlOnly = await t.app.inject({
      method: 'PATCH',
      url: `/resources/${resource.id}/external-links/${link.id}`,
      headers: cast.owner.headers,
      payload: { url: 'https://newer.example' },
    });
    expect(urlOnly.json()).toMatchObject({ title: 'New', url: 'https://newer.example' });
  });

  it('reorders with exactly the existing IDs, else 400', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const [a, b, c] = [
      await addLink(resource, 'A'),
      await addLink(resource, 'B'),
      await addLink(resource, 'C'),
    ];
    const reorder = (linkIds: string[]) =>
      t.app.inject({
        method: 'PATCH',
        url: `/resources/${resource.id}/external-links/reorder`,
        headers: cast.maintainer.headers,
        payload: { linkIds },
      });
    const response = await reorder([c.id, a.id, b.id]);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json() as { message: string; externalLinks: LinkBody[] };
    expect(body.message).toEqual(expect.any(String));
    expect(body.externalLinks.map((link) => [link.title, link.order])).toEqual([
      ['C', 0],
      ['A', 1],
      ['B', 2],
    ]);
    expect((await links(resource)).map((link) => link.title)).toEqual(['C', 'A', 'B']);
    for (const wrong of [
      [c.id, a.id],
      [c.id, a.id, b.id, b.id],
      [c.id, a.id, '01900000-0000-7000-8000-000000000000'],
      [],
    ]) {
      expectError(await reorder(wrong), 400, 'INVALID_REQUEST');
    }
    expect((await links(resource)).map((link) => link.title)).toEqual(['C', 'A', 'B']);
  });

  it('deletes a link (204) and keeps the order gapless', async () => {
    const resource = await resourceFor(t.app, cast, 'TEAM', 'APPROVED');
    const created: LinkBody[] = [];
    for (const title of ['A', 'B', 'C']) {
      const response = await t.app.inject({
        method: 'POST',
        url: `/resources/${resource.id}/external-links`,
        headers: cast.teamMember.headers,
        payload: { title, url: 'https://x.example', type: 'OTHER' },
      });
      created.push(response.json() as LinkBody);
    }
    const response = await t.app.inject({
      method: 'DELETE',
      url: `/resources/${resource.id}/external-links/${created[1]!.id}`,
      headers: cast.teamModerator.headers,
    });
    expect(response.statusCode, response.body).toBe(204);
    expect((await links(resource)).map((link) => [link.title, link.order])).toEqual([
      ['A', 0],
      ['C', 1],
    ]);
  });

  it('allows at most 20 links (409 LIMIT_REACHED), even when created at once', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const responses = await Promise.all(
      Array.from({ length: 23 }, (_, i) =>
        t.app.inject({
          method: 'POST',
          url: `/resources/${resource.id}/external-links`,
          headers: cast.owner.headers,
          payload: { title: `Link ${i}`, url: 'https://x.example', type: 'WEBSITE' },
        }),
      ),
    );
    expect(responses.filter((r) => r.statusCode === 201)).toHaveLength(20);
    for (const refused of responses.filter((r) => r.statusCode !== 201))
      expectError(refused, 409, 'LIMIT_REACHED');
    const listed = await links(resource);
    expect(listed.map((link) => link.order)).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it('a link of another resource is 404 on this one', async () => {
    const [mine, theirs] = [
      await resourceFor(t.app, cast, 'USER', 'APPROVED'),
      await resourceFor(t.app, cast, 'USER', 'APPROVED'),
    ];
    const link = await addLink(theirs, 'Theirs');
    for (const [method, payload] of [
      ['PATCH', { title: 'Hijacked' }],
      ['DELETE', undefined],
    ] as const) {
      expectError(
        await t.app.inject({
          method,
          url: `/resources/${mine.id}/external-links/${link.id}`,
          headers: cast.owner.headers,
          ...(payload ? { payload } : {}),
        }),
        404,
      );
    }
    expect((await links(theirs)).map((l) => l.title)).toEqual(['Theirs']);
  });

  it('answers 404 for an unknown resource', async () => {
    const url = '/resources/01900000-0000-7000-8000-000000000000/external-links';
    expectError(await t.app.inject({ method: 'GET', url }), 404);
    expectError(
      await t.app.inject({
        method: 'POST',
        url,
        headers: cast.owner.headers,
        payload: { title: 'X', url: 'https://x.example', type: 'WEBSITE' },
      }),
      404,
    );
  });
});
