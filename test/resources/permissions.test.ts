// Every resource endpoint × every persona, for a user-owned and a team-owned resource, PENDING and APPROVED:
// the status each persona gets. Each case runs on a fresh resource so a successful write cannot leak.
import type { InjectOptions } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import type { TestUser } from '../helpers/factories.js';
import { expectError, multipart } from '../helpers/http.js';
import { pngImage } from '../fixtures/images.js';
import {
  RESOURCE_PERSONAS,
  addContributor,
  createResourceCast,
  expectResourceInvariants,
  headersOf,
  resourceFor,
} from './helpers.js';
import type { ResourceBody, ResourceCast, ResourcePersona } from './helpers.js';

let t: TestApp;
let cast: ResourceCast;
/** A third contributor: the target of role changes and removals, so no persona acts on itself. */
let extra: TestUser;
let png: Buffer;

beforeAll(async () => {
  t = await buildTestApp();
  cast = await createResourceCast(t.app);
  extra = await createUser(t.app);
  png = await pngImage(32, 32);
});
afterAll(async () => t.close());
afterEach(async () => expectResourceInvariants(t.app));

/** How a persona relates to the resource under test. */
type Relation = 'owner' | 'member' | 'contributor' | 'maintainer' | 'none' | 'staff' | 'anonymous';

const RELATIONS: Record<'USER' | 'TEAM', Record<ResourcePersona, Relation>> = {
  USER: {
    owner: 'owner',
    teamOwner: 'none',
    teamAdmin: 'none',
    teamModerator: 'none',
    teamMember: 'none',
    contributor: 'contributor',
    maintainer: 'maintainer',
    stranger: 'none',
    moderator: 'staff',
    admin: 'staff',
    anonymous: 'anonymous',
  },
  TEAM: {
    owner: 'none',
    teamOwner: 'owner',
    teamAdmin: 'owner',
    teamModerator: 'member',
    teamMember: 'member',
    contributor: 'contributor',
    maintainer: 'maintainer',
    stranger: 'none',
    moderator: 'staff',
    admin: 'staff',
    anonymous: 'anonymous',
  },
};

type Status = 'PENDING' | 'APPROVED';
type Expected = Record<Relation, number>;
/** Outsiders get 404 while the resource is hidden, `visible` once it is APPROVED. */
const hidden = (status: Status, visible: number) => (status === 'PENDING' ? 404 : visible);

const view = (s: Status, ok = 200): Expected => ({
  owner: ok,
  member: ok,
  contributor: ok,
  maintainer: ok,
  none: hidden(s, ok),
  staff: ok,
  anonymous: hidden(s, ok),
});
const signedInView = (s: Status, ok = 200): Expected => ({ ...view(s, ok), anonymous: 401 });
const edit = (s: Status, ok = 200): Expected => ({
  owner: ok,
  member: ok,
  contributor: ok,
  maintainer: ok,
  none: hidden(s, 403),
  staff: 403,
  anonymous: 401,
});
const ownerOnly = (s: Status, ok: number): Expected => ({
  ...edit(s, ok),
  member: 403,
  contributor: 403,
  maintainer: 403,
});
const manageContributors = (s: Status): Expected => ({ ...ownerOnly(s, 200), maintainer: 200 });
const staffOnly = (ok = 200): Expected => ({
  owner: 403,
  member: 403,
  contributor: 403,
  maintainer: 403,
  none: 403,
  staff: ok,
  anonymous: 401,
});

interface Case {
  name: string;
  request: (r: ResourceBody) => InjectOptions | Promise<InjectOptions>;
  expected: (status: Status) => Expected;
}

const upload = async (url: string, field: string): Promise<InjectOptions> => {
  const body = await multipart(field, { data: png, name: 'image.png', type: 'image/png' });
  return { method: 'POST', url, headers: body.headers, payload: body.payload };
};

const CASES: Case[] = [
  {
    name: 'GET /resources/:id',
    request: (r) => ({ method: 'GET', url: `/resources/${r.id}` }),
    expected: view,
  },
  {
    name: 'GET /resources/slug/:slug',
    request: (r) => ({ method: 'GET', url: `/resources/slug/${r.slug}` }),
    expected: view,
  },
  {
    name: 'PATCH /resources/:id',
    request: (r) => ({ method: 'PATCH', url: `/resources/${r.id}`, payload: { name: 'Renamed' } }),
    expected: edit,
  },
  {
    name: 'DELETE /resources/:id',
    request: (r) => ({ method: 'DELETE', url: `/resources/${r.id}` }),
    expected: (s) => ownerOnly(s, 204),
  },
  {
    name: 'POST /resources/:id/icon',
    request: (r) => upload(`/resources/${r.id}/icon`, 'icon'),
    expected: edit,
  },
  {
    name: 'POST /resources/:id/banner',
    request: (r) => upload(`/resources/${r.id}/banner`, 'banner'),
    expected: edit,
  },
  {
    name: 'DELETE /resources/:id/icon',
    request: (r) => ({ method: 'DELETE', url: `/resources/${r.id}/icon` }),
    expected: edit,
  },
  {
    name: 'GET /resources/:id/external-links',
    request: (r) => ({ method: 'GET', url: `/resources/${r.id}/external-links` }),
    expected: view,
  },
  {
    name: 'POST /resources/:id/external-links',
    request: (r) => ({
      method: 'POST',
      url: `/resources/${r.id}/external-links`,
      payload: { title: 'Source', url: 'https://code.example/repo', type: 'CODE_HOSTING' },
    }),
    expected: (s) => edit(s, 201),
  },
  {
    name: 'PATCH /resources/:id/external-links/reorder',
    request: (r) => ({
      method: 'PATCH',
      url: `/resources/${r.id}/external-links/reorder`,
      payload: { linkIds: [] },
    }),
    expected: edit,
  },
  {
    name: 'POST /resources/:resourceId/contributors',
    request: async (r) => ({
      method: 'POST',
      url: `/resources/${r.id}/contributors`,
      payload: { userId: (await createUser(t.app)).id, role: 'CONTRIBUTOR' },
    }),
    expected: (s) => ownerOnly(s, 201),
  },
  {
    name: 'GET /resources/:resourceId/contributors',
    request: (r) => ({ method: 'GET', url: `/resources/${r.id}/contributors` }),
    expected: signedInView,
  },
  {
    name: 'PATCH /resources/:resourceId/contributors/:userId',
    request: (r) => ({
      method: 'PATCH',
      url: `/resources/${r.id}/contributors/${extra.id}`,
      payload: { role: 'MAINTAINER' },
    }),
    expected: manageContributors,
  },
  {
    name: 'DELETE /resources/:resourceId/contributors/:userId',
    request: (r) => ({ method: 'DELETE', url: `/resources/${r.id}/contributors/${extra.id}` }),
    expected: manageContributors,
  },
  {
    name: 'POST /resources/:resourceId/likes',
    request: (r) => ({ method: 'POST', url: `/resources/${r.id}/likes` }),
    expected: signedInView,
  },
  {
    name: 'GET /resources/:resourceId/likes',
    request: (r) => ({ method: 'GET', url: `/resources/${r.id}/likes` }),
    expected: view,
  },
  {
    name: 'GET /resources/:resourceId/likes/me',
    request: (r) => ({ method: 'GET', url: `/resources/${r.id}/likes/me` }),
    expected: signedInView,
  },
  {
    name: 'POST /resources/:resourceId/favorites',
    request: (r) => ({ method: 'POST', url: `/resources/${r.id}/favorites` }),
    expected: signedInView,
  },
  {
    name: 'DELETE /resources/:resourceId/favorites',
    request: (r) => ({ method: 'DELETE', url: `/resources/${r.id}/favorites` }),
    expected: signedInView,
  },
  {
    name: 'POST /resources/description-images/:resourceId/upload',
    request: (r) => upload(`/resources/description-images/${r.id}/upload`, 'file'),
    expected: (s) => edit(s, 201),
  },
  {
    name: 'GET /resources/description-images/:resourceId/temporary',
    request: (r) => ({ method: 'GET', url: `/resources/description-images/${r.id}/temporary` }),
    expected: signedInView,
  },
  {
    name: 'PATCH /resources/moderation/:id/moderate',
    request: (r) => ({
      method: 'PATCH',
      url: `/resources/moderation/${r.id}/moderate`,
      payload: { action: r.status === 'PENDING' ? 'APPROVE' : 'SUSPEND' },
    }),
    expected: () => staffOnly(),
  },
  {
    name: 'GET /resources/moderation/:id/history',
    request: (r) => ({ method: 'GET', url: `/resources/moderation/${r.id}/history` }),
    expected: () => staffOnly(),
  },
];

const MATRIX = (['USER', 'TEAM'] as const).flatMap((kind) =>
  (['PENDING', 'APPROVED'] as const).flatMap((status) =>
    CASES.flatMap((c) =>
      RESOURCE_PERSONAS.map((persona) => ({
        ...c,
        kind,
        status,
        persona,
        expectedStatus: c.expected(status)[RELATIONS[kind][persona]],
      })),
    ),
  ),
);

describe('endpoint × persona × owner kind × status', () => {
  it.each(MATRIX)(
    '$name on a $status $kind resource as $persona → $expectedStatus',
    async ({ request, kind, status, persona, expectedStatus }) => {
      const resource = await resourceFor(t.app, cast, kind, status);
      await addContributor(
        t.app,
        kind === 'USER' ? cast.owner : cast.teamOwner,
        resource.id,
        extra,
        'CONTRIBUTOR',
      );
      const options = await request(resource);
      const response = await t.app.inject({
        ...options,
        headers: { ...(options.headers as Record<string, string> | undefined), ...headersOf(cast, persona) },
      });
      if (expectedStatus >= 400) expectError(response, expectedStatus);
      else expect(response.statusCode, response.body).toBe(expectedStatus);
    },
  );
});
