// jobs list / jobs run NAME: the periodic jobs, as the server registers them, and their recorded runs.
import { readJobRuns } from '../core/jobs/job-runs.repo.js';
import { printResult, progress, UsageError, withApp } from './command.js';
import type { Command } from './command.js';

export const jobsCommand: Command = {
  name: 'jobs',
  summary: 'List the periodic jobs with their last run, or run one now',
  help: `Usage: cli jobs list
       cli jobs run NAME

list   prints {"jobs": [{name, lastStartedAt, lastFinishedAt, lastStatus, lastError, runCount, failureCount}]}
run    runs the job now, due or not, and records the run like the scheduler does; exit 1 when it fails`,
  options: {},
  positionals: true,
  async run({ positionals, config }) {
    const [action, name, ...extra] = positionals;
    if (extra.length > 0) throw new UsageError(`Unexpected argument ${extra[0]}`);
    await withApp(config, async (app) => {
      const { scheduler, database } = app.context;
      if (action === 'list' && name === undefined) {
        const runs = new Map((await readJobRuns(database.db)).map((row) => [row.name, row]));
        printResult({
          jobs: scheduler.jobs().map((job) => {
            const row = runs.get(job);
            return {
              name: job,
              lastStartedAt: row?.last_started_at ?? null,
              lastFinishedAt: row?.last_finished_at ?? null,
              lastStatus: row?.last_status ?? null,
              lastError: row?.last_error ?? null,
              runCount: row?.run_count ?? 0,
              failureCount: row?.failure_count ?? 0,
            };
          }),
        });
        return;
      }
      if (action !== 'run' || name === undefined) throw new UsageError('Say `jobs list` or `jobs run NAME`');
      if (!scheduler.jobs().includes(name)) {
        throw new UsageError(`Unknown job ${name}; jobs: ${scheduler.jobs().join(', ')}`);
      }
      progress(`Running ${name}…`);
      const started = Date.now();
      if (!(await scheduler.runNow(name))) throw new Error(`${name} is running in another process right now`);
      printResult({ job: name, ok: true, durationMs: Date.now() - started });
    });
  },
};
