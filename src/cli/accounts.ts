// Account commands: create-user, set-role, ban, unban, revoke-keys. Each goes through the service the API uses
// (registration rules, the admin-users service, the ban's credential revocation), acting as an operator.
import { ROLES } from '../core/auth/roles.js';
import type { Role } from '../core/db/schema.js';
import { required, UsageError } from './command.js';
import type { Command, Values } from './command.js';

const actions = () => import('./account-actions.js');

function role(values: Values, fallback?: Role): Role {
  const value = values['role'] ?? fallback;
  if (typeof value !== 'string' || !(ROLES as readonly string[]).includes(value)) {
    throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
  }
  return value as Role;
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
    await (await actions()).createUserWithKey(config, body, wanted);
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
    await (await actions()).updateAccount(config, login, { role: wanted });
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
      await (await actions()).updateAccount(config, login, { status });
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
    await (await actions()).revokeKeys(config, login);
  },
};
