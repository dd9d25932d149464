// Feed fixtures: feeds read through the real app and parsed by a real feed parser, and resources and versions
// moved to APPROVED through the real moderation routes, each at its own ManualClock instant.
import { parseFeed } from '@rowanmanning/feed-parser';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { App } from '../../src/app.js';
import type { ManualClock } from '../../src/core/clock.js';
import type { TestUser } from '../helpers/factories.js';
import { createResource, moderate } from '../resources/helpers.js';
import type { ResourceBody } from '../resources/helpers.js';
import { act, gameVersionIds, uploadFile, versionUrl, versionsUrl } from '../versions/helpers.js';
import type { VersionBody } from '../versions/helpers.js';

export const PUBLIC_URL = 'http://api.test';

export type ParsedFeed = ReturnType<typeof parseFeed>;

/** GET a feed: 200, Atom content type and caching, a valid Atom 1.0 document with its required elements. */
export async function readFeed(
  app: App,
  url: string,
  headers: Record<string, string> = {},
): Promise<{ feed: ParsedFeed; response: LightMyRequestResponse }> {
  const response = await app.inject({ method: 'GET', url, headers });
  expect(response.statusCode, response.body).toBe(200);
  expect(response.headers['content-type']).toBe('application/atom+xml; charset=utf-8');
  expect(response.headers['cache-control']).toBe('public, max-age=60');
  expect(response.headers['etag']).toMatch(/^W\/"/);
  expect(response.body).toMatch(
    /^<\?xml version="1.0" encoding="utf-8"\?>\s*<feed xmlns="http:\/\/www.w3.org\/2005\/Atom">/,
  );
  const feed = parseFeed(response.body);
  expect(feed.meta).toEqual({ type: 'atom', version: '1.0' });
  expect(feed.title).toEqual(expect.any(String));
  expect(feed.updated).toBeInstanceOf(Date);
  expect(feed.self).toBe(`${PUBLIC_URL}${url.split('?')[0]}${feedQuery(url)}`);
  // The feed id is its own URL.
  expect(response.body).toMatch(new RegExp(`<feed[^>]*>\\s*<id>${escapeRegExp(escapeXml(feed.self!))}</id>`));
  for (const item of feed.items) {
    expect(item.id).toBe(item.url);
    expect(item.url?.startsWith(`${PUBLIC_URL}/resources/`)).toBe(true);
    expect(item.title).toEqual(expect.any(String));
    expect(item.updated).toBeInstanceOf(Date);
    expect(item.published).toBeInstanceOf(Date);
    expect(item.authors.length).toBeGreaterThan(0);
  }
  return { feed, response };
}

/** The canonical query of a catalogue feed's self link: the service sorts values and orders the filters. */
function feedQuery(url: string): string {
  const query = url.split('?')[1];
  if (query === undefined) return '';
  const given = new URLSearchParams(query);
  const canonical = new URLSearchParams();
  const type = given.get('type');
  if (type !== null) canonical.set('type', type);
  for (const name of ['tags', 'categories']) {
    const values = [...new Set(given.getAll(name).flatMap((value) => value.split(',')))].sort();
    if (values.length > 0) canonical.set(name, values.join(','));
  }
  return canonical.size === 0 ? '' : `?${canonical.toString()}`;
}

const escapeXml = (text: string) => text.replace(/&/g, '&amp;');
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export const resourceLink = (id: string) => `${PUBLIC_URL}/resources/${id}`;
export const versionLink = (resourceId: string, id: string) =>
  `${PUBLIC_URL}/resources/${resourceId}/versions/${id}`;

/** A resource created and approved at its own instants; returns it with the approval time. */
export async function approvedResource(
  app: App,
  clock: ManualClock,
  actors: { owner: TestUser; moderator: TestUser },
  body: Record<string, unknown> = {},
): Promise<ResourceBody & { approvedAt: string }> {
  clock.advance(1000);
  const resource = await createResource(app, actors.owner, body);
  clock.advance(1000);
  const approvedAt = clock.now().toISOString();
  return { ...(await moderate(app, actors.moderator, resource.id, 'APPROVE')), approvedAt };
}

/** A submitted version with one file (and a changelog when given), not yet moderated. */
export async function submittedVersion(
  app: App,
  clock: ManualClock,
  editor: TestUser,
  resourceId: string,
  body: { versionNumber: string; name?: string; changelog?: string },
): Promise<VersionBody> {
  clock.advance(1000);
  const [gameVersion] = await gameVersionIds(app);
  const created = await app.inject({
    method: 'POST',
    url: versionsUrl(resourceId),
    headers: editor.headers,
    payload: {
      versionNumber: body.versionNumber,
      channel: 'RELEASE',
      compatibleGameVersionIds: [gameVersion],
      ...(body.name !== undefined ? { name: body.name } : {}),
    },
  });
  expect(created.statusCode, created.body).toBe(201);
  const version = created.json<VersionBody>();
  await uploadFile(app, editor, resourceId, version.id);
  if (body.changelog !== undefined) {
    const response = await app.inject({
      method: 'PATCH',
      url: `${versionUrl(resourceId, version.id)}/changelog`,
      headers: editor.headers,
      payload: { changelog: body.changelog },
    });
    expect(response.statusCode, response.body).toBe(200);
  }
  return act(app, editor, resourceId, version.id, 'submit');
}

/** A version approved at its own instant; returns it with the approval time. */
export async function approvedVersion(
  app: App,
  clock: ManualClock,
  actors: { editor: TestUser; moderator: TestUser },
  resourceId: string,
  body: { versionNumber: string; name?: string; changelog?: string },
): Promise<VersionBody & { approvedAt: string }> {
  const version = await submittedVersion(app, clock, actors.editor, resourceId, body);
  return approve(app, clock, actors.moderator, resourceId, version.id);
}

export async function approve(
  app: App,
  clock: ManualClock,
  moderator: TestUser,
  resourceId: string,
  versionId: string,
): Promise<VersionBody & { approvedAt: string }> {
  clock.advance(1000);
  const approvedAt = clock.now().toISOString();
  return { ...(await act(app, moderator, resourceId, versionId, 'approve')), approvedAt };
}

/** The entry links of a feed, in document order. */
export const links = (feed: ParsedFeed) => feed.items.map((item) => item.url);
