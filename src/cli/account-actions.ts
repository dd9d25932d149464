// The work behind the account commands, loaded only when one runs (it pulls in the database driver, argon2 and
// the validator; `--help` should not pay for them).
import type { Actor } from '../core/auth/authenticate.js';
import { systemClock } from '../core/clock.js';
import type { Database } from '../core/db/database.js';
import type { Role } from '../core/db/schema.js';
import { validatorFactory } from '../core/http/validation.js';
import { createMediaUrls } from '../core/media-urls.js';
import type { Config } from '../config.js';
import type { AdminUserPatch } from '../modules/admin/admin-users.service.js';
import { createAdminUsersService } from '../modules/admin/admin-users.service.js';
import { createApiKeysService } from '../modules/api-keys/api-keys.service.js';
import { createAccount } from '../modules/auth/accounts.js';
import { revokeAllCredentials } from '../modules/auth/auth.repo.js';
import { RegisterBody } from '../modules/auth/auth.schemas.js';
import { createBadgeReader } from '../modules/badges/badge-reader.js';
import { findUserById, findUserByLogin } from '../modules/users/users.repo.js';
import type { UserRow } from '../modules/users/users.repo.js';
import { printResult, UsageError, withDatabase } from './command.js';

/** The operator acts with a super admin's rights, as no account: the service's "not yourself" rule never bites. */
const OPERATOR: Actor = {
  userId: 'operator-cli',
  role: 'SUPER_ADMIN',
  credential: { kind: 'api_key', id: 'cli' },
};

interface Validate {
  (data: unknown): boolean;
  errors?: { instancePath?: string; message?: string }[] | null;
}

/** POST /auth/register's own body validator, compiled the way Fastify compiles it. */
function registrationValidator(): Validate {
  const factory = validatorFactory() as unknown as (
    external: unknown,
    options: unknown,
  ) => (route: { schema: unknown; httpPart: string; method: string; url: string }) => Validate;
  return factory({}, {})({ schema: RegisterBody, httpPart: 'body', method: 'POST', url: '/auth/register' });
}

async function findUser(database: Database, login: string): Promise<UserRow> {
  const user =
    (await findUserByLogin(database.db, login.toLowerCase())) ?? (await findUserById(database.db, login));
  if (user === undefined) throw new Error(`No user with username, email or id "${login}"`);
  return user;
}

async function adminUsers(database: Database, config: Config) {
  // The storage driver (and with it the S3 SDK) only builds the image URLs of the printed profile.
  const { createStorage } = await import('../core/storage/index.js');
  return createAdminUsersService({
    db: database.db,
    dialect: database.dialect,
    clock: systemClock,
    urls: createMediaUrls(createStorage(config)),
    badges: createBadgeReader(database),
  });
}

/** Validates like POST /auth/register, creates the account with `role` and prints it with a new API key. */
export async function createUserWithKey(
  config: Config,
  body: { username: string; email: string; password: string },
  role: Role,
): Promise<void> {
  const validate = registrationValidator();
  if (!validate(body)) {
    const [first] = validate.errors ?? [];
    const field = first?.instancePath?.replace(/^\//, '') || 'input';
    throw new UsageError(`--${field} ${first?.message ?? 'is invalid'}`);
  }
  await withDatabase(config, async (database) => {
    const user = await createAccount(database.db, systemClock, { ...body, role });
    const key = await createApiKeysService({ ...database, clock: systemClock }).create(user.id, {
      name: 'cli',
    });
    printResult({ id: user.id, username: user.username, role: user.role, apiKey: key.key });
  });
}

/** A role or status change through the admin-users service, printed as {id, username, role, status}. */
export async function updateAccount(config: Config, login: string, patch: AdminUserPatch): Promise<void> {
  await withDatabase(config, async (database) => {
    const user = await findUser(database, login);
    const updated = await (await adminUsers(database, config)).update(OPERATOR, user.id, patch);
    printResult({ id: updated.id, username: updated.username, role: updated.role, status: updated.status });
  });
}

export async function revokeKeys(config: Config, login: string): Promise<void> {
  await withDatabase(config, async (database) => {
    const user = await findUser(database, login);
    await revokeAllCredentials(database.db, user.id, systemClock.now().toISOString());
    printResult({ id: user.id, username: user.username, revoked: true });
  });
}
