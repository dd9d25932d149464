// Start-up failures of the real process: one line on stderr naming the cause and the variable to check, exit
// code 1, no stack trace. And the scaled-out mode (PostgreSQL or S3) requires SECRET and writes nothing locally.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { startServer, stopAll } from '../helpers/server-process.js';

// Each case starts a whole process; on a loaded machine that alone can take tens of seconds.
const PROCESS_TEST_TIMEOUT_MS = 120_000;

const SECRET = 'a-secret-of-at-least-thirty-two-characters!';
let dir: string;
let occupied: Server;
let occupiedPort: number;
let refusedPort: number;

async function listenOnAnyPort(): Promise<Server> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return server;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'marketplace-startup-'));
  writeFileSync(join(dir, 'a-file'), '');
  occupied = await listenOnAnyPort();
  occupiedPort = (occupied.address() as { port: number }).port;
  const released = await listenOnAnyPort();
  refusedPort = (released.address() as { port: number }).port;
  await new Promise((done) => released.close(done));
});

afterAll(async () => {
  stopAll();
  await new Promise((done) => occupied.close(done));
  rmSync(dir, { recursive: true, force: true });
});

/** The stderr lines the server wrote, without Node's and the AWS SDK's own warnings. */
function ownLines(stderr: string): string[] {
  const lines = stderr.split('\n').filter((line) => line.trim() !== '');
  const last = lines.at(-1) ?? '';
  return lines.filter(
    (line) =>
      line === last ||
      !/warning|node >=22|a\.co\/|upgrade to node|versions published|updates to AWS|--trace-warnings/i.test(
        line,
      ),
  );
}

describe('start-up failures: one line naming the variable, exit 1, no stack trace', () => {
  const cases: [string, () => Record<string, string>, RegExp][] = [
    [
      'PostgreSQL unreachable',
      () => ({ DATABASE_URL: `postgres://app:hunter2@127.0.0.1:${refusedPort}/db`, SECRET }),
      /^Cannot open the database \(PostgreSQL at postgres:\/\/app:\*\*\*@127\.0\.0\.1:\d+\/db\): connect ECONNREFUSED .* — check DATABASE_URL$/,
    ],
    [
      'S3 unreachable',
      () => ({
        STORAGE: 's3',
        S3_BUCKET: 'media',
        S3_ENDPOINT: `http://127.0.0.1:${refusedPort}`,
        S3_FORCE_PATH_STYLE: 'true',
        S3_ACCESS_KEY_ID: 'key',
        S3_SECRET_ACCESS_KEY: 'secret',
        SECRET,
      }),
      /^Cannot reach S3 bucket "media" at http:\/\/127\.0\.0\.1:\d+: .*ECONNREFUSED.* — check S3_ENDPOINT, S3_BUCKET and the S3 credentials$/,
    ],
    [
      'SQLite folder missing',
      () => ({ DATABASE_URL: `sqlite:${join(dir, 'missing', 'folder', 'app.db')}` }),
      /^Cannot open the database \(SQLite at .*app\.db\): .*directory does not exist — check DATABASE_URL$/,
    ],
    [
      'DATA_DIR unusable',
      () => ({ DATA_DIR: join(dir, 'a-file', 'data') }),
      /^Invalid configuration: DATA_DIR is not usable for .*secret\.key \(ENOTDIR\): make it writable or set SECRET$/,
    ],
    [
      'port in use',
      () => ({ PORT: String(occupiedPort) }),
      /^Cannot listen on 127\.0\.0\.1:\d+: the port is already in use — check PORT$/,
    ],
    [
      'STORAGE=s3 without SECRET',
      () => ({ STORAGE: 's3', S3_BUCKET: 'media', DATA_DIR: join(dir, 'never-created') }),
      /^Invalid configuration: SECRET is required with PostgreSQL or STORAGE=s3/,
    ],
  ];

  it.concurrent.each(cases)(
    '%s',
    async (_name, env, expected) => {
      const server = startServer({ DATA_DIR: mkdtempSync(join(dir, 'data-')), PORT: '0', ...env() });
      const { code, stderr, stdout } = await server.exited;
      expect(code).toBe(1);
      const lines = ownLines(stderr);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(expected);
      expect(stderr + stdout).not.toMatch(/\n\s+at /);
      // The S3 case points DATA_DIR here: a refused start leaves nothing behind.
      expect(existsSync(join(dir, 'never-created'))).toBe(false);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});

describe('scaled-out mode: SECRET required, nothing written locally', () => {
  it('refuses STORAGE=s3 or a PostgreSQL DATABASE_URL without SECRET, without creating DATA_DIR', () => {
    const dataDir = join(dir, 'untouched');
    for (const env of [
      { STORAGE: 's3', S3_BUCKET: 'media' },
      { DATABASE_URL: 'postgres://app@db.internal:5432/marketplace' },
    ]) {
      let error: unknown;
      try {
        loadConfig({ DATA_DIR: dataDir, ...env });
      } catch (thrown) {
        error = thrown;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(/SECRET is required/);
      expect(existsSync(dataDir)).toBe(false);
    }
  });

  it('accepts them with SECRET and still writes nothing', () => {
    const dataDir = join(dir, 'still-untouched');
    const config = loadConfig({
      DATA_DIR: dataDir,
      STORAGE: 's3',
      S3_BUCKET: 'media',
      DATABASE_URL: 'postgres://app@db.internal:5432/marketplace',
      SECRET,
    });
    expect(config.secret).toBe(SECRET);
    expect(existsSync(dataDir)).toBe(false);
  });

  it('still generates DATA_DIR/secret.key once on a single machine (SQLite, local storage)', () => {
    const dataDir = join(dir, 'single');
    const first = loadConfig({ DATA_DIR: dataDir }).secret;
    expect(existsSync(join(dataDir, 'secret.key'))).toBe(true);
    expect(loadConfig({ DATA_DIR: dataDir }).secret).toBe(first);
  });
});
