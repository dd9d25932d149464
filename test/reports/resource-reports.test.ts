// Resource reports: the reasons, visibility (a resource the caller may not see is 404), reporting your own
// resource, the type kept at report time, and what moderators see and may do.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createPersonas, createUser } from '../helpers/factories.js';
import type { Personas, TestUser } from '../helpers/factories.js';
import { expectError } from '../helpers/http.js';
import { addMember, createTeam } from '../teams/helpers.js';
import {
  addContributor,
  expectReportCounters,
  fileResourceReport,
  getReport,
  insertResource,
  moderate,
  moderateOk,
} from './helpers.js';

const RESOURCE_REASONS = [
  'SPAM',
  'REUPLOADED_WORK',
  'INAPPROPRIATE',
  'MALICIOUS',
  'NAME_SQUATTING',
  'POOR_DESCRIPTION',
  'INVALID_METADATA',
  'OTHER',
];

let t: TestApp;
let p: Personas;
let owner: TestUser;

beforeAll(async () => {
  t = await buildTestApp();
  p = await createPersonas(t.app);
  owner = await createUser(t.app);
});
afterAll(async () => t.close());
afterEach(async () => expectReportCounters(t.app));

const ownedBy = (user: TestUser) => ({ type: 'USER' as const, id: user.id });

async function detail(id: string) {
  const response = await t.app.inject({
    method: 'GET',
    url: `/reports/moderation/${id}`,
    headers: p.superAdmin.headers,
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as {
    resourceType: string;
    resource: {
      id: string;
      type: string;
      status: string;
      resourceTypeAtReport: string;
      owner: { type: string; id: string; name: string };
    } | null;
    reportedUser: { id: string; previousReports: number } | null;
  };
}

describe('POST /reports/resources/:resourceId', () => {
  it('files a PENDING report with the resource type and answers the interface shape', async () => {
    const resource = await insertResource(t.app, ownedBy(owner), { type: 'PLUGIN' });
    const response = await fileResourceReport(t.app, p.user, resource.id, {
      reason: 'MALICIOUS',
      description: 'Downloads a miner',
    });
    expect(response.statusCode, response.body).toBe(201);
    const body = response.json() as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(
      ['createdAt', 'id', 'reason', 'reporterId', 'resourceId', 'resourceType', 'status'].sort(),
    );
    expect(body).toMatchObject({
      reporterId: p.user.id,
      resourceId: resource.id,
      resourceType: 'PLUGIN',
      reason: 'MALICIOUS',
      status: 'PENDING',
    });
    const stored = await getReport(t.app, p.user, body['id'] as string);
    expect(stored).toMatchObject({
      targetType: 'RESOURCE',
      reportedUserId: null,
      description: 'Downloads a miner',
      evidence: null,
    });
  });

  it.each(RESOURCE_REASONS)('accepts the reason %s', async (reason) => {
    const resource = await insertResource(t.app, ownedBy(owner));
    const response = await fileResourceReport(t.app, p.user, resource.id, { reason, description: 'why' });
    expect(response.statusCode, response.body).toBe(201);
  });

  it.each(['HARASSMENT', 'CHEATING', 'IMPERSONATION', 'malicious'])(
    'rejects the reason %s (400)',
    async (reason) => {
      const resource = await insertResource(t.app, ownedBy(owner));
      expectError(await fileResourceReport(t.app, p.user, resource.id, { reason }), 400);
    },
  );

  it('refuses OTHER without a description (400)', async () => {
    const resource = await insertResource(t.app, ownedBy(owner));
    expectError(await fileResourceReport(t.app, p.user, resource.id, { reason: 'OTHER' }), 400);
  });

  it('ignores evidence on a resource report', async () => {
    const resource = await insertResource(t.app, ownedBy(owner));
    const response = await fileResourceReport(t.app, p.user, resource.id, { reason: 'SPAM', evidence: 'x' });
    expect(response.statusCode).toBe(201);
    expect((await getReport(t.app, p.user, response.json().id)).evidence).toBeNull();
  });

  it('keeps the type the resource had when it was reported', async () => {
    const resource = await insertResource(t.app, ownedBy(owner), { type: 'MOD' });
    const id = (await fileResourceReport(t.app, p.user, resource.id)).json().id as string;
    await t.app.context.database.db
      .updateTable('resources')
      .set({ type: 'MODPACK' })
      .where('id', '=', resource.id)
      .execute();
    expect((await getReport(t.app, p.user, id)).resourceType).toBe('MOD');
    const body = await detail(id);
    expect(body.resourceType).toBe('MOD');
    expect(body.resource).toMatchObject({ type: 'MODPACK', resourceTypeAtReport: 'MOD' });
  });

  it('answers 404 for an unknown resource', async () => {
    expectError(
      await fileResourceReport(t.app, p.user, '0190aaaa-0000-7000-8000-000000000000'),
      404,
      'NOT_FOUND',
    );
  });

  it.each(['PENDING', 'REJECTED', 'SUSPENDED'] as const)(
    'answers 404 to a stranger for a %s resource; contributors and moderators may report it',
    async (status) => {
      const resource = await insertResource(t.app, ownedBy(owner), { status });
      expectError(await fileResourceReport(t.app, p.stranger, resource.id), 404);
      const contributor = await createUser(t.app);
      await addContributor(t.app, resource.id, contributor);
      expect((await fileResourceReport(t.app, contributor, resource.id)).statusCode).toBe(201);
      expect((await fileResourceReport(t.app, p.moderator, resource.id)).statusCode).toBe(201);
    },
  );

  it('refuses the user owner reporting their own resource (400 SELF_REPORT), whatever its status', async () => {
    for (const status of ['APPROVED', 'PENDING'] as const) {
      const resource = await insertResource(t.app, ownedBy(owner), { status });
      expectError(await fileResourceReport(t.app, owner, resource.id), 400, 'SELF_REPORT');
    }
  });

  it("team resources: the team's OWNER and ADMIN cannot report them (400), a MEMBER can", async () => {
    const [teamOwner, teamAdmin, teamMember] = await Promise.all([
      createUser(t.app),
      createUser(t.app),
      createUser(t.app),
    ]);
    const team = await createTeam(t.app, teamOwner);
    await addMember(t.app, team.id, teamOwner, teamAdmin, 'ADMIN');
    await addMember(t.app, team.id, teamOwner, teamMember, 'MEMBER');
    const resource = await insertResource(t.app, { type: 'TEAM', id: team.id }, { status: 'PENDING' });
    expectError(await fileResourceReport(t.app, teamOwner, resource.id), 400, 'SELF_REPORT');
    expectError(await fileResourceReport(t.app, teamAdmin, resource.id), 400, 'SELF_REPORT');
    expect((await fileResourceReport(t.app, teamMember, resource.id)).statusCode).toBe(201);
    expectError(await fileResourceReport(t.app, p.stranger, resource.id), 404);
  });

  it('allows one open report per reporter and resource (409), in parallel too', async () => {
    const resource = await insertResource(t.app, ownedBy(owner));
    const reporter = await createUser(t.app);
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => fileResourceReport(t.app, reporter, resource.id)),
    );
    expect(responses.map((response) => response.statusCode).sort()).toEqual([
      201,
      ...Array<number>(9).fill(409),
    ]);
    expectError(
      responses.find((response) => response.statusCode === 409)!,
      409,
      'REPORT_ALREADY_OPEN',
    );
    // A user report by the same reporter about the owner is a different target.
    const userReport = await t.app.inject({
      method: 'POST',
      url: `/reports/users/${owner.id}`,
      headers: reporter.headers,
      payload: { reason: 'SPAM' },
    });
    expect(userReport.statusCode).toBe(201);
  });

  it('answers 401 without credentials', async () => {
    const resource = await insertResource(t.app, ownedBy(owner));
    expectError(
      await t.app.inject({
        method: 'POST',
        url: `/reports/resources/${resource.id}`,
        payload: { reason: 'SPAM' },
      }),
      401,
    );
  });
});

describe('moderating resource reports', () => {
  it('shows the resource, its user owner as reportedUser with previousReports, in the detail and the queue', async () => {
    const resourceOwner = await createUser(t.app);
    const resource = await insertResource(t.app, ownedBy(resourceOwner), { type: 'WORLD' });
    await t.app.inject({
      method: 'POST',
      url: `/reports/users/${resourceOwner.id}`,
      headers: p.stranger.headers,
      payload: { reason: 'SPAM' },
    });
    const id = (await fileResourceReport(t.app, p.user, resource.id)).json().id as string;
    const body = await detail(id);
    expect(body.resource).toEqual({
      id: resource.id,
      name: expect.any(String),
      slug: resource.slug,
      type: 'WORLD',
      status: 'APPROVED',
      resourceTypeAtReport: 'WORLD',
      owner: { type: 'USER', id: resourceOwner.id, name: resourceOwner.username },
    });
    expect(body.reportedUser).toMatchObject({ id: resourceOwner.id, previousReports: 1 });

    const list = await t.app.inject({
      method: 'GET',
      url: '/reports/moderation/all?status=PENDING&limit=100',
      headers: p.moderator.headers,
    });
    const item = (
      list.json().reports as Array<{ id: string; resource: unknown; reportedUser: unknown }>
    ).find((report) => report.id === id)!;
    expect(item.resource).toMatchObject({ id: resource.id, slug: resource.slug, type: 'WORLD' });
    expect(item.reportedUser).toBeNull();
  });

  it('shows a team owner by name, with no reportedUser', async () => {
    const teamOwner = await createUser(t.app);
    const team = await createTeam(t.app, teamOwner, { name: 'Blocky Builders' });
    const resource = await insertResource(t.app, { type: 'TEAM', id: team.id });
    const id = (await fileResourceReport(t.app, p.user, resource.id)).json().id as string;
    const body = await detail(id);
    expect(body.resource?.owner).toEqual({ type: 'TEAM', id: team.id, name: 'Blocky Builders' });
    expect(body.reportedUser).toBeNull();
  });

  it('refuses userAction on a resource report (400); RESOLVE alone works', async () => {
    const resource = await insertResource(t.app, ownedBy(owner));
    const id = (await fileResourceReport(t.app, p.user, resource.id)).json().id as string;
    expectError(await moderate(t.app, p.moderator, id, { action: 'RESOLVE', userAction: 'WARNING' }), 400);
    expectError(await moderate(t.app, p.moderator, id, { action: 'RESOLVE', userAction: 'NONE' }), 400);
    const result = await moderateOk(t.app, p.moderator, id, { action: 'RESOLVE', resolution: 'Removed' });
    expect(result.report.status).toBe('RESOLVED');
  });

  it('refuses a moderator who owns the resource, or belongs to the owning team (403)', async () => {
    const moderatorResource = await insertResource(t.app, ownedBy(p.moderator));
    const aboutOwn = (await fileResourceReport(t.app, p.user, moderatorResource.id)).json().id as string;
    expectError(await moderate(t.app, p.moderator, aboutOwn, { action: 'DISMISS' }), 403);

    const teamOwner = await createUser(t.app);
    const team = await createTeam(t.app, teamOwner);
    await addMember(t.app, team.id, teamOwner, p.moderator, 'MEMBER');
    const teamResource = await insertResource(t.app, { type: 'TEAM', id: team.id });
    const aboutTeam = (await fileResourceReport(t.app, p.user, teamResource.id)).json().id as string;
    expectError(await moderate(t.app, p.moderator, aboutTeam, { action: 'DISMISS' }), 403);
    await moderateOk(t.app, p.admin, aboutTeam, { action: 'DISMISS' });
  });

  it('keeps the report when the resource is deleted: the detail shows resource null', async () => {
    const resource = await insertResource(t.app, ownedBy(owner));
    const id = (await fileResourceReport(t.app, p.user, resource.id)).json().id as string;
    await t.app.context.database.db.deleteFrom('resources').where('id', '=', resource.id).execute();
    const body = await detail(id);
    expect(body.resource).toBeNull();
    expect(body.resourceType).toBe('MOD');
    expect((await getReport(t.app, p.user, id)).resourceId).toBe(resource.id);
    await moderateOk(t.app, p.moderator, id, { action: 'RESOLVE', resolution: 'Gone' });
  });
});
