// What resolving a user report does to the reported account (DESIGN §7, §8): WARNING is recorded, SUSPENSION
// blocks writes until it ends, BAN refuses the account's existing keys and tokens on the very next request,
// NONE changes nothing; and nobody acts on an account of equal or higher rank.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS } from '../../src/core/clock.js';
import type { Role } from '../../src/core/db/schema.js';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createPersonas, createUser } from '../helpers/factories.js';
import type { Personas, TestUser } from '../helpers/factories.js';
import { expectError } from '../helpers/http.js';
import { expectReportCounters, getReport, moderate, moderateOk, reportOf } from './helpers.js';

let t: TestApp;
let p: Personas;

beforeAll(async () => {
  t = await buildTestApp();
  p = await createPersonas(t.app);
});
afterAll(async () => t.close());
afterEach(async () => expectReportCounters(t.app));

const me = (headers: Record<string, string>) => t.app.inject({ method: 'GET', url: '/users/me', headers });
const write = (user: TestUser) =>
  t.app.inject({ method: 'PATCH', url: '/users/me', headers: user.headers, payload: { bio: 'still here' } });

async function accountOf(user: TestUser) {
  const row = await t.app.context.database.db
    .selectFrom('users')
    .select(['status', 'suspended_until'])
    .where('id', '=', user.id)
    .executeTakeFirstOrThrow();
  return { status: row.status, suspendedUntil: row.suspended_until };
}

async function reportAbout(target: TestUser): Promise<{ id: string; reporter: TestUser }> {
  const reporter = await createUser(t.app);
  return { id: await reportOf(t.app, reporter, target), reporter };
}

async function moderationDetail(id: string) {
  const response = await t.app.inject({
    method: 'GET',
    url: `/reports/moderation/${id}`,
    headers: p.superAdmin.headers,
  });
  expect(response.statusCode).toBe(200);
  return response.json() as {
    userAction: string | null;
    suspensionDays: number | null;
    history: Array<{ userAction: string | null }>;
  };
}

describe('WARNING and NONE', () => {
  it('WARNING is recorded on the report and in its history; the account stays active', async () => {
    const target = await createUser(t.app);
    const { id } = await reportAbout(target);
    const result = await moderateOk(t.app, p.moderator, id, { action: 'RESOLVE', userAction: 'WARNING' });
    expect(result.report).toMatchObject({ status: 'RESOLVED', userAction: 'WARNING' });
    const detail = await moderationDetail(id);
    expect(detail.userAction).toBe('WARNING');
    expect(detail.history.map((entry) => entry.userAction)).toEqual(['WARNING']);
    expect(await accountOf(target)).toEqual({ status: 'ACTIVE', suspendedUntil: null });
    expect((await write(target)).statusCode).toBe(200);
  });

  it('NONE changes nothing on the account', async () => {
    const target = await createUser(t.app);
    const { id } = await reportAbout(target);
    await moderateOk(t.app, p.moderator, id, { action: 'RESOLVE', userAction: 'NONE' });
    expect((await moderationDetail(id)).userAction).toBe('NONE');
    expect(await accountOf(target)).toEqual({ status: 'ACTIVE', suspendedUntil: null });
    expect((await write(target)).statusCode).toBe(200);
  });

  it('RESOLVE without userAction records none', async () => {
    const target = await createUser(t.app);
    const { id } = await reportAbout(target);
    await moderateOk(t.app, p.moderator, id, { action: 'RESOLVE' });
    expect((await moderationDetail(id)).userAction).toBeNull();
    expect((await accountOf(target)).status).toBe('ACTIVE');
  });
});

describe('SUSPENSION', () => {
  it('suspends for 7 days by default: reads work, writes get 403 until the time is up', async () => {
    const target = await createUser(t.app);
    const other = await createUser(t.app);
    const { id } = await reportAbout(target);
    const start = t.clock.now().getTime();
    await moderateOk(t.app, p.moderator, id, { action: 'RESOLVE', userAction: 'SUSPENSION' });
    const until = new Date(start + 7 * DAY_MS).toISOString();
    expect(await accountOf(target)).toEqual({ status: 'SUSPENDED', suspendedUntil: until });
    expect((await moderationDetail(id)).suspensionDays).toBe(7);

    const read = await me(target.headers);
    expect(read.statusCode).toBe(200);
    expect(read.json()).toMatchObject({ status: 'SUSPENDED', suspendedUntil: until });
    expect(
      (await t.app.inject({ method: 'GET', url: '/reports/me', headers: target.headers })).statusCode,
    ).toBe(200);
    expectError(await write(target), 403, 'ACCOUNT_SUSPENDED');
    expectError(
      await t.app.inject({
        method: 'POST',
        url: `/reports/users/${other.id}`,
        headers: target.headers,
        payload: { reason: 'SPAM' },
      }),
      403,
      'ACCOUNT_SUSPENDED',
    );

    t.clock.advance(7 * DAY_MS - 1000);
    expectError(await write(target), 403, 'ACCOUNT_SUSPENDED');
    t.clock.advance(1000);
    expect((await write(target)).statusCode).toBe(200);
  });

  it('uses suspensionDays when given', async () => {
    const target = await createUser(t.app);
    const { id } = await reportAbout(target);
    const start = t.clock.now().getTime();
    await moderateOk(t.app, p.admin, id, { action: 'RESOLVE', userAction: 'SUSPENSION', suspensionDays: 2 });
    expect(await accountOf(target)).toEqual({
      status: 'SUSPENDED',
      suspendedUntil: new Date(start + 2 * DAY_MS).toISOString(),
    });
    expect((await moderationDetail(id)).suspensionDays).toBe(2);
    expectError(await write(target), 403, 'ACCOUNT_SUSPENDED');
    t.clock.advance(2 * DAY_MS);
    expect((await write(target)).statusCode).toBe(200);
  });

  it('never shortens a suspension that already runs longer', async () => {
    const target = await createUser(t.app);
    const longUntil = new Date(t.clock.now().getTime() + 30 * DAY_MS).toISOString();
    const admin = await t.app.inject({
      method: 'PATCH',
      url: `/admin/users/${target.id}`,
      headers: p.admin.headers,
      payload: { status: 'SUSPENDED', suspendedUntil: longUntil },
    });
    expect(admin.statusCode, admin.body).toBe(200);
    const { id } = await reportAbout(target);
    await moderateOk(t.app, p.moderator, id, {
      action: 'RESOLVE',
      userAction: 'SUSPENSION',
      suspensionDays: 1,
    });
    expect(await accountOf(target)).toEqual({ status: 'SUSPENDED', suspendedUntil: longUntil });
  });

  it('refuses to suspend a banned account (409) and leaves the report open', async () => {
    const target = await createUser(t.app);
    const { id, reporter } = await reportAbout(target);
    const ban = await t.app.inject({
      method: 'PATCH',
      url: `/admin/users/${target.id}`,
      headers: p.admin.headers,
      payload: { status: 'BANNED' },
    });
    expect(ban.statusCode).toBe(200);
    expectError(
      await moderate(t.app, p.moderator, id, { action: 'RESOLVE', userAction: 'SUSPENSION' }),
      409,
      'ACCOUNT_ALREADY_BANNED',
    );
    expect((await getReport(t.app, reporter, id)).status).toBe('PENDING');
    expect((await accountOf(target)).status).toBe('BANNED');
  });
});

describe('BAN', () => {
  it("refuses the banned user's existing key and token with 403 ACCOUNT_BANNED on the next request", async () => {
    const target = await createUser(t.app);
    const login = await t.app.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { login: target.username, password: target.password },
    });
    expect(login.statusCode).toBe(200);
    const token = (login.json() as { token: string }).token;
    expect((await me(target.headers)).statusCode).toBe(200);

    const { id } = await reportAbout(target);
    const result = await moderateOk(t.app, p.moderator, id, {
      action: 'RESOLVE',
      userAction: 'BAN',
      resolution: 'Repeated harassment',
    });
    expect(result.report).toMatchObject({
      status: 'RESOLVED',
      userAction: 'BAN',
      resolution: 'Repeated harassment',
    });

    expectError(await me(target.headers), 403, 'ACCOUNT_BANNED');
    expectError(await me({ authorization: `Bearer ${token}` }), 403, 'ACCOUNT_BANNED');
    expect((await accountOf(target)).status).toBe('BANNED');
    const keys = await t.app.context.database.db
      .selectFrom('api_keys')
      .select('revoked_at')
      .where('user_id', '=', target.id)
      .execute();
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.every((key) => key.revoked_at !== null)).toBe(true);
    expectError(await t.app.inject({ method: 'GET', url: `/users/${target.id}` }), 404);
  });

  it('a BAN with DISMISS is refused (400: userAction goes only with RESOLVE); the account is untouched', async () => {
    const target = await createUser(t.app);
    const { id } = await reportAbout(target);
    expectError(await moderate(t.app, p.moderator, id, { action: 'DISMISS', userAction: 'BAN' }), 400);
    expect((await accountOf(target)).status).toBe('ACTIVE');
    expect((await me(target.headers)).statusCode).toBe(200);
  });
});

describe('rank rules', () => {
  // [moderator persona, target role, expected status]
  const CASES: Array<['moderator' | 'admin' | 'superAdmin', Role, number]> = [
    ['moderator', 'USER', 200],
    ['moderator', 'MODERATOR', 403],
    ['moderator', 'ADMIN', 403],
    ['moderator', 'SUPER_ADMIN', 403],
    ['admin', 'MODERATOR', 200],
    ['admin', 'ADMIN', 403],
    ['admin', 'SUPER_ADMIN', 403],
    ['superAdmin', 'ADMIN', 200],
    ['superAdmin', 'SUPER_ADMIN', 200],
  ];

  it.each(CASES)('a %s banning a %s account: %i', async (persona, role, expected) => {
    const target = await createUser(t.app, { role });
    const { id, reporter } = await reportAbout(target);
    const response = await moderate(t.app, p[persona], id, { action: 'RESOLVE', userAction: 'BAN' });
    if (expected === 403) {
      expectError(response, 403, 'FORBIDDEN');
      expect((await getReport(t.app, reporter, id)).status).toBe('PENDING');
      expect((await accountOf(target)).status).toBe('ACTIVE');
      expect((await me(target.headers)).statusCode).toBe(200);
    } else {
      expect(response.statusCode, response.body).toBe(200);
      expectError(await me(target.headers), 403, 'ACCOUNT_BANNED');
    }
  });

  it.each(['WARNING', 'SUSPENSION'] as const)(
    'a moderator cannot give a %s to an admin (403)',
    async (userAction) => {
      const target = await createUser(t.app, { role: 'ADMIN' });
      const { id } = await reportAbout(target);
      expectError(await moderate(t.app, p.moderator, id, { action: 'RESOLVE', userAction }), 403);
      expect(await accountOf(target)).toEqual({ status: 'ACTIVE', suspendedUntil: null });
    },
  );

  it('a moderator may resolve a report about an admin without acting on the account (NONE)', async () => {
    const target = await createUser(t.app, { role: 'ADMIN' });
    const { id } = await reportAbout(target);
    await moderateOk(t.app, p.moderator, id, { action: 'RESOLVE', userAction: 'NONE' });
    await moderateOk(t.app, p.moderator, (await reportAbout(target)).id, { action: 'DISMISS' });
  });
});
