// Every report endpoint × every persona (anonymous, another user, the reporter, moderator, admin, super admin):
// the status each gets. Each case runs on a fresh report so a successful write cannot leak into the next.
import type { InjectOptions } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createPersonas, createUser } from '../helpers/factories.js';
import type { Personas, TestUser } from '../helpers/factories.js';
import { expectError } from '../helpers/http.js';
import { expectReportCounters, reportOf } from './helpers.js';

type Persona = 'anonymous' | 'user' | 'reporter' | 'moderator' | 'admin' | 'superAdmin';
const PERSONAS: readonly Persona[] = ['anonymous', 'user', 'reporter', 'moderator', 'admin', 'superAdmin'];

let t: TestApp;
let p: Personas;
let reporter: TestUser;

beforeAll(async () => {
  t = await buildTestApp();
  p = await createPersonas(t.app);
  reporter = await createUser(t.app);
});
afterAll(async () => t.close());
afterEach(async () => expectReportCounters(t.app));

interface Scenario {
  reportId: string;
  /** Nobody has reported this user yet. */
  freshTarget: TestUser;
}

async function scenario(): Promise<Scenario> {
  const [target, freshTarget] = await Promise.all([createUser(t.app), createUser(t.app)]);
  return { reportId: await reportOf(t.app, reporter, target), freshTarget };
}

function headersOf(persona: Persona): Record<string, string> {
  if (persona === 'anonymous') return {};
  if (persona === 'reporter') return reporter.headers;
  return p[persona].headers;
}

type Expected = Record<Persona, number>;
const signedIn = (ok: number): Expected => ({
  anonymous: 401,
  user: ok,
  reporter: ok,
  moderator: ok,
  admin: ok,
  superAdmin: ok,
});
const reporterOrStaff = (ok: number, staff: number): Expected => ({
  ...signedIn(ok),
  user: 404,
  moderator: staff,
  admin: staff,
  superAdmin: staff,
});
const staffOnly = (ok: number): Expected => ({ ...signedIn(ok), user: 403, reporter: 403 });

const CASES: Array<{ name: string; request: (s: Scenario) => InjectOptions; expected: Expected }> = [
  {
    name: 'POST /reports/users/:userId',
    request: (s) => ({
      method: 'POST',
      url: `/reports/users/${s.freshTarget.id}`,
      payload: { reason: 'SPAM' },
    }),
    expected: signedIn(201),
  },
  {
    name: 'GET /reports/me',
    request: () => ({ method: 'GET', url: '/reports/me' }),
    expected: signedIn(200),
  },
  {
    name: 'GET /reports/:reportId',
    request: (s) => ({ method: 'GET', url: `/reports/${s.reportId}` }),
    expected: reporterOrStaff(200, 200),
  },
  {
    name: 'DELETE /reports/:reportId',
    request: (s) => ({ method: 'DELETE', url: `/reports/${s.reportId}` }),
    expected: reporterOrStaff(200, 403),
  },
  {
    name: 'GET /reports/moderation/all',
    request: () => ({ method: 'GET', url: '/reports/moderation/all' }),
    expected: staffOnly(200),
  },
  {
    name: 'GET /reports/moderation/:reportId',
    request: (s) => ({ method: 'GET', url: `/reports/moderation/${s.reportId}` }),
    expected: staffOnly(200),
  },
  {
    name: 'PATCH /reports/moderation/:reportId',
    request: (s) => ({
      method: 'PATCH',
      url: `/reports/moderation/${s.reportId}`,
      payload: { action: 'TAKE_UNDER_REVIEW' },
    }),
    expected: staffOnly(200),
  },
  {
    name: 'DELETE /reports/moderation/:reportId',
    request: (s) => ({ method: 'DELETE', url: `/reports/moderation/${s.reportId}` }),
    expected: { ...staffOnly(200), moderator: 403 },
  },
];

const TABLE = CASES.flatMap((testCase) =>
  PERSONAS.map((persona) => [testCase.name, persona, testCase.expected[persona], testCase] as const),
);

describe('report permissions', () => {
  it.each(TABLE)('%s as %s → %i', async (_name, persona, expected, testCase) => {
    const s = await scenario();
    const request = testCase.request(s);
    const response = await t.app.inject({
      ...request,
      headers: { ...(request.headers as Record<string, string> | undefined), ...headersOf(persona) },
    });
    if (expected >= 400) expectError(response, expected);
    else expect(response.statusCode, response.body).toBe(expected);
  });
});
