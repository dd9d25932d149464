// Counting the SQL statements a request costs, through the app's own metrics (the app must run with METRICS=on).
import { expect } from 'vitest';
import type { App } from '../../src/app.js';
import type { TestApp } from './app.js';

/**
 * Statements run so far, from the app's db_query_duration_seconds histogram: SELECTs only, or every kind (insert,
 * update, delete and other too: Kysely files raw `sql` queries as other, so a SELECT count alone misses them).
 */
async function countSoFar(app: App, kinds: 'select' | 'all'): Promise<number> {
  const response = await app.inject({ method: 'GET', url: '/metrics' });
  expect(response.statusCode).toBe(200);
  let total = 0;
  for (const match of response.body.matchAll(
    /^db_query_duration_seconds_count\{[^}]*operation="(\w+)"[^}]*\} (\d+)$/gm,
  )) {
    if (kinds === 'all' || match[1] === 'select') total += Number(match[2]);
  }
  return total;
}

/** The statements one request costs (the metrics reads' own cost cancels out: both sides include it). */
export async function statementCost(
  app: App,
  kinds: 'select' | 'all',
  request: () => Promise<unknown>,
): Promise<number> {
  const before = await countSoFar(app, kinds);
  await request();
  const after = await countSoFar(app, kinds);
  const idle = await countSoFar(app, kinds);
  return after - before - (idle - after);
}

/** Statements of every kind run so far. */
export const statementsSoFar = (t: TestApp): Promise<number> => countSoFar(t.app, 'all');

/** The SELECTs one request costs. */
export const selectsOf = (t: TestApp, request: () => Promise<unknown>): Promise<number> =>
  statementCost(t.app, 'select', request);

/** The statements of every kind one request costs. */
export const statementsOf = (t: TestApp, request: () => Promise<unknown>): Promise<number> =>
  statementCost(t.app, 'all', request);
