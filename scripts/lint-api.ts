// npm run lint:api — lints the OpenAPI document the app serves (issue 12): the same document the client is
// generated from (scripts/dump-openapi.ts), written under node_modules/.cache (the path .redocly.lint-ignore.yaml
// names), then both pinned linters: Spectral (`spectral:oas`, .spectral.yaml) and Redocly (recommended,
// redocly.yaml). Exits non-zero when either reports an error; prints the counts per linter.
// `--keep <file>` also keeps a copy of the document.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { dumpOpenApi } from './dump-openapi.js';

const root = resolve(import.meta.dirname, '..');
const bin = (name: string) => join(root, 'node_modules', '.bin', name);

interface Counts {
  errors: number;
  warnings: number;
}

function spectral(file: string): Counts {
  const run = spawnSync(
    bin('spectral'),
    ['lint', file, '--ruleset', join(root, '.spectral.yaml'), '--format', 'json', '--quiet'],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  let results: Array<{ severity: number; code: string; message: string; path: string[] }>;
  try {
    results = JSON.parse(run.stdout || '[]');
  } catch {
    process.stderr.write(run.stdout + run.stderr);
    throw new Error('spectral did not produce JSON');
  }
  for (const result of results) {
    const level = result.severity === 0 ? 'error' : result.severity === 1 ? 'warning' : 'info';
    process.stdout.write(`spectral ${level} ${result.code}: ${result.message} at ${result.path.join('.')}\n`);
  }
  return {
    errors: results.filter((result) => result.severity === 0).length,
    warnings: results.filter((result) => result.severity === 1).length,
  };
}

function redocly(file: string): Counts {
  const run = spawnSync(
    bin('redocly'),
    ['lint', file, '--config', join(root, 'redocly.yaml'), '--format', 'json'],
    {
      cwd: root,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off' },
    },
  );
  const start = run.stdout.indexOf('{');
  let report: {
    totals: Counts;
    problems: Array<{
      ruleId: string;
      severity: string;
      message: string;
      location: Array<{ pointer: string }>;
    }>;
  };
  try {
    report = JSON.parse(run.stdout.slice(start));
  } catch {
    process.stderr.write(run.stdout + run.stderr);
    throw new Error('redocly did not produce JSON');
  }
  for (const problem of report.problems) {
    const where = problem.location.map((location) => location.pointer).join(', ');
    process.stdout.write(`redocly ${problem.severity} ${problem.ruleId}: ${problem.message} at ${where}\n`);
  }
  return { errors: report.totals.errors, warnings: report.totals.warnings };
}

{
  const document = await dumpOpenApi();
  const cache = join(root, 'node_modules', '.cache', 'lint-api');
  mkdirSync(cache, { recursive: true });
  const file = join(cache, 'openapi.json');
  writeFileSync(file, document);
  const keep = process.argv.indexOf('--keep');
  if (keep !== -1 && process.argv[keep + 1]) writeFileSync(process.argv[keep + 1]!, document);
  const spectralCounts = spectral(file);
  const redoclyCounts = redocly(file);
  process.stdout.write(
    `\nspectral: ${spectralCounts.errors} errors, ${spectralCounts.warnings} warnings\n` +
      `redocly:  ${redoclyCounts.errors} errors, ${redoclyCounts.warnings} warnings\n`,
  );
  process.exitCode = spectralCounts.errors + redoclyCounts.errors > 0 ? 1 : 0;
}
