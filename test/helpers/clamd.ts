// A real ClamAV daemon for the scanning tests (spec/extensions.md §2.4): Debian's clamav-daemon binary started in
// the foreground with a private config in a temp dir, a unix socket there (no port to race for; `tcp: true`
// listens on a free port of 127.0.0.1 instead) and a signature database written here — signature downloads are
// impossible in tests, and a one-line .hdb (md5:size:name of INFECTED_SAMPLE) loads in well under a second.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ping, parseClamdAddress } from '../../src/core/files/clamd.js';

export const CLAMD_BINARY = process.env['CLAMD_BINARY'] ?? '/usr/sbin/clamd';

/** The file the test database signs: clamd reports it as `${SAMPLE_SIGNATURE}.UNOFFICIAL`. */
export const INFECTED_SAMPLE = Buffer.from(
  'marketplace scanning test sample: not a virus, signed by the test\n',
);
export const SAMPLE_SIGNATURE = 'Marketplace.Test.Sample';

export interface Clamd {
  /** CLAMAV_URL for the app: the socket path, or tcp://127.0.0.1:port. */
  url: string;
  /** Stops the daemon (the address stays reserved for start()). */
  stop(): Promise<void>;
  /** Starts it again on the same address (nothing when it runs). */
  start(): Promise<void>;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

export async function startClamd(options: { streamMaxBytes?: number; tcp?: boolean } = {}): Promise<Clamd> {
  const dir = mkdtempSync(join(tmpdir(), 'clamd-'));
  const md5 = createHash('md5').update(INFECTED_SAMPLE).digest('hex');
  writeFileSync(join(dir, 'test.hdb'), `${md5}:${INFECTED_SAMPLE.length}:${SAMPLE_SIGNATURE}\n`);
  const socketPath = join(dir, 'clamd.sock');
  const listen = options.tcp
    ? [`TCPSocket ${await freePort()}`, 'TCPAddr 127.0.0.1']
    : [`LocalSocket ${socketPath}`];
  const url = options.tcp ? `tcp://127.0.0.1:${listen[0]!.split(' ')[1]}` : socketPath;
  const configPath = join(dir, 'clamd.conf');
  writeFileSync(
    configPath,
    [
      'Foreground yes',
      ...listen,
      `DatabaseDirectory ${dir}`,
      `TemporaryDirectory ${dir}`,
      `LogFile ${join(dir, 'clamd.log')}`,
      `StreamMaxLength ${options.streamMaxBytes ?? 10 * 1024 * 1024}`,
      'MaxThreads 4',
      // The test database never changes; no reload checks while tests run.
      'SelfCheck 0',
      '',
    ].join('\n'),
  );

  let child: ChildProcess | undefined;
  const address = parseClamdAddress(url);

  async function start(): Promise<void> {
    if (child !== undefined && child.exitCode === null) return;
    // A unix socket left by a killed daemon makes clamd refuse to start.
    if (!options.tcp && existsSync(socketPath)) rmSync(socketPath);
    const spawned = spawn(CLAMD_BINARY, ['-c', configPath], { stdio: 'ignore' });
    child = spawned;
    // A test process that dies without close() must not leave a daemon behind.
    const killOnExit = () => spawned.kill('SIGKILL');
    process.once('exit', killOnExit);
    spawned.once('exit', () => process.off('exit', killOnExit));
    let exited = false;
    spawned.once('exit', () => (exited = true));
    const deadline = Date.now() + 15_000;
    for (;;) {
      try {
        await ping(address, { timeoutMs: 1000 });
        return;
      } catch (error) {
        if (exited || Date.now() > deadline) {
          const log = existsSync(join(dir, 'clamd.log')) ? readFileSync(join(dir, 'clamd.log'), 'utf8') : '';
          throw new Error(`clamd did not start (${String(error)}):\n${log.slice(-2000)}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  }

  async function stop(): Promise<void> {
    const running = child;
    child = undefined;
    if (running === undefined || running.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill('SIGTERM');
    await exited;
  }

  await start();
  return {
    url,
    start,
    stop,
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
