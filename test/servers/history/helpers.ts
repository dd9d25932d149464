// Seeding and reading the history tables directly: a constructed series is faster and more exact than
// minutes of simulated reports.
import { expect } from 'vitest';
import type { App } from '../../../src/app.js';
import { ROLLUP_JOB, SAMPLE_JOB } from '../../../src/modules/servers/history/register.js';

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

export const iso = (time: number | string) => new Date(time).toISOString();

export interface SampleRow {
  server_id: string;
  minute_at: string;
  online: boolean;
  online_players: number;
  max_players: number;
}

export interface RollupRow {
  server_id: string;
  hour_at: string;
  online_minutes: number;
  player_minutes: number;
  peak_players: number;
  max_players: number;
}

export async function seedSamples(app: App, rows: SampleRow[]): Promise<void> {
  const { db } = app.context.database;
  for (let i = 0; i < rows.length; i += 1000) {
    await db
      .insertInto('server_samples')
      .values(rows.slice(i, i + 1000))
      .execute();
  }
}

export async function seedRollups(app: App, rows: RollupRow[]): Promise<void> {
  const { db } = app.context.database;
  for (let i = 0; i < rows.length; i += 1000) {
    await db
      .insertInto('server_rollups')
      .values(rows.slice(i, i + 1000))
      .execute();
  }
}

export async function samplesOf(app: App, serverId: string): Promise<SampleRow[]> {
  const rows = await app.context.database.db
    .selectFrom('server_samples')
    .selectAll()
    .where('server_id', '=', serverId)
    .orderBy('minute_at')
    .execute();
  return rows.map((row) => ({ ...row, online: Boolean(row.online) }));
}

export async function rollupsOf(app: App, serverId: string): Promise<RollupRow[]> {
  const rows = await app.context.database.db
    .selectFrom('server_rollups')
    .selectAll()
    .where('server_id', '=', serverId)
    .orderBy('hour_at')
    .execute();
  return rows.map((row) => ({
    ...row,
    online_minutes: Number(row.online_minutes),
    player_minutes: Number(row.player_minutes),
  }));
}

export async function runSample(app: App): Promise<void> {
  expect(await app.context.scheduler.runNow(SAMPLE_JOB)).toBe(true);
}

export async function runRollup(app: App): Promise<void> {
  expect(await app.context.scheduler.runNow(ROLLUP_JOB)).toBe(true);
}
