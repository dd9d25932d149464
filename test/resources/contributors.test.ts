// Contributors: the resource owner adds them; owner or maintainer changes roles and removes them; a
// contributor may leave; contributors get the rights the interface grants "owner or contributor".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import type { TestUser } from '../helpers/factories.js';
import { expectError } from '../helpers/http.js';
import { addContributor, createResource, createResourceCast, resourceFor } from './helpers.js';
import type { ResourceCast } from './helpers.js';

interface ContributorBody {
  id: string;
  userId: string;
  resourceId: string;
  role: string;
  user: { id: string; username: string; displayName: string | null; image: string };
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

async function contributors(resourceId: string, as: TestUser = cast.owner): Promise<ContributorBody[]> {
  const response = await t.app.inject({
    method: 'GET',
    url: `/resources/${resourceId}/contributors`,
    headers: as.headers,
  });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { contributors: ContributorBody[] }).contributors;
}

describe('resource contributors', () => {
  it('adds a contributor with the user summary (201) and lists them oldest first', async () => {
    const resource = await createResource(t.app, cast.owner);
    const [first, second] = [await createUser(t.app), await createUser(t.app)];
    const response = await t.app.inject({
      method: 'POST',
      url: `/resources/${resource.id}/contributors`,
      headers: cast.owner.headers,
      payload: { userId: first!.id, role: 'MAINTAINER' },
    });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json()).toEqual({
      id: expect.any(String) as string,
      userId: first!.id,
      resourceId: resource.id,
      role: 'MAINTAINER',
      user: {
        id: first!.id,
        username: first!.username,
        displayName: null,
        image: expect.any(String) as string,
      },
      createdAt: t.clock.now().toISOString(),
      updatedAt: t.clock.now().toISOString(),
    });
    t.clock.advance(1000);
    await addContributor(t.app, cast.owner, resource.id, second!, 'CONTRIBUTOR');
    expect((await contributors(resource.id)).map((c) => [c.userId, c.role])).toEqual([
      [first!.id, 'MAINTAINER'],
      [second!.id, 'CONTRIBUTOR'],
    ]);
  });

  it('refuses an existing contributor (409 ALREADY_CONTRIBUTOR), the owner (400), an unknown user (404), a bad role (400)', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'PENDING');
    const add = (userId: string, role = 'CONTRIBUTOR') =>
      t.app.inject({
        method: 'POST',
        url: `/resources/${resource.id}/contributors`,
        headers: cast.owner.headers,
        payload: { userId, role },
      });
    expectError(await add(cast.contributor.id, 'MAINTAINER'), 409, 'ALREADY_CONTRIBUTOR');
    expectError(await add(cast.owner.id), 400);
    expectError(await add('01900000-0000-7000-8000-000000000000'), 404);
    expectError(await add((await createUser(t.app)).id, 'OWNER'), 400);
    expect((await contributors(resource.id)).find((c) => c.userId === cast.contributor.id)?.role).toBe(
      'CONTRIBUTOR',
    );
  });

  it('changes a role (owner or maintainer) and answers {id, role, updatedAt}', async () => {
    const resource = await resourceFor(t.app, cast, 'TEAM', 'APPROVED');
    t.clock.advance(1000);
    const response = await t.app.inject({
      method: 'PATCH',
      url: `/resources/${resource.id}/contributors/${cast.contributor.id}`,
      headers: cast.maintainer.headers,
      payload: { role: 'MAINTAINER' },
    });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json() as { id: string; role: string; updatedAt: string };
    expect(body).toEqual({
      id: expect.any(String) as string,
      role: 'MAINTAINER',
      updatedAt: t.clock.now().toISOString(),
    });
    // Now a maintainer, the former contributor manages contributors too.
    const demoted = await t.app.inject({
      method: 'PATCH',
      url: `/resources/${resource.id}/contributors/${cast.maintainer.id}`,
      headers: cast.contributor.headers,
      payload: { role: 'CONTRIBUTOR' },
    });
    expect(demoted.statusCode, demoted.body).toBe(200);
    // And the demoted maintainer no longer does.
    expectError(
      await t.app.inject({
        method: 'PATCH',
        url: `/resources/${resource.id}/contributors/${cast.contributor.id}`,
        headers: cast.maintainer.headers,
        payload: { role: 'CONTRIBUTOR' },
      }),
      403,
    );
  });

  it('a role change or removal of someone who is not a contributor is 404', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const url = `/resources/${resource.id}/contributors/${cast.stranger.id}`;
    expectError(
      await t.app.inject({
        method: 'PATCH',
        url,
        headers: cast.owner.headers,
        payload: { role: 'MAINTAINER' },
      }),
      404,
    );
    expectError(await t.app.inject({ method: 'DELETE', url, headers: cast.owner.headers }), 404);
  });

  it('removes a contributor with a message; they lose their rights at once', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'PENDING');
    const response = await t.app.inject({
      method: 'DELETE',
      url: `/resources/${resource.id}/contributors/${cast.contributor.id}`,
      headers: cast.owner.headers,
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ message: expect.any(String) as string });
    // The resource is PENDING: to a former contributor it no longer exists.
    expectError(
      await t.app.inject({
        method: 'PATCH',
        url: `/resources/${resource.id}`,
        headers: cast.contributor.headers,
        payload: { name: 'Too late' },
      }),
      404,
    );
  });

  it('a contributor may leave, but not remove someone else', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    expectError(
      await t.app.inject({
        method: 'DELETE',
        url: `/resources/${resource.id}/contributors/${cast.maintainer.id}`,
        headers: cast.contributor.headers,
      }),
      403,
    );
    const left = await t.app.inject({
      method: 'DELETE',
      url: `/resources/${resource.id}/contributors/${cast.contributor.id}`,
      headers: cast.contributor.headers,
    });
    expect(left.statusCode, left.body).toBe(200);
    expect((await contributors(resource.id)).map((c) => c.userId)).toEqual([cast.maintainer.id]);
  });

  it('contributors can do what "owner or contributor" allows, but not delete or add contributors', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    for (const persona of ['contributor', 'maintainer'] as const) {
      const headers = cast[persona].headers;
      const edited = await t.app.inject({
        method: 'PATCH',
        url: `/resources/${resource.id}`,
        headers,
        payload: { shortDescription: `Edited by ${persona}` },
      });
      expect(edited.statusCode, edited.body).toBe(200);
      const link = await t.app.inject({
        method: 'POST',
        url: `/resources/${resource.id}/external-links`,
        headers,
        payload: { title: persona, url: 'https://x.example', type: 'OTHER' },
      });
      expect(link.statusCode, link.body).toBe(201);
      expectError(
        await t.app.inject({
          method: 'POST',
          url: `/resources/${resource.id}/contributors`,
          headers,
          payload: { userId: (await createUser(t.app)).id, role: 'CONTRIBUTOR' },
        }),
        403,
      );
      expectError(await t.app.inject({ method: 'DELETE', url: `/resources/${resource.id}`, headers }), 403);
    }
  });

  it('a contributor sees the non-approved resource in their lists', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'REJECTED');
    const response = await t.app.inject({
      method: 'GET',
      url: `/resources/user/${cast.owner.id}?limit=100`,
      headers: cast.contributor.headers,
    });
    const ids = (response.json() as { resources: Array<{ id: string }> }).resources.map((r) => r.id);
    expect(ids).toContain(resource.id);
    const strangers = await t.app.inject({
      method: 'GET',
      url: `/resources/user/${cast.owner.id}?limit=100`,
      headers: cast.stranger.headers,
    });
    expect(
      (strangers.json() as { resources: Array<{ id: string }> }).resources.map((r) => r.id),
    ).not.toContain(resource.id);
  });
});
