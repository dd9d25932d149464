// Factories and personas: accounts made directly through the services (fast), used through the HTTP API.
import type { App } from '../../src/app.js';
import type { Role } from '../../src/core/db/schema.js';
import { createAccount } from '../../src/modules/auth/accounts.js';
import { createApiKeysService } from '../../src/modules/api-keys/api-keys.service.js';

export interface TestUser {
  id: string;
  username: string;
  email: string;
  password: string;
  role: Role;
  apiKey: string;
  /** Headers that authenticate as this user. */
  headers: { 'x-api-key': string };
}

let sequence = 0;

export async function createUser(
  app: App,
  options: { role?: Role; username?: string } = {},
): Promise<TestUser> {
  sequence += 1;
  const username = options.username ?? `user_${process.pid}_${sequence}`;
  const email = `${username.toLowerCase()}@example.test`;
  const password = 'correct horse battery';
  const { database, clock } = app.context;
  const row = await createAccount(database.db, clock, {
    username,
    email,
    password,
    role: options.role ?? 'USER',
  });
  const key = await createApiKeysService({ db: database.db, dialect: database.dialect, clock }).create(
    row.id,
    { name: 'test' },
  );
  return {
    id: row.id,
    username,
    email,
    password,
    role: row.role,
    apiKey: key.key,
    headers: { 'x-api-key': key.key },
  };
}

/** The platform personas of DESIGN §9 that do not depend on a resource, team or server. */
export async function createPersonas(app: App) {
  const [user, stranger, moderator, admin, superAdmin] = await Promise.all([
    createUser(app),
    createUser(app),
    createUser(app, { role: 'MODERATOR' }),
    createUser(app, { role: 'ADMIN' }),
    createUser(app, { role: 'SUPER_ADMIN' }),
  ]);
  return { user, stranger, moderator, admin, superAdmin };
}
export type Personas = Awaited<ReturnType<typeof createPersonas>>;
