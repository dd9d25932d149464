// The setting of the server-search migration tests: an app with a server owner, a moderator and the seeded
// server catalogs, built before a file's tests and closed after them.
import { afterAll, beforeAll } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import type { TestUser } from '../helpers/factories.js';
import { catalogs } from '../servers/helpers.js';
import type { CatalogRef } from '../servers/helpers.js';

export interface ServerSearchApp {
  t: TestApp;
  owner: TestUser;
  moderator: TestUser;
  tags: CatalogRef[];
  categories: CatalogRef[];
}

/** Registers the file's beforeAll (which hands the setting to `take`) and afterAll. */
export function withServerSearchApp(take: (setting: ServerSearchApp) => void): void {
  let built: TestApp | undefined;
  beforeAll(async () => {
    const t = await buildTestApp();
    built = t;
    const [owner, moderator] = await Promise.all([
      createUser(t.app),
      createUser(t.app, { role: 'MODERATOR' }),
    ]);
    take({ t, owner, moderator, ...(await catalogs(t.app)) });
  });
  afterAll(async () => built?.close());
}
