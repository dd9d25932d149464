// `npx tsx bench/scale-kinds.ts <kind> [count]`: one `bench:scale` query kind on a kept database, in this process
// through `app.inject` (no server, no network, no pinning), printing p50 / p90 / p99 and the slowest URLs. For
// same-state before/after comparisons: run it from two worktrees, one right after the other, on the same kept
// database (a kept 1M seed shares the machine's page cache with everything else, so figures taken at different
// times do not compare). The database must be migrated to the code's latest migration (the app migrates it).
//
// Environment: DB (a database URL: sqlite:<file> or postgres://…, required), SEED (URL generator seed, 5),
// TAGS (comma-separated tag slugs for the kinds that filter by tag; by default the seeded tags, drawn as
// bench:scale draws them; the fourth and fifth sessions' pairs pinned exploration,decoration,economy), SUFFIX
// (appended to every URL, e.g. `&sortBy=relevance` or `&facets=tags,type`: a kind's variant), DATABASE_WORK_MEM_MB
// (PostgreSQL, as the service reads it; other service settings are this script's own).
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { distinctUrls, queryContext, queryKinds } from './scale/queries.js';
import type { QueryContext } from './scale/queries.js';
import { prng } from './scale/random.js';
import { vocabulary } from './scale/text.js';

const [kindName, countArg] = process.argv.slice(2);
const databaseUrl = process.env['DB'];
if (kindName === undefined || databaseUrl === undefined) {
  console.error('usage: DB=<database url> npx tsx bench/scale-kinds.ts <kind> [count]');
  process.exit(2);
}
const config = loadConfig({
  DATA_DIR: process.env['DATA_DIR'] ?? '/tmp/scale-kinds',
  DATABASE_URL: databaseUrl,
  SECRET: 'bench-secret-'.padEnd(40, 'x'),
  RATE_LIMIT: 'off',
  LOG_LEVEL: 'silent',
  // The service's own setting, so that a work_mem experiment plans as the service would.
  ...(process.env['DATABASE_WORK_MEM_MB']
    ? { DATABASE_WORK_MEM_MB: process.env['DATABASE_WORK_MEM_MB'] }
    : {}),
});
const app = await buildApp({ config });
await app.ready();
// The seeded catalogs, as bench:scale draws from them; TAGS pins the tags of the kinds that filter by tag.
const seeded = await queryContext(app.context.database, vocabulary(17));
const context: QueryContext = process.env['TAGS']
  ? { ...seeded, tagSlugs: process.env['TAGS'].split(',') }
  : seeded;
const kind = queryKinds(context).find((candidate) => candidate.name === kindName);
if (kind === undefined) {
  console.error(
    `no kind ${kindName}: ${queryKinds(context)
      .map((k) => k.name)
      .join(', ')}`,
  );
  await app.close();
  process.exit(2);
}
const suffix = process.env['SUFFIX'] ?? '';
const urls = distinctUrls(kind, Number(countArg ?? 150), prng(Number(process.env['SEED'] ?? 5))).map(
  (url) => `${url}${suffix}`,
);
const timings: Array<{ ms: number; url: string; total: number | undefined }> = [];
for (const url of urls) {
  const started = performance.now();
  const response = await app.inject({ method: 'GET', url });
  const body = response.json() as { meta?: { total?: number } };
  timings.push({ ms: performance.now() - started, url, total: body.meta?.total });
}
await app.close();
timings.sort((a, b) => a.ms - b.ms);
const at = (q: number) =>
  timings[Math.min(timings.length - 1, Math.floor(q * timings.length))]!.ms.toFixed(1);
console.log(`${kindName}: n=${timings.length} p50 ${at(0.5)} p90 ${at(0.9)} p99 ${at(0.99)} ms`);
// ALL=1 prints every URL's time (slowest last), not only the slowest eight.
for (const { ms, url, total } of timings.slice(process.env['ALL'] ? 0 : -8))
  console.log(`  ${ms.toFixed(1)} ms ${url} (total ${total})`);
