// Tables of `npm run bench:scale`: one per dialect and size, then the growth per kind across sizes, with the
// issue's targets (p50 ≤ 20 ms, p99 ≤ 100 ms, nothing over 500 ms, ≥ 500 req/s under 50 connections at the
// largest size; p50 growth smallest → largest under 3×).
import type { RunResult } from '../scale.js';

function table(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((cell, i) => (cell ?? '').padEnd(widths[i]!)).join(' | ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('-|-'));
  for (const row of rows) console.log(line(row));
}

const ms = (value: number) => (Number.isNaN(value) ? '—' : value < 10 ? value.toFixed(1) : value.toFixed(0));
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** "unsupported" when every answer was a 400 (a parameter the service does not know yet). */
export function verdict(result: RunResult['kinds'][number]): string {
  const { statuses, requests } = result.latency;
  if ((statuses['400'] ?? 0) === requests) return 'unsupported (400)';
  const notes: string[] = [];
  const other = Object.entries(statuses).filter(([status]) => status !== '200');
  if (other.length > 0) notes.push(other.map(([s, n]) => `${n}×${s}`).join(' '));
  if (result.kind.includes('facets') && result.latency.withFacets === 0) notes.push('no meta.facets');
  if (result.latency.inexact > 0) notes.push(`${result.latency.inexact} totalExact:false`);
  if (result.latency.cut) notes.push(`time budget: ${requests}/${result.distinct}`);
  return notes.join('; ');
}

/** Non-2xx answers by status and connection errors of a load run, e.g. " (12×503, 3 errors)". */
function loadErrors(load: NonNullable<RunResult['kinds'][number]['throughput']>): string {
  const parts = Object.entries(load.statuses)
    .filter(([code]) => !code.startsWith('2'))
    .map(([code, n]) => `${n}×${code}`);
  if (load.errors > 0) parts.push(`${load.errors} errors`);
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}

export function printRun(result: RunResult): void {
  console.log(
    `\n${result.dialect}, ${result.size.toLocaleString('en')} resources ` +
      `(${result.counts.approvedResources.toLocaleString('en')} approved, ${result.counts.servers.toLocaleString('en')} ` +
      `servers, ${result.counts.users.toLocaleString('en')} users, ${result.counts.teams} teams)`,
  );
  const phases = Object.entries(result.seedSeconds).map(([phase, s]) => `${phase} ${s.toFixed(1)} s`);
  const reused = result.reused ? ' (when the kept database was seeded; this run reused it)' : '';
  const analyze = result.dialect === 'postgres' ? 'vacuum (analyze)' : 'analyze';
  console.log(`seed: ${phases.join(', ')}; ${analyze} ${result.analyzeSeconds.toFixed(1)} s${reused}`);
  // One figure per search table with its indexes and FTS shadow tables.
  const groups = new Map<string, number>();
  for (const [name, bytes] of Object.entries(result.index.tables)) {
    const group =
      /[a-z]+_(search|facet_counts|facets?)/.exec(name.replace(/^sqlite_autoindex_/, ''))?.[0] ?? name;
    groups.set(group, (groups.get(group) ?? 0) + bytes);
  }
  const tables = [...groups].map(([name, bytes]) => `${name} ${mb(bytes)}`);
  const buffers = result.sharedBuffers && `; PostgreSQL shared_buffers ${result.sharedBuffers}`;
  console.log(
    `search index ${mb(result.index.searchBytes)} of ${mb(result.index.totalBytes)} (${tables.join(', ')})` +
      `${buffers ?? ''}\n`,
  );
  table(
    ['kind', 'requests', 'p50 ms', 'p99 ms', 'max ms', '>500 ms', 'req/s (50 conn)', 'CPU µs/req', 'notes'],
    result.kinds.map((k) => [
      k.kind,
      String(k.latency.requests),
      ms(k.latency.p50),
      ms(k.latency.p99),
      ms(k.latency.max),
      String(k.latency.slow),
      k.throughput ? `${k.throughput.rps.toFixed(0)}${loadErrors(k.throughput)}` : '—',
      k.throughput ? k.throughput.cpuPerRequest.toFixed(0) : '—',
      verdict(k),
    ]),
  );
  const writes = Object.entries(result.writes);
  if (writes.length > 0) {
    console.log('');
    table(
      ['write', 'requests', 'failed', 'CPU µs/req (server)', 'p50 ms', 'first error'],
      writes.map(([name, w]) => [
        name,
        String(w.requests),
        String(w.failed),
        w.cpuPerRequest.toFixed(0),
        ms(w.p50),
        w.firstError ?? '',
      ]),
    );
  }
}

export function printGrowth(results: RunResult[]): void {
  if (results.length === 0) return;
  const sorted = [...results].sort((a, b) => a.size - b.size);
  const smallest = sorted[0]!;
  const largest = sorted.at(-1)!;
  console.log(
    `\n${largest.dialect}: p50 / p99 ms per size, growth ${smallest.size.toLocaleString('en')} → ` +
      `${largest.size.toLocaleString('en')} and the targets at the largest size\n`,
  );
  const header = ['kind', ...sorted.map((r) => r.size.toLocaleString('en')), 'growth p50', 'targets'];
  const rows = largest.kinds.map((k) => {
    const cells = sorted.map((r) => {
      const at = r.kinds.find((x) => x.kind === k.kind);
      return at ? `${ms(at.latency.p50)} / ${ms(at.latency.p99)}` : '—';
    });
    const first = smallest.kinds.find((x) => x.kind === k.kind);
    const growth = first ? k.latency.p50 / first.latency.p50 : Number.NaN;
    const misses: string[] = [];
    if (verdict(k).startsWith('unsupported')) misses.push('unsupported');
    if (k.latency.p50 > 20) misses.push('p50');
    if (k.latency.p99 > 100) misses.push('p99');
    if (k.latency.max > 500) misses.push('max');
    if (growth >= 3) misses.push('growth');
    if (k.throughput !== undefined && k.throughput.rps < 500) misses.push('req/s');
    return [
      k.kind,
      ...cells,
      Number.isNaN(growth) ? '—' : `${growth.toFixed(2)}×`,
      misses.length ? `MISS ${misses.join(',')}` : 'ok',
    ];
  });
  table(header, rows);
}
