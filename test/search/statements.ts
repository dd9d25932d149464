// The statements the database runs while some work does, as the search tests trace them.
import Database from 'better-sqlite3';
import pg from 'pg';

type Run = 'all' | 'get' | 'run' | 'iterate';
const RUNS: Run[] = ['all', 'get', 'run', 'iterate'];
const sqliteStatement = new Database(':memory:').prepare('select 1');

/** A statement as run: its text (lower case), its parameters, and whether sequential scans were off for it. */
export interface TracedStatement {
  text: string;
  params: unknown[];
  seqScanOff: boolean;
}

/** Whether a connection started with sequential scans off (the index-plan pool's, core/db/index-plan-pool.ts). */
const startsOff = (client: object): boolean =>
  /-c enable_seqscan=off\b/.test(
    (client as { connectionParameters?: { options?: string } }).connectionParameters?.options ?? '',
  );

/**
 * The statements each pooled PostgreSQL connection runs while `work` does, each marked with whether sequential
 * scans were off for it: the connection started so, or they were set off in its transaction (`set local`, or
 * set_config by withIndexPlans inside a caller's) and not yet put back. On SQLite, the statements run (never
 * marked).
 */
export async function statementsOf(work: () => Promise<void>): Promise<TracedStatement[]> {
  const seen: TracedStatement[] = [];
  const off = new WeakMap<object, boolean>();
  const query = pg.Client.prototype.query;
  const traced = function (this: object, ...args: unknown[]) {
    const first = args[0] as string | { text?: string; values?: unknown[] };
    const text = (typeof first === 'string' ? first : (first.text ?? '')).trim().toLowerCase();
    if (!off.has(this)) off.set(this, startsOff(this));
    if (text === 'begin' || text === 'commit' || text === 'rollback') off.set(this, startsOff(this));
    else if (/set local enable_seqscan = off|set_config\('enable_seqscan', 'off'/.test(text))
      off.set(this, true);
    else if (text.includes("set_config('enable_seqscan', $1")) off.set(this, false);
    else {
      const params = typeof first === 'string' ? args[1] : first.values;
      seen.push({ text, params: Array.isArray(params) ? params : [], seqScanOff: off.get(this) === true });
    }
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  };
  // SQLite's statements are prepared once and kept: their runs are traced.
  const statement = Object.getPrototypeOf(sqliteStatement) as Record<Run, (...a: unknown[]) => unknown>;
  const runs = Object.fromEntries(RUNS.map((name) => [name, statement[name]!]));
  for (const name of RUNS) {
    statement[name] = function (this: Database.Statement, ...args: unknown[]) {
      seen.push({ text: this.source.trim().toLowerCase(), params: args, seqScanOff: false });
      return runs[name]!.apply(this, args);
    };
  }
  pg.Client.prototype.query = traced as typeof query;
  try {
    await work();
  } finally {
    pg.Client.prototype.query = query;
    for (const name of RUNS) statement[name] = runs[name]!;
  }
  return seen;
}
