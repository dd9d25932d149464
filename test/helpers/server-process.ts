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
  /** Sends `signal` (SIGTERM: a graceful shutdown; SIGKILL: a crash) and resolves once the process is gone. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
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
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    const { code, signal: endedBy } = await exited;
    return { code, signal: endedBy };
  };
  return { child, listening, exited, stdout: () => stdout, stop };
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

/** A request with an optional JSON body, on a fresh connection; the answer's body as text. */
export function send(
  port: number,
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers: Record<string, string> = { ...options.headers };
  if (payload !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(Buffer.byteLength(payload));
  }
  return new Promise((done, fail) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => done({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', fail);
    req.end(payload);
  });
}

export interface ProcessUser {
  id: string;
  username: string;
  /** Authenticates as this user with an API key made through the API. */
  headers: { 'x-api-key': string };
}

function expectStatus(answer: Answer, status: number, what: string): void {
  if (answer.status !== status) throw new Error(`${what}: ${answer.status} ${answer.body}`);
}

/** An account as a client makes one: register, log in, create an API key. */
export async function signUp(port: number, username: string): Promise<ProcessUser> {
  const password = 'a long password';
  const registered = await send(port, 'POST', '/auth/register', {
    body: { username, email: `${username}@example.com`, password },
  });
  expectStatus(registered, 201, 'register');
  const login = await send(port, 'POST', '/auth/login', { body: { login: username, password } });
  expectStatus(login, 200, 'login');
  const { token } = JSON.parse(login.body) as { token: string };
  const created = await send(port, 'POST', '/users/me/api-keys', {
    body: { name: 'process test' },
    headers: { authorization: `Bearer ${token}` },
  });
  expectStatus(created, 201, 'create API key');
  const { key } = JSON.parse(created.body) as { key: string };
  const { user } = JSON.parse(registered.body) as { user: { id: string } };
  return { id: user.id, username, headers: { 'x-api-key': key } };
}
