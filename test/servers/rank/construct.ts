// A constructed directory for the rank tests: servers with chosen listing ages, votes (inside and outside the 30
// days) and hourly rollups (inside and outside the 7 days), and the score each one should get, computed here
// from the definitions in spec/extensions.md §3 — independently of the SQL that the job runs.
import type { App } from '../../../src/app.js';
import type { ManualClock } from '../../../src/core/clock.js';
import { newId } from '../../../src/core/ids.js';
import type { Personas } from '../../helpers/factories.js';
import { createServer, moderate } from '../helpers.js';
import type { ServerBody } from '../helpers.js';

export const HOUR = 60 * 60 * 1000;
export const DAY = 24 * HOUR;
/** "Now" for the constructed set: 25 minutes into an hour, so the current hour is partly gone. */
export const NOW = Date.parse('2026-02-20T10:25:00.000Z');
const ROLLUPS_END = Date.parse('2026-02-20T10:00:00.000Z');
const ROLLUPS_START = ROLLUPS_END - 7 * DAY;

export interface Weights {
  votes: number;
  players: number;
  uptime: number;
  age: number;
}
export const DEFAULT_WEIGHTS: Weights = { votes: 0.5, players: 2, uptime: 30, age: 1 / 3 };

interface Rollup {
  hourAt: number;
  onlineMinutes: number;
  playerMinutes: number;
}

interface Spec {
  name: string;
  createdAgo: number;
  /** Undefined: never approved. */
  listedAgo?: number;
  suspend?: boolean;
  /** Vote times, as "ms before NOW". */
  votesAgo: number[];
  rollups: Rollup[];
}

/** Every hour of the 7 days (and `extra` around them) with the given minutes. */
function hours(from: number, to: number, minutes: (hourAt: number) => [online: number, players: number]) {
  const rows: Rollup[] = [];
  for (let at = from; at < to; at += HOUR) {
    const [onlineMinutes, playerMinutes] = minutes(at);
    rows.push({ hourAt: at, onlineMinutes, playerMinutes });
  }
  return rows;
}

const repeat = (count: number, ago: number) => Array.from({ length: count }, () => ago);

export const SPECS: Spec[] = [
  // Equal inputs past the 30-day age cap: the older listing wins the tie.
  { name: 'alpha-old-quiet', createdAgo: 46 * DAY, listedAgo: 45 * DAY, votesAgo: [], rollups: [] },
  { name: 'bravo-old-quiet', createdAgo: 41 * DAY, listedAgo: 40 * DAY, votesAgo: [], rollups: [] },
  {
    // Young: the 7-day averages count only the minutes since its creation.
    name: 'charlie-young-busy',
    createdAgo: 3 * DAY + 30 * 60_000,
    listedAgo: 2 * DAY,
    votesAgo: [],
    rollups: hours(ROLLUPS_END - 3 * DAY, ROLLUPS_END, () => [60, 300]),
  },
  {
    name: 'delta-voted',
    createdAgo: 11 * DAY,
    listedAgo: 10 * DAY,
    // 30 votes inside the 30 days (one just inside), 20 outside.
    votesAgo: [...repeat(29, 2 * DAY), 30 * DAY - 1000, ...repeat(20, 30 * DAY + 1000)],
    rollups: [],
  },
  {
    name: 'echo-half-online',
    createdAgo: 21 * DAY,
    listedAgo: 20 * DAY,
    votesAgo: [],
    // Every other hour online with 20 players; plus an hour before the window and the current hour, both ignored.
    rollups: [
      ...hours(ROLLUPS_START, ROLLUPS_END, (at) =>
        ((at - ROLLUPS_START) / HOUR) % 2 === 0 ? [60, 1200] : [0, 0],
      ),
      { hourAt: ROLLUPS_START - HOUR, onlineMinutes: 60, playerMinutes: 60_000 },
      { hourAt: ROLLUPS_END, onlineMinutes: 25, playerMinutes: 25_000 },
    ],
  },
  {
    name: 'foxtrot-new',
    createdAgo: 1 * DAY + HOUR,
    listedAgo: 1 * DAY,
    votesAgo: repeat(4, HOUR),
    rollups: [{ hourAt: ROLLUPS_END, onlineMinutes: 25, playerMinutes: 25_000 }],
  },
  { name: 'golf-one-vote', createdAgo: 36 * DAY, listedAgo: 35 * DAY, votesAgo: [29 * DAY], rollups: [] },
  {
    name: 'hotel-suspended',
    createdAgo: 50 * DAY,
    listedAgo: 49 * DAY,
    suspend: true,
    votesAgo: repeat(100, DAY),
    rollups: [],
  },
  // Never approved: a score, but no rank and no place in the list.
  { name: 'india-pending', createdAgo: 5 * DAY, votesAgo: repeat(200, DAY), rollups: [] },
];

export interface Built {
  server: ServerBody;
  spec: Spec;
  createdAt: number;
  listedAt: number | null;
}

/** Creates and moderates the servers at their times (clock), then writes their votes and rollups; clock at NOW. */
export async function buildDirectory(app: App, clock: ManualClock, p: Personas, prefix: string) {
  const built: Built[] = [];
  for (const spec of SPECS) {
    const createdAt = NOW - spec.createdAgo;
    clock.set(new Date(createdAt));
    const server = await createServer(app, p.user, { name: spec.name, slug: `${prefix}-${spec.name}` });
    let listedAt: number | null = null;
    if (spec.listedAgo !== undefined) {
      listedAt = NOW - spec.listedAgo;
      clock.set(new Date(listedAt));
      await moderate(app, p.moderator, server.id, 'approve');
      if (spec.suspend === true) {
        clock.advance(HOUR);
        await moderate(app, p.moderator, server.id, 'suspend');
      }
    }
    built.push({ server, spec, createdAt, listedAt });
  }
  clock.set(new Date(NOW));
  const { db } = app.context.database;
  const votes = built.flatMap(({ server, spec }) =>
    spec.votesAgo.map((ago) => ({
      id: newId(),
      server_id: server.id,
      user_id: p.stranger.id,
      username: 'Voter',
      client_key: '203.0.113.7',
      address: '203.0.113.7',
      created_at: new Date(NOW - ago).toISOString(),
    })),
  );
  for (let i = 0; i < votes.length; i += 200) {
    await db
      .insertInto('server_votes' as never)
      .values(votes.slice(i, i + 200) as never)
      .execute();
  }
  const rollups = built.flatMap(({ server, spec }) =>
    spec.rollups.map((r) => ({
      server_id: server.id,
      hour_at: new Date(r.hourAt).toISOString(),
      online_minutes: r.onlineMinutes,
      player_minutes: r.playerMinutes,
      peak_players: 0,
      max_players: 100,
    })),
  );
  for (let i = 0; i < rollups.length; i += 500) {
    await db
      .insertInto('server_rollups')
      .values(rollups.slice(i, i + 500))
      .execute();
  }
  return built;
}

export interface Expected {
  votes30d: number;
  averagePlayers7d: number;
  uptime7d: number;
  daysListed: number;
  score: number;
}

/** The score of spec/extensions.md §3 with the shared definitions (15-shared), at NOW. */
export function expectedScore(entry: Built, weights: Weights): Expected {
  const { spec, createdAt, listedAt } = entry;
  const votes30d = spec.votesAgo.filter((ago) => NOW - ago >= NOW - 30 * DAY).length;
  const counted = Math.max(ROLLUPS_START, Math.floor(createdAt / 60_000) * 60_000);
  const intervals = Math.max(0, (ROLLUPS_END - counted) / 60_000);
  const inWindow = spec.rollups.filter((r) => r.hourAt >= ROLLUPS_START && r.hourAt < ROLLUPS_END);
  const online = inWindow.reduce((sum, r) => sum + r.onlineMinutes, 0);
  const players = inWindow.reduce((sum, r) => sum + r.playerMinutes, 0);
  const averagePlayers7d = intervals === 0 ? 0 : players / intervals;
  const uptime7d = intervals === 0 ? 0 : Math.min(1, online / intervals);
  const daysListed = listedAt === null ? 0 : (NOW - listedAt) / DAY;
  const score =
    weights.votes * votes30d +
    weights.players * averagePlayers7d +
    weights.uptime * uptime7d +
    weights.age * Math.min(daysListed, 30);
  return { votes30d, averagePlayers7d, uptime7d, daysListed, score };
}

/** The listed servers in the formula's order: score, then older listing, then id. */
export function expectedOrder(built: Built[], weights: Weights): string[] {
  return built
    .filter((entry) => entry.listedAt !== null && entry.spec.suspend !== true)
    .map((entry) => ({ entry, score: expectedScore(entry, weights).score }))
    .sort(
      (a, b) =>
        b.score - a.score ||
        a.entry.listedAt! - b.entry.listedAt! ||
        (a.entry.server.id < b.entry.server.id ? -1 : 1),
    )
    .map(({ entry }) => entry.spec.name);
}
