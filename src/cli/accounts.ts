// Account commands: create-user, set-role, ban, unban, revoke-keys. Each goes through the service the API uses
// (registration rules, the admin-users service, the ban's credential revocation), acting as an operator.
import type { Actor } from '../core/auth/authenticate.js';
import { ROLES } from '../core/auth/roles.js';
import { systemClock } from '../core/clock.js';
import type { Database } from '../core/db/database.js';
import type { Role } from '../core/db/schema.js';
import { validatorFactory } from '../core/http/validation.js';
import { createMediaUrls } from '../core/media-urls.js';
import type { Config } from '../config.js';
import { createAdminUsersService } from '../modules/admin/admin-users.service.js';
import { createApiKeysService } from '../modules/api-keys/api-keys.service.js';
import { createAccount } from '../modules/auth/accounts.js';
import { revokeAllCredentials } from '../modules/auth/auth.repo.js';
import { RegisterBody } from '../modules/auth/auth.schemas.js';
import { createBadgeReader } from '../modules/badges/badge-reader.js';
import { findUserById, findUserByLogin } from '../modules/users/users.repo.js';
import type { UserRow } from '../modules/users/users.repo.js';
import { printResult, required, UsageError, withDatabase } from './command.js';
import type { Command, Values } from './command.js';

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

function role(values: Values, fallback?: Role): Role {
  const value = values['role'] ?? fallback;
  if (typeof value !== 'string' || !(ROLES as readonly string[]).includes(value)) {
    throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
  }
  return value as Role;
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

const USER_OPTION = { user: { type: 'string' } } as const;
const USER_HELP = '  --user U        username, e-mail address or id of the account';

export const createUserCommand: Command = {
  name: 'create-user',
  summary: 'Create an account (any role) and print an API key for it',
  help: `Usage: cli create-user --username U --email E --password P [--role ROLE]

Creates an account with the same rules as POST /auth/register, gives it ROLE (default USER) and prints one
JSON line {id, username, role, apiKey}. This is how the first administrator is made.

  --username U    3-32 letters, digits or underscores, unique case-insensitively
  --email E       a valid e-mail address, unique
  --password P    at least 8 characters
  --role ROLE     ${ROLES.join(' | ')} (default USER)`,
  options: {
    username: { type: 'string' },
    email: { type: 'string' },
    password: { type: 'string' },
    role: { type: 'string' },
  },
  async run({ values, config }) {
    const body = {
      username: required(values, 'username'),
      email: required(values, 'email'),
      password: required(values, 'password'),
    };
    const wanted = role(values, 'USER');
    const validate = registrationValidator();
    if (!validate(body)) {
      const [first] = validate.errors ?? [];
      const field = first?.instancePath?.replace(/^\//, '') || 'input';
      throw new UsageError(`--${field} ${first?.message ?? 'is invalid'}`);
    }
    await withDatabase(config, async (database) => {
      const user = await createAccount(database.db, systemClock, { ...body, role: wanted });
      const key = await createApiKeysService({ ...database, clock: systemClock }).create(user.id, {
        name: 'cli',
      });
      printResult({ id: user.id, username: user.username, role: user.role, apiKey: key.key });
    });
  },
};

export const setRoleCommand: Command = {
  name: 'set-role',
  summary: "Change an account's role",
  help: `Usage: cli set-role --user U --role ROLE

${USER_HELP}
  --role ROLE     ${ROLES.join(' | ')}`,
  options: { ...USER_OPTION, role: { type: 'string' } },
  async run({ values, config }) {
    const login = required(values, 'user');
    const wanted = role(values);
    await withDatabase(config, async (database) => {
      const user = await findUser(database, login);
      const updated = await (await adminUsers(database, config)).update(OPERATOR, user.id, { role: wanted });
      printResult({ id: updated.id, username: updated.username, role: updated.role, status: updated.status });
    });
  },
};

function statusCommand(name: 'ban' | 'unban', status: 'BANNED' | 'ACTIVE', summary: string): Command {
  return {
    name,
    summary,
    help: `Usage: cli ${name} --user U

${summary}.${status === 'BANNED' ? ' Every API key and login token of the account stops working at once.' : ''}

${USER_HELP}`,
    options: USER_OPTION,
    async run({ values, config }) {
      const login = required(values, 'user');
      await withDatabase(config, async (database) => {
        const user = await findUser(database, login);
        const updated = await (await adminUsers(database, config)).update(OPERATOR, user.id, { status });
        printResult({
          id: updated.id,
          username: updated.username,
          role: updated.role,
          status: updated.status,
        });
      });
    },
  };
}

export const banCommand = statusCommand('ban', 'BANNED', 'Ban an account');
export const unbanCommand = statusCommand('unban', 'ACTIVE', 'Lift a ban or suspension');

export const revokeKeysCommand: Command = {
  name: 'revoke-keys',
  summary: 'Revoke every API key and login token of an account',
  help: `Usage: cli revoke-keys --user U

Revokes every API key and login token of the account (a leaked key, a compromised account); the account itself
stays active and can log in again and create new keys.

${USER_HELP}`,
  options: USER_OPTION,
  async run({ values, config }) {
    const login = required(values, 'user');
    await withDatabase(config, async (database) => {
      const user = await findUser(database, login);
      await revokeAllCredentials(database.db, user.id, systemClock.now().toISOString());
      printResult({ id: user.id, username: user.username, revoked: true });
    });
  },
};
