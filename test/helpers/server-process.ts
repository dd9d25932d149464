// The real server as a child process (`node --import tsx src/server.ts`), for what only a process shows: exit
// codes, signals, start-up failures. Every started process is killed by stopAll() if a test left it running.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { resolve } from 'node:path';

const ENTRY = resolve('src/server.ts');
const running = new Set<ChildProcess>();

export interface ServerProcess {
  child: ChildProcess;
  /** Resolves once the server listens; rejects when the process exits first. */
  listening: Promise<{ port: number; url: string }>;
  /** Resolves with the exit code (or signal name) and everything written to stdout and stderr. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
  stdout(): string;
}

export function startServer(env: Record<string, string>): ServerProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', ENTRY], {
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? '',
      LOG_LEVEL: 'info',
      RATE_LIMIT: 'off',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
    stderr: string;
  }>((done) =>
    child.once('close', (code, signal) => {
      running.delete(child);
      done({ code, signal, stdout, stderr });
    }),
  );
  const listening = new Promise<{ port: number; url: string }>((resolveListening, reject) => {
    const onData = () => {
      const match = /Server listening at (http:\/\/127\.0\.0\.1:(\d+))/.exec(stdout);
      if (match) {
        child.stdout!.off('data', onData);
        resolveListening({ url: match[1]!, port: Number(match[2]) });
      }
    };
    child.stdout!.on('data', onData);
    void exited.then((result) =>
      reject(new Error(`server exited (${result.code}) before listening: ${result.stderr}${result.stdout}`)),
    );
  });
  listening.catch(() => {});
  return { child, listening, exited, stdout: () => stdout };
}

/** Kills whatever a failed test left running. */
export function stopAll(): void {
  for (const child of running) child.kill('SIGKILL');
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request on a fresh connection (no keep-alive). */
export function get(port: number, path: string): Promise<Answer> {
  return new Promise((done, fail) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => done({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', fail);
    req.end();
  });
}
