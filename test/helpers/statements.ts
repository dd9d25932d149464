// Counting the SQL statements a request costs, through the app's own metrics (the app must run with METRICS=on).
import { expect } from 'vitest';
import type { TestApp } from './app.js';

/** SELECT statements run so far, from the app's db_query_duration_seconds histogram. */
async function selects(t: TestApp): Promise<number> {
  const response = await t.app.inject({ method: 'GET', url: '/metrics' });
  expect(response.statusCode).toBe(200);
  const line = response.body
    .split('\n')
    .find((l) => l.startsWith('db_query_duration_seconds_count{operation="select"}'));
  return Number(line?.split(' ').pop() ?? 0);
}

/** The SELECTs one request costs (the metrics reads' own cost cancels out). */
export async function selectsOf(t: TestApp, request: () => Promise<unknown>): Promise<number> {
  const before = await selects(t);
  await request();
  const after = await selects(t);
  const idle = await selects(t);
  return after - before - (idle - after);
}
