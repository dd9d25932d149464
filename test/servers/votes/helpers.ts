// Votes through the HTTP API, each from a chosen client address.
import { expect } from 'vitest';
import type { App } from '../../../src/app.js';
import { newId } from '../../../src/core/ids.js';
import { createApiKeysService } from '../../../src/modules/api-keys/api-keys.service.js';
import type { TestUser } from '../../helpers/factories.js';

let addressSequence = 0;
/** A public-looking IPv4 address no other vote in this process used. */
export function nextAddress(): string {
  addressSequence += 1;
  return `198.${18 + ((addressSequence >> 16) & 1)}.${(addressSequence >> 8) & 255}.${addressSequence & 255}`;
}

export function postVote(
  app: App,
  serverId: string,
  user: TestUser | undefined,
  ip = nextAddress(),
  username = 'Steve',
) {
  return app.inject({
    method: 'POST',
    url: `/servers/${serverId}/votes`,
    ...(user ? { headers: user.headers } : {}),
    remoteAddress: ip,
    payload: { username },
  });
}

export async function vote(
  app: App,
  serverId: string,
  user: TestUser,
  ip = nextAddress(),
  username = 'Steve',
) {
  const response = await postVote(app, serverId, user, ip, username);
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as { voteCount: number; totalVotes: number; nextVoteAt: string };
}

export interface VoteView {
  id: string;
  username: string;
  user: { id: string; username: string };
  createdAt: string;
  delivery: { status: string; attempts: number; lastError: string | null } | null;
}

export async function listVotes(app: App, serverId: string, owner: TestUser): Promise<VoteView[]> {
  const response = await app.inject({
    method: 'GET',
    url: `/servers/${serverId}/votes`,
    headers: owner.headers,
  });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { votes: VoteView[] }).votes;
}

let voterSequence = 0;
/**
 * `count` voting accounts with API keys, fast: rows cloned from `template`'s (no password hashing, which
 * would take seconds for hundreds of accounts), keys through the real API-key service.
 */
export async function createVoters(app: App, template: TestUser, count: number): Promise<TestUser[]> {
  const { db, dialect } = app.context.database;
  const { clock } = app.context;
  const base = await db
    .selectFrom('users')
    .selectAll()
    .where('id', '=', template.id)
    .executeTakeFirstOrThrow();
  const keys = createApiKeysService({ db, dialect, clock });
  const voters: TestUser[] = [];
  for (let i = 0; i < count; i += 1) {
    voterSequence += 1;
    const username = `voter_${process.pid}_${voterSequence}`;
    const id = newId();
    await db
      .insertInto('users')
      .values({
        ...base,
        id,
        username,
        username_key: username,
        email: `${username}@example.test`,
        role: 'USER',
        status: 'ACTIVE',
      })
      .execute();
    const key = await keys.create(id, { name: 'test' });
    voters.push({
      ...template,
      role: 'USER',
      id,
      username,
      email: `${username}@example.test`,
      apiKey: key.key,
      headers: { 'x-api-key': key.key },
    });
  }
  return voters;
}

/** One fast voting account (see createVoters), modelled on the app's first user. */
export async function voterOf(app: App): Promise<TestUser> {
  const { db } = app.context.database;
  const first = await db.selectFrom('users').select('id').orderBy('id').limit(1).executeTakeFirstOrThrow();
  const template: TestUser = {
    id: first.id,
    username: '',
    email: '',
    password: 'correct horse battery',
    role: 'USER',
    apiKey: '',
    headers: { 'x-api-key': '' },
  };
  const [voter] = await createVoters(app, template, 1);
  return voter!;
}
