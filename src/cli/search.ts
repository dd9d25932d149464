// search rebuild [--index NAME]… [--exclusive]: the search indexes rewritten from the tables they derive from
// (modules/search/rebuild.ts), after a restore or a repair by hand, or to check how long a rebuild takes.
import { printResult, progress, UsageError, withDatabase } from './command.js';
import type { Command } from './command.js';

const INDEXES = ['resources', 'servers', 'teams', 'users'] as const;
type IndexName = (typeof INDEXES)[number];

/** At most one progress line per index per second, and always the last one. */
const PROGRESS_INTERVAL_MS = 1_000;

export const searchCommand: Command = {
  name: 'search',
  summary: 'Rebuild the search indexes (all, or --index resources|servers|teams|users)',
  help: `Usage: cli search rebuild [--index NAME]… [--exclusive]

Rewrites the search documents from the resources, servers, teams and users they are made from, index by index,
with progress lines on stderr ("resources 12000/89861 1450/s"), then prints one line
{"resources": documents, "servers": documents, "teams": documents, "users": documents, "seconds": s}.
The server may keep running: searches answer from a partial index until the rebuild ends, and writes made
meanwhile are kept (each refreshes its own document).

  --index NAME    resources, servers, teams or users; repeat it or separate names by commas (default: all)
  --exclusive     nothing else writes meanwhile (server stopped): each index is rebuilt in one transaction
                  with its per-row upkeep set aside and done once at the end (SQLite: the resource index,
                  about twice as fast; PostgreSQL: every index and the facet triggers, 3.5x at 100k);
                  writers, and on PostgreSQL readers of the index, wait for it

Example: npm run --silent cli -- search rebuild --index resources`,
  options: { index: { type: 'string', multiple: true }, exclusive: { type: 'boolean' } },
  positionals: true,
  async run({ values, positionals, config }) {
    const [action, ...extra] = positionals;
    if (action !== 'rebuild') throw new UsageError('Say `search rebuild`');
    if (extra.length > 0) throw new UsageError(`Unexpected argument ${extra[0]}`);
    const given = values['index'] as unknown as string[] | undefined;
    const names = given?.flatMap((value) => value.split(',')).map((value) => value.trim());
    const unknown = names?.filter((name) => !(INDEXES as readonly string[]).includes(name));
    if (unknown !== undefined && unknown.length > 0) {
      throw new UsageError(`Unknown index ${unknown[0]}; indexes: ${INDEXES.join(', ')}`);
    }
    const { rebuildSearchIndexes } = await import('../modules/search/rebuild.js');
    await withDatabase(config, async ({ db, dialect }) => {
      const started = performance.now();
      const last = new Map<string, { at: number; done: number }>();
      const result = await rebuildSearchIndexes(
        db,
        dialect,
        ({ index, done, total }) => {
          const now = performance.now();
          const previous = last.get(index) ?? { at: started, done: 0 };
          if (now - previous.at < PROGRESS_INTERVAL_MS && done < total) return;
          const rate = Math.round(((done - previous.done) * 1000) / Math.max(1, now - previous.at));
          progress(`${index} ${done}/${total} ${rate}/s`);
          last.set(index, { at: now, done });
        },
        names as IndexName[] | undefined,
        { exclusive: values['exclusive'] === true },
      );
      printResult({ ...result, seconds: Math.round(performance.now() - started) / 1000 });
    });
  },
};
