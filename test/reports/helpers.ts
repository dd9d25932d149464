// Report fixtures: reports filed and moderated through the HTTP API, resources inserted straight into the
// database (the resources module's routes are not needed to report one), and the counter invariant every
// report test re-checks.
import { expect } from 'vitest';
import type { App } from '../../src/app.js';
import type { ResourceStatus, ResourceType } from '../../src/core/db/schema.js';
import { newId } from '../../src/core/ids.js';
import type { TestUser } from '../helpers/factories.js';

export interface ReportBody {
  id: string;
  reporterId: string;
  targetType: 'USER' | 'RESOURCE';
  reportedUserId: string | null;
  resourceType: string | null;
  resourceId: string | null;
  reason: string;
  description: string | null;
  evidence: string | null;
  status: string;
  resolution: string | null;
  moderatorNotes: string | null;
  moderatedBy: string | null;
  moderatedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export function fileUserReport(
  app: App,
  by: TestUser,
  userId: string,
  payload: Record<string, unknown> = { reason: 'SPAM' },
) {
  return app.inject({ method: 'POST', url: `/reports/users/${userId}`, headers: by.headers, payload });
}

export function fileResourceReport(
  app: App,
  by: TestUser,
  resourceId: string,
  payload: Record<string, unknown> = { reason: 'SPAM' },
) {
  return app.inject({
    method: 'POST',
    url: `/reports/resources/${resourceId}`,
    headers: by.headers,
    payload,
  });
}

/** Files a user report that must succeed; its id. */
export async function reportOf(app: App, by: TestUser, target: TestUser, payload?: Record<string, unknown>) {
  const response = await fileUserReport(app, by, target.id, payload);
  expect(response.statusCode, response.body).toBe(201);
  return (response.json() as { id: string }).id;
}

export function moderate(app: App, by: TestUser, reportId: string, payload: Record<string, unknown>) {
  return app.inject({
    method: 'PATCH',
    url: `/reports/moderation/${reportId}`,
    headers: by.headers,
    payload,
  });
}

/** A moderation action that must succeed. */
export async function moderateOk(app: App, by: TestUser, reportId: string, payload: Record<string, unknown>) {
  const response = await moderate(app, by, reportId, payload);
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as {
    message: string;
    report: {
      id: string;
      status: string;
      resolution: string | null;
      moderatedBy: string | null;
      moderatedAt: string | null;
    };
  };
}

export type ReportStatusName = 'PENDING' | 'UNDER_REVIEW' | 'RESOLVED' | 'DISMISSED';

/** Moves a fresh PENDING report to `status` the way moderators do. */
export async function bringTo(app: App, moderator: TestUser, reportId: string, status: ReportStatusName) {
  if (status === 'PENDING') return;
  if (status === 'UNDER_REVIEW') await moderateOk(app, moderator, reportId, { action: 'TAKE_UNDER_REVIEW' });
  if (status === 'RESOLVED') await moderateOk(app, moderator, reportId, { action: 'RESOLVE' });
  if (status === 'DISMISSED') await moderateOk(app, moderator, reportId, { action: 'DISMISS' });
}

export async function getReport(app: App, by: TestUser, reportId: string): Promise<ReportBody> {
  const response = await app.inject({ method: 'GET', url: `/reports/${reportId}`, headers: by.headers });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as ReportBody;
}

let resourceSequence = 0;

export interface ResourceFixture {
  id: string;
  slug: string;
  type: ResourceType;
}

/** Inserts a resource row owned by a user or a team. */
export async function insertResource(
  app: App,
  owner: { type: 'USER' | 'TEAM'; id: string },
  options: { status?: ResourceStatus; type?: ResourceType } = {},
): Promise<ResourceFixture> {
  resourceSequence += 1;
  const now = app.context.clock.now().toISOString();
  const slug = `reported-${process.pid}-${resourceSequence}`;
  const row = {
    id: newId(),
    name: `Resource ${resourceSequence}`,
    name_key: `resource ${resourceSequence}`,
    slug,
    short_description: 'A resource under test',
    description: 'Long description',
    type: options.type ?? 'MOD',
    status: options.status ?? 'APPROVED',
    owner_type: owner.type,
    owner_id: owner.id,
    icon_key: null,
    banner_key: null,
    latest_version_id: null,
    created_at: now,
    updated_at: now,
  };
  await app.context.database.db.insertInto('resources').values(row).execute();
  return { id: row.id, slug, type: row.type };
}

export async function addContributor(app: App, resourceId: string, user: TestUser): Promise<void> {
  const now = app.context.clock.now().toISOString();
  await app.context.database.db
    .insertInto('resource_contributors')
    .values({
      id: newId(),
      resource_id: resourceId,
      user_id: user.id,
      role: 'CONTRIBUTOR',
      created_at: now,
      updated_at: now,
    })
    .execute();
}

/** The per-status counters equal the number of reports in each status (checked after every report test). */
export async function expectReportCounters(app: App): Promise<void> {
  const { db } = app.context.database;
  const [counters, reports] = await Promise.all([
    db.selectFrom('counters').select(['name', 'value']).where('name', 'like', 'reports.status.%').execute(),
    db.selectFrom('reports').select('status').execute(),
  ]);
  for (const status of ['PENDING', 'UNDER_REVIEW', 'RESOLVED', 'DISMISSED']) {
    const counter = counters.find((row) => row.name === `reports.status.${status}`);
    expect(Number(counter?.value), `counter of ${status}`).toBe(
      reports.filter((report) => report.status === status).length,
    );
  }
}
