// npm run lint:api — lints the OpenAPI document the app serves (issue 12). Builds the app on the embedded
// defaults (a temporary SQLite database and data directory, no network, no jobs), writes its /openapi.json to a
// file under node_modules/.cache (the path .redocly.lint-ignore.yaml names) and runs both pinned linters on it: Spectral (`spectral:oas`, .spectral.yaml) and Redocly
// (recommended, redocly.yaml). Exits non-zero when either reports an error; prints the counts per linter.
// `--keep <file>` also keeps a copy of the document.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';

const root = resolve(import.meta.dirname, '..');
const bin = (name: string) => join(root, 'node_modules', '.bin', name);

async function dumpDocument(dataDir: string): Promise<string> {
  const config = loadConfig({
    DATA_DIR: dataDir,
    DATABASE_URL: `sqlite:${join(dataDir, 'lint.db')}`,
    PUBLIC_URL: 'https://marketplace.example.org',
    LOG_LEVEL: 'silent',
  });
  const app = await buildApp({ config });
  try {
    await app.ready();
    const response = await app.inject({ method: 'GET', url: '/openapi.json' });
    if (response.statusCode !== 200) throw new Error(`/openapi.json answered ${response.statusCode}`);
    return response.body;
  } finally {
    await app.close();
  }
}

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

const dataDir = mkdtempSync(join(tmpdir(), 'lint-api-'));
try {
  const document = await dumpDocument(dataDir);
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
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
