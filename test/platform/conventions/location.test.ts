// Location on every 201: the rule covers every creating route of the document, and the URL it gives is the
// created object's (a GET on it answers 200 with the same id).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { locationKind } from '../../../src/core/http/conventions/location.js';
import { buildTestApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { createPersonas } from '../../helpers/factories.js';
import type { Personas } from '../../helpers/factories.js';
import { loadOpenApi } from '../../helpers/openapi.js';

let t: TestApp;
let personas: Personas;

beforeAll(async () => {
  t = await buildTestApp();
  personas = await createPersonas(t.app);
});
afterAll(async () => t.close());

/** `/resources/{id}/versions` → `/resources/:id/versions`. */
const routeUrlOf = (path: string) => path.replace(/\{([^}]+)\}/g, ':$1');

describe('Location on 201', () => {
  it('has a rule for every operation documented with a 201', async () => {
    const document = await loadOpenApi(t.app);
    const creating = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.entries(operations)
        .filter(([, operation]) => operation.responses?.['201'] !== undefined)
        .map(([method]) => ({ method: method.toUpperCase(), path })),
    );
    expect(creating.length).toBeGreaterThan(20);
    const without = creating.filter(({ method, path }) => {
      const override = t.app.routeTable.hasLocationOverride(method, routeUrlOf(path));
      return locationKind(t.app.routeTable, routeUrlOf(path), override) === 'none';
    });
    expect(without).toEqual([]);
  });

  it('points at the created object: a GET on it answers 200 with the same id', async () => {
    const { user } = personas;
    const created = await t.app.inject({
      method: 'POST',
      url: '/resources',
      headers: user.headers,
      payload: { name: 'Located', slug: 'located-one', type: 'PLUGIN', shortDescription: 'x' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = (created.json() as { id: string }).id;
    expect(created.headers['location']).toBe(`/resources/${id}`);
    const fetched = await t.app.inject({
      method: 'GET',
      url: created.headers['location']!,
      headers: user.headers,
    });
    expect(fetched.statusCode).toBe(200);
    expect((fetched.json() as { id: string }).id).toBe(id);
  });

  it('uses the route override where the generic rule cannot know (register → the new user)', async () => {
    const registered = await t.app.inject({
      method: 'POST',
      url: '/auth/register',
      payload: { username: 'located_user', email: 'located@example.test', password: 'long enough password' },
    });
    expect(registered.statusCode, registered.body).toBe(201);
    const userId = (registered.json() as { user: { id: string } }).user.id;
    expect(registered.headers['location']).toBe(`/users/${userId}`);
    expect((await t.app.inject({ method: 'GET', url: `/users/${userId}` })).statusCode).toBe(200);
  });

  it('falls back to the list the object appears in when it has no URL of its own (API keys)', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/users/me/api-keys',
      headers: personas.user.headers,
      payload: { name: 'ci' },
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.headers['location']).toBe('/users/me/api-keys');
  });

  it('sets no Location on answers other than 201', async () => {
    const listed = await t.app.inject({ method: 'GET', url: '/resources' });
    expect(listed.headers['location']).toBeUndefined();
  });
});
