// Fixtures for the dependency tests: approved resources and released versions through the HTTP API.
import { expect } from 'vitest';
import type { TestApp } from '../../helpers/app.js';
import type { TestUser } from '../../helpers/factories.js';
import { createResource, moderate } from '../../resources/helpers.js';
import type { ResourceCast } from '../../resources/helpers.js';
import { act, createVersion, uploadFile, versionUrl } from '../helpers.js';
import type { VersionBody } from '../helpers.js';

export interface DependencyBody {
  id: string;
  type: string;
  resourceId: string | null;
  versionId: string | null;
  externalName: string | null;
  externalUrl: string | null;
  minVersion: string | null;
  resource: { id: string; slug: string; name: string; iconUrl: string | null; type: string } | null;
}
export type VersionWithDependencies = VersionBody & { dependencies: DependencyBody[] };

/** An APPROVED resource owned by `owner` (default the cast's owner). */
export async function approvedResource(t: TestApp, cast: ResourceCast, owner: TestUser = cast.owner) {
  const resource = await createResource(t.app, owner);
  return moderate(t.app, cast.moderator, resource.id, 'APPROVE');
}

/** A version with the dependencies, a file, submitted and approved one second after the previous one. */
export async function release(
  t: TestApp,
  cast: ResourceCast,
  resourceId: string,
  dependencies: unknown[] = [],
  owner: TestUser = cast.owner,
): Promise<VersionWithDependencies> {
  const version = await createVersion(t.app, owner, resourceId, { dependencies });
  await uploadFile(t.app, owner, resourceId, version.id);
  await act(t.app, owner, resourceId, version.id, 'submit');
  t.clock.advance(1000);
  return (await act(t.app, cast.moderator, resourceId, version.id, 'approve')) as VersionWithDependencies;
}

export async function patchDependencies(
  t: TestApp,
  user: TestUser,
  version: VersionBody,
  dependencies: unknown,
) {
  return t.app.inject({
    method: 'PATCH',
    url: versionUrl(version.resourceId, version.id),
    headers: user.headers,
    payload: { dependencies },
  });
}

export async function getJson<T>(t: TestApp, url: string, status = 200): Promise<T> {
  const response = await t.app.inject({ method: 'GET', url });
  expect(response.statusCode, response.body).toBe(status);
  return response.json() as T;
}

export { selectsOf } from '../../helpers/statements.js';
