// Moderations that move the same status counters in one order (PostgreSQL): a counter's row stays locked until its
// transaction ends, so suspending one resource (APPROVED, then SUSPENDED) while unsuspending another (SUSPENDED,
// then APPROVED) deadlocked, and PostgreSQL aborted one of them. Counters now move in the order of their names.
// Runs only under `npm run test:pg` (see vitest.config.ts): it holds row locks in the service's database.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { someoneWaitsFor } from '../helpers/pg-locks.js';
import { approvedTypeCounter, statusCounter } from '../../src/modules/resources/resources.repo.js';
import { createUser } from '../helpers/factories.js';
import { createResource, moderate } from './helpers.js';

const APPROVED = statusCounter('APPROVED');
const SUSPENDED = statusCounter('SUSPENDED');
const APPROVED_MODS = approvedTypeCounter('MOD');

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t.close();
});

const counterValues = async () => {
  const rows = await t.app.context.database.db
    .selectFrom('counters')
    .select(['name', 'value'])
    .where('name', 'in', [APPROVED, SUSPENDED, APPROVED_MODS])
    .execute();
  return Object.fromEntries(rows.map((row) => [row.name, Number(row.value)]));
};

interface Answer {
  statusCode: number;
  body: string;
  headers: Record<string, unknown>;
  json(): unknown;
}

/**
 * Unsuspends the resource while another transaction moves two status counters: it takes `first`, waits until the
 * unsuspension waits for it, then takes `second`, and rolls back. PostgreSQL looks for a deadlock in the
 * connection that has waited deadlock_timeout first: a long one on this side makes that the service's.
 */
async function unsuspendWhileHolding(
  moderator: { headers: Record<string, string> },
  resourceId: string,
  first: string,
  second: string,
): Promise<Answer> {
  const client = new pg.Client({ connectionString: t.config.databaseUrl });
  await client.connect();
  let unsuspending: Promise<Answer> | undefined;
  try {
    await client.query(`set deadlock_timeout = '60s'`);
    await client.query('begin');
    await client.query('update counters set value = value - 1 where name = $1', [first]);
    unsuspending = t.app.inject({
      method: 'PATCH',
      url: `/resources/moderation/${resourceId}/moderate`,
      headers: moderator.headers,
      payload: { action: 'UNSUSPEND' },
    });
    await someoneWaitsFor(client);
    await client.query('update counters set value = value + 1 where name = $1', [second]);
    await client.query('rollback');
  } finally {
    await client.end();
  }
  return unsuspending;
}

async function suspendedResource() {
  const owner = await createUser(t.app);
  const moderator = await createUser(t.app, { role: 'MODERATOR' });
  const resource = await createResource(t.app, owner, { type: 'MOD' });
  await moderate(t.app, moderator, resource.id, 'APPROVE');
  await moderate(t.app, moderator, resource.id, 'SUSPEND', '');
  return { moderator, resource };
}

describe('status counters under concurrent moderation', () => {
  it('an unsuspension waits for a suspension holding the same counters, and neither is aborted', async () => {
    const { moderator, resource } = await suspendedResource();
    const before = await counterValues();
    // What suspending another resource does: APPROVED (the status it leaves), then SUSPENDED. An unsuspension
    // that moved SUSPENDED first would hold it by then: a deadlock, and a 500 before counters moved in name order.
    const answer = await unsuspendWhileHolding(moderator, resource.id, APPROVED, SUSPENDED);
    expect(answer.statusCode, answer.body).toBe(200);
    expect((answer.json() as { status: string }).status).toBe('APPROVED');
    const after = await counterValues();
    expect(after[APPROVED]).toBe(before[APPROVED]! + 1);
    expect(after[SUSPENDED]).toBe(before[SUSPENDED]! - 1);
    expect(after[APPROVED_MODS]).toBe(before[APPROVED_MODS]! + 1);
  });

  it('a transaction the database aborts as a deadlock answers 503 with Retry-After, and nothing of it stays', async () => {
    const { moderator, resource } = await suspendedResource();
    const before = await counterValues();
    // Against the name order (another writer with a bug of its own): the service's transaction is the victim.
    const answer = await unsuspendWhileHolding(moderator, resource.id, SUSPENDED, APPROVED);
    expect(answer.statusCode, answer.body).toBe(503);
    expect(answer.headers['retry-after']).toBe('1');
    expect(answer.json()).toMatchObject({ statusCode: 503, code: 'SERVICE_UNAVAILABLE' });
    expect(await counterValues()).toEqual(before);
    const read = await t.app.inject({
      method: 'GET',
      url: `/resources/${resource.id}`,
      headers: moderator.headers,
    });
    expect((read.json() as { status: string }).status).toBe('SUSPENDED');
    // Retried, it goes through.
    await moderate(t.app, moderator, resource.id, 'UNSUSPEND');
  });
});
