// Measuring the service for `npm run bench:scale`: the compiled server in its own process (bench/server.mjs:
// rate limits off, warn-level logs), sequential latency over distinct URLs, throughput under 50 connections over
// a rotating list of distinct URLs, and server CPU per request for writes.
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import autocannon from 'autocannon';

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** With two or more CPUs and taskset: the service on CPU 0, this process (the load) on CPU 1, as bench/run.ts. */
export const pin = process.env['BENCH_PIN'] !== '0' && availableParallelism() >= 2 && hasTaskset();

export interface Service {
  child: ChildProcess;
  port: number;
  base: string;
}

/** The compiled build when it is up to date or can be built; from source (tsx) when the build fails. */
export function prepareBuild(): 'compiled' | 'source' {
  if (process.env['BENCH_SCALE_FROM_SOURCE'] === '1') return 'source';
  try {
    execFileSync(process.execPath, ['scripts/ensure-build.mjs'], { stdio: 'inherit' });
    return 'compiled';
  } catch {
    console.warn('The build failed: the service runs from source (tsx) instead.');
    return 'source';
  }
}

const SOURCE_SERVER = `
import { buildApp } from './src/app.ts';
import { loadConfig } from './src/config.ts';
const config = loadConfig({ ...process.env, RATE_LIMIT: 'off', LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' });
const app = await buildApp({ config });
await app.listen({ port: 0, host: '127.0.0.1' });
process.send?.({ ready: true, port: app.server.address().port });
process.on('message', (m) => { if (m === 'cpu') process.send?.({ cpu: process.cpuUsage() }); });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
`;

export function startService(env: Record<string, string>, mode: 'compiled' | 'source'): Promise<Service> {
  return new Promise((resolve, reject) => {
    const node =
      mode === 'compiled'
        ? [process.execPath, 'bench/server.mjs']
        : [process.execPath, '--import', 'tsx', '--input-type=module', '-e', SOURCE_SERVER];
    const [command, ...args] = pin ? ['taskset', '-c', '0', ...node] : node;
    const child = spawn(command!, args, {
      env: { ...process.env, ...env, PORT: '0' },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.once('message', (message: { port: number }) =>
      resolve({ child, port: message.port, base: `http://127.0.0.1:${message.port}` }),
    );
    child.once('exit', (code) => reject(new Error(`the service exited with ${code}`)));
  });
}

export async function stopService(service: Service): Promise<void> {
  service.child.removeAllListeners('exit');
  const exited = new Promise((resolve) => service.child.once('exit', resolve));
  service.child.kill('SIGTERM');
  await exited;
}

/** Server CPU time (user + system), µs. */
export function cpuOf(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    child.once('message', (message: { cpu: NodeJS.CpuUsage }) =>
      resolve(message.cpu.user + message.cpu.system),
    );
    child.send('cpu');
  });
}

export interface Latency {
  requests: number;
  p50: number;
  p99: number;
  max: number;
  /** Requests above 500 ms. */
  slow: number;
  statuses: Record<string, number>;
  /** Answers with meta.totalExact === false. */
  inexact: number;
  /** Answers carrying meta.facets. */
  withFacets: number;
  /** The first non-2xx answer's body (why a kind is unsupported). */
  firstError?: string;
  /** The time budget ran out before every URL was asked. */
  cut: boolean;
}

export const percentile = (sorted: readonly number[], p: number): number =>
  sorted.length === 0
    ? Number.NaN
    : sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;

/** One request at a time (so the latency is the server's), each URL once, within a time budget. */
export async function sequential(
  base: string,
  urls: readonly string[],
  headers: Record<string, string>,
  budgetSeconds: number,
): Promise<Latency> {
  const times: number[] = [];
  const statuses: Record<string, number> = {};
  let inexact = 0;
  let withFacets = 0;
  let firstError: string | undefined;
  const deadline = performance.now() + budgetSeconds * 1000;
  for (const url of urls) {
    if (performance.now() > deadline) break;
    const started = performance.now();
    const response = await fetch(base + url, { headers });
    const body = await response.text();
    times.push(performance.now() - started);
    statuses[response.status] = (statuses[response.status] ?? 0) + 1;
    if (response.status >= 300) {
      firstError ??= `${response.status} ${body.slice(0, 200)}`;
      continue;
    }
    const meta = (JSON.parse(body) as { meta?: { totalExact?: boolean; facets?: unknown } }).meta;
    if (meta?.totalExact === false) inexact += 1;
    if (meta?.facets !== undefined) withFacets += 1;
  }
  const sorted = [...times].sort((a, b) => a - b);
  return {
    requests: times.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.at(-1) ?? Number.NaN,
    slow: times.filter((t) => t > 500).length,
    statuses,
    inexact,
    withFacets,
    ...(firstError === undefined ? {} : { firstError }),
    cut: times.length < urls.length,
  };
}

/**
 * Waits until the service has worked off what a load run left queued (autocannon stops sending at the end of
 * its duration, not the service answering): a cheap uncached request, which waits behind that backlog in the
 * event loop (SQLite) or the connection pool (PostgreSQL), answers fast twice in a row. At most 120 s.
 */
export async function drain(service: Service): Promise<number> {
  const started = performance.now();
  let fast = 0;
  for (let probe = 0; fast < 2 && performance.now() - started < 120_000; probe++) {
    const sent = performance.now();
    await (await fetch(`${service.base}/teams?search=drain${probe}x${Math.floor(sent)}`)).arrayBuffer();
    fast = performance.now() - sent < 50 ? fast + 1 : 0;
    if (fast < 2) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return (performance.now() - started) / 1000;
}

export interface Throughput {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  cpuPerRequest: number;
  /** Seconds the service needed afterwards to answer promptly again. */
  drainSeconds: number;
  /** Answers by status code. */
  statuses: Record<string, number>;
}

/** `connections` connections for `seconds`, every request the next URL of the list (no two alike in a row). */
export async function throughput(
  service: Service,
  urls: readonly string[],
  headers: Record<string, string>,
  seconds: number,
  connections = 50,
): Promise<Throughput> {
  let next = 0;
  const before = await cpuOf(service.child);
  const result = await autocannon({
    url: service.base,
    connections,
    duration: seconds,
    headers,
    requests: [
      {
        setupRequest: (request) => {
          request.path = urls[next++ % urls.length]!;
          return request;
        },
      },
    ],
  });
  const cpu = (await cpuOf(service.child)) - before;
  const drained = await drain(service);
  return {
    drainSeconds: drained,
    statuses: Object.fromEntries(
      Object.entries(result.statusCodeStats ?? {}).map(([code, stat]) => [code, stat.count ?? 0]),
    ),
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    cpuPerRequest: cpu / Math.max(1, result.requests.total),
  };
}
