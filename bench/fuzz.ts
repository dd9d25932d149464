// `npm run fuzz`: hostile requests generated from /openapi.json against a real listener of the app, on SQLite
// (default) or PostgreSQL (FUZZ_DATABASE_URL or the first argument, e.g. postgres://postgres@127.0.0.1/postgres:
// a schema is created for the run and dropped after). Every operation gets type-confused, oversized, unicode,
// NUL and huge values, malformed and deeply nested JSON, wrong content types and malformed percent-encoding,
// anonymously and with keys; odd methods and malformed HTTP go over raw sockets. Exits 1 on any 5xx, any error
// without the one shape, any FST_ code, or any response without x-content-type-options / x-request-id.
// FUZZ_SECONDS (default 60) bounds the time, FUZZ_REQUESTS (default 12,000) the count; FUZZ_SEED makes it repeat.
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createAccount } from '../src/modules/auth/accounts.js';
import { createApiKeysService } from '../src/modules/api-keys/api-keys.service.js';

const SECONDS = Number(process.env['FUZZ_SECONDS'] ?? 60);
const MAX_REQUESTS = Number(process.env['FUZZ_REQUESTS'] ?? 12_000);
const SEED = Number(process.env['FUZZ_SEED'] ?? 1);
const CONCURRENCY = Number(process.env['FUZZ_CONCURRENCY'] ?? 8);
const DATABASE_URL = process.argv[2] ?? process.env['FUZZ_DATABASE_URL'];
/** FUZZ_TRACE=1 prints every request and its status: the last "> " line without a "< " is the one that hung. */
const TRACE = process.env['FUZZ_TRACE'] === '1';

// mulberry32: small, seedable, good enough to pick cases.
let state = SEED >>> 0;
function random(): number {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const chance = (p: number) => random() < p;

const deep = (levels: number) => JSON.parse(`${'['.repeat(levels)}${']'.repeat(levels)}`) as unknown;
// prettier-ignore
const HOSTILE_STRINGS = [
  '', ' ', 'a'.repeat(300), 'a'.repeat(100_001), '\u0000', 'a\u0000b', '🎮'.repeat(60), '\ud800', 'ǅ\u202e\u200b',
  "' OR 1=1 --", '<script>alert(1)</script>', '../../etc/passwd', '%00', '%E0%A4%A', 'null', '1e20', 'Infinity',
];
const HOSTILE_NUMBERS = [1e308, -1e308, 1e20, -1, 0, 2 ** 31, 2 ** 53 + 2, 1.5, -0.5, 10_000_001];
const HOSTILE_OTHERS: unknown[] = [null, true, false, [], {}, [1, 'a'], { a: { b: {} } }, deep(70)];
const hostileValue = (): unknown => structuredClone(hostile());
const hostile = (): unknown =>
  pick([pick(HOSTILE_STRINGS), pick(HOSTILE_NUMBERS), pick(HOSTILE_OTHERS), pick(HOSTILE_STRINGS)]);
// prettier-ignore
const HOSTILE_PARAMS = [
  '', 'a'.repeat(150), '%00', 'a%00b', '%E0%A4%A', '%ZZ', '..', '%2e%2e', '%F0%9F%8E%AE', '-1', '1e20', 'Infinity',
  'NaN', '1.5', 'null', '%20', "'", '%2F', '%C7%85',
];

// prettier-ignore
interface Schema {
  $ref?: string; type?: string | string[]; enum?: unknown[]; format?: string; pattern?: string;
  minimum?: number; maximum?: number; minLength?: number; maxLength?: number;
  items?: Schema; properties?: Record<string, Schema>; required?: string[]; anyOf?: Schema[]; oneOf?: Schema[];
}
// prettier-ignore
interface Parameter { name: string; in: 'path' | 'query' | 'header'; required?: boolean; schema?: Schema }
// prettier-ignore
interface Operation { parameters?: Parameter[]; requestBody?: { content?: Record<string, { schema?: Schema }> } }
// prettier-ignore
interface Document { paths: Record<string, Record<string, Operation>>; components?: { schemas?: Record<string, Schema> } }

let components: Record<string, Schema> = {};
const componentName = (ref: string) => ref.replace(/^#\/components\/schemas\//, '').replace(/#$/, '');
const resolve = (schema: Schema): Schema =>
  schema.$ref ? (components[componentName(schema.$ref)] ?? {}) : schema;

let uniq = 0;
/** A plausible value for a schema: the fuzzer mutates valid-looking bodies so they get past the first check. */
function sample(input: Schema, depth = 0): unknown {
  const schema = resolve(input);
  if (schema.enum) return pick(schema.enum);
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) return sample(pick(variants), depth);
  const type = Array.isArray(schema.type) ? pick(schema.type) : schema.type;
  switch (type) {
    case 'string':
      if (schema.format === 'uri' || schema.pattern?.startsWith('^https?')) return 'https://example.com/a';
      if (schema.format === 'email') return `fuzz${uniq++}@example.com`;
      if (schema.format === 'date-time') return new Date(0).toISOString();
      if (schema.pattern?.includes('a-z0-9')) return `fuzz-${SEED}-${uniq++}`;
      return (
        'x'.repeat(Math.max(schema.minLength ?? 1, 1)).slice(0, schema.maxLength ?? 100) + String(uniq++)
      );
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return chance(0.5);
    case 'null':
      return null;
    case 'array':
      return depth > 4 || !schema.items ? [] : [sample(schema.items, depth + 1)];
    case 'object': {
      const body: Record<string, unknown> = {};
      for (const [key, property] of Object.entries(schema.properties ?? {})) {
        if (schema.required?.includes(key) || chance(0.5)) body[key] = sample(property, depth + 1);
      }
      return body;
    }
    default:
      return 'x';
  }
}

/** Replaces one field (at any depth) of a sampled body with a hostile value, or the whole body. */
function mutate(value: unknown): unknown {
  if (chance(0.1) || value === null || typeof value !== 'object') return hostileValue();
  const keys = Object.keys(value);
  const key =
    keys.length === 0 || chance(0.15) ? pick(['__proto__', 'constructor', 'extra', 'a\u0000']) : pick(keys);
  const record = value as Record<string, unknown>;
  const own = Object.hasOwn(record, key) ? record[key] : undefined;
  // defineProperty: a plain assignment to "__proto__" would change the prototype (or, recursing into it,
  // pollute Object.prototype in this very process) instead of sending the key.
  Object.defineProperty(record, key, {
    value: chance(0.3) ? mutate(own) : hostileValue(),
    enumerable: true,
    configurable: true,
    writable: true,
  });
  return value;
}

type Actor = { headers: Record<string, string> };
// prettier-ignore
interface Case { method: string; path: string; headers: Record<string, string>; body?: Buffer }

function fillPath(path: string, parameters: Parameter[], ids: Record<string, string[]>): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const schema = parameters.find((p) => p.in === 'path' && p.name === name)?.schema;
    if (chance(0.25)) return pick(HOSTILE_PARAMS);
    if (schema?.enum) return encodeURIComponent(String(pick(schema.enum)));
    const known = ids[name] ?? ids[name.replace(/Id$/, '')] ?? Object.values(ids).flat();
    return encodeURIComponent(pick(known));
  });
}

function queryString(parameters: Parameter[]): string {
  const parts: string[] = [];
  for (const parameter of parameters.filter((p) => p.in === 'query')) {
    if (!parameter.required && chance(0.5)) continue;
    const value = chance(0.4)
      ? pick(HOSTILE_PARAMS)
      : encodeURIComponent(String(sample(parameter.schema ?? { type: 'string' })));
    parts.push(`${parameter.name}=${value}`);
    if (chance(0.05)) parts.push(`${parameter.name}=${value}`);
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

async function multipartBody(): Promise<{ body: Buffer; type: string }> {
  const form = new FormData();
  if (chance(0.7)) form.append(pick(['caption', 'altText', 'displayName', 'name']), pick(HOSTILE_STRINGS));
  const bytes = chance(0.5) ? Buffer.from('GIF89a fuzz') : Buffer.alloc(Math.floor(random() * 2000), 7);
  form.append(
    pick(['image', 'file', 'banner', 'icon', 'other']),
    new Blob([bytes]),
    pick(['a.png', 'x', '../a']),
  );
  const encoded = new Response(form);
  return { body: Buffer.from(await encoded.arrayBuffer()), type: encoded.headers.get('content-type')! };
}

const WRONG_CONTENT_TYPES = [
  'text/plain',
  'application/xml',
  'application/x-www-form-urlencoded',
  'text/json',
];

async function makeCase(document: Document, actors: Actor[], ids: Record<string, string[]>): Promise<Case> {
  const path = pick(Object.keys(document.paths));
  const methods = document.paths[path]!;
  const declared = pick(Object.keys(methods));
  const operation = methods[declared]!;
  const parameters = operation.parameters ?? [];
  const method = chance(0.04)
    ? pick(['PROPFIND', 'SEARCH', 'PURGE', 'OPTIONS', 'TRACE', 'PUT'])
    : declared.toUpperCase();
  const headers = { ...pick(actors).headers };
  if (chance(0.05)) headers['x-request-id'] = pick(['ok-id', 'x'.repeat(3000), 'bad id', 'é']);
  const url = fillPath(path, parameters, ids) + queryString(parameters);
  const content = operation.requestBody?.content ?? {};
  let body: Buffer | undefined;
  if (content['multipart/form-data'] || (chance(0.03) && method !== 'GET')) {
    const form = await multipartBody();
    headers['content-type'] = chance(0.1) ? 'multipart/form-data; boundary=nope' : form.type;
    body = form.body;
  } else if (content['application/json'] || (chance(0.05) && method !== 'GET')) {
    const schema = content['application/json']?.schema ?? { type: 'object' };
    const roll = random();
    const text =
      roll < 0.05
        ? pick(['{', '{"a":', '[1,]', 'nul', '{"a":1}x', '"\\ud800"', ''])
        : roll < 0.08
          ? `{"x":${'['.repeat(5000)}${']'.repeat(5000)}}`
          : JSON.stringify(roll < 0.25 ? sample(schema) : mutate(sample(schema)));
    headers['content-type'] = chance(0.05) ? pick(WRONG_CONTENT_TYPES) : 'application/json';
    body = Buffer.from(text);
  }
  return { method, path: url, headers, body };
}

// prettier-ignore
interface Result { status: number; headers: Record<string, string | string[] | undefined>; body: string }

function send(port: number, agent: Agent, c: Case): Promise<Result> {
  return new Promise((resolvePromise, reject) => {
    const { method, path, headers } = c;
    const req = httpRequest({ host: '127.0.0.1', port, agent, method, path, headers });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      const status = res.statusCode ?? 0;
      res.on('end', () =>
        resolvePromise({ status, headers: res.headers, body: Buffer.concat(chunks).toString() }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error('no answer within 10 s')));
    req.end(c.body);
  });
}

/** Bytes no HTTP client library will send: unknown methods, broken request lines and headers. */
function sendRaw(port: number, text: string): Promise<Result> {
  return new Promise((resolvePromise, reject) => {
    const socket = connect({ port, host: '127.0.0.1' });
    const chunks: Buffer[] = [];
    socket.setTimeout(5000, () => socket.destroy(new Error('no answer')));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = Buffer.concat(chunks).toString().split('\r\n\r\n');
      const [line = '', ...rest] = head.split('\r\n');
      const headers = Object.fromEntries(
        rest.map((h) => [h.slice(0, h.indexOf(':')).toLowerCase(), h.slice(h.indexOf(':') + 1).trim()]),
      );
      resolvePromise({ status: Number(line.split(' ')[1]), headers, body });
    });
    socket.write(text);
  });
}
const RAW_REQUESTS = [
  'TRACK / HTTP/1.1\r\nHost: x\r\n\r\n',
  'FOO /resources HTTP/1.1\r\nHost: x\r\n\r\n',
  'GET /a b c\r\n\r\n',
  'GET / HTTP/1.1\r\nHost x\r\n\r\n',
  `GET / HTTP/1.1\r\nHost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`,
  'GET /resources/%E0%A4%A HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
  'POST /auth/login HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
];

const ERROR_KEYS = new Set(['statusCode', 'error', 'message', 'code', 'requestId', 'details']);

/** Why a response breaks the contract, or undefined when it keeps it. */
function violation(method: string, result: Result): string | undefined {
  if (result.status >= 500 || !(result.status >= 100)) return `status ${result.status}`;
  if (result.headers['x-content-type-options'] !== 'nosniff') return 'no x-content-type-options: nosniff';
  if (!result.headers['x-request-id']) return 'no x-request-id';
  if (result.body.includes('FST_')) return 'FST_ code in the body';
  if (result.status < 400 || method === 'HEAD') return undefined;
  try {
    const body = JSON.parse(result.body) as Record<string, unknown>;
    const texts = ['error', 'message', 'code'].every((key) => typeof body[key] === 'string');
    const extra = Object.keys(body).some((key) => !ERROR_KEYS.has(key));
    if (!texts || extra || body['statusCode'] !== result.status) return 'not the error shape';
    if (body['requestId'] !== result.headers['x-request-id']) return 'requestId differs from x-request-id';
  } catch {
    return 'error body is not JSON';
  }
  return undefined;
}

async function database(): Promise<{ url: string; drop: () => Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'fuzz-'));
  const dropDir = async () => rmSync(dataDir, { recursive: true, force: true });
  if (!DATABASE_URL?.startsWith('postgres'))
    return { url: `sqlite:${join(dataDir, 'fuzz.db')}`, drop: dropDir };
  const schema = `fuzz_${process.pid}_${Date.now().toString(36)}`;
  const run = async (sql: string) => {
    const client = new pg.Client({ connectionString: DATABASE_URL });
    await client.connect();
    await client.query(sql).finally(() => client.end());
  };
  await run(`create schema ${schema}`);
  const url = new URL(DATABASE_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return { url: url.toString(), drop: async () => (await run(`drop schema ${schema} cascade`), dropDir()) };
}

async function main(): Promise<void> {
  const db = await database();
  const dataDir = mkdtempSync(join(tmpdir(), 'fuzz-data-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    DATABASE_URL: db.url,
    PUBLIC_URL: 'http://fuzz.test',
    SECRET: 'fuzz-secret-fuzz-secret-fuzz-secret-0123456789',
    RATE_LIMIT: 'off',
    LOG_LEVEL: process.env['LOG_LEVEL'] ?? 'silent',
    SQLITE_SYNCHRONOUS: 'NORMAL',
  });
  const app = await buildApp({ config });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as AddressInfo).port;
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  try {
    const { db: kysely } = app.context.database;
    const { clock, database: appDatabase } = app.context;
    const keys = createApiKeysService({ db: kysely, dialect: appDatabase.dialect, clock });
    const account = async (username: string, role: 'USER' | 'SUPER_ADMIN') => {
      const row = await createAccount(kysely, clock, {
        username,
        email: `${username}@example.com`,
        password: 'correct horse battery',
        role,
      });
      return { id: row.id, headers: { 'x-api-key': (await keys.create(row.id, { name: 'fuzz' })).key } };
    };
    const admin = await account('fuzz_admin', 'SUPER_ADMIN');
    const user = await account('fuzz_user', 'USER');
    const ids: Record<string, string[]> = { userId: [admin.id, user.id], user: [admin.id, user.id] };
    const create = async (kind: string, url: string, payload: object) => {
      const res = await app.inject({ method: 'POST', url, headers: admin.headers, payload });
      if (res.statusCode !== 201) throw new Error(`setup ${url}: ${res.statusCode} ${res.body}`);
      const { id, slug } = res.json<{ id: string; slug?: string }>();
      ids[kind] = [...(ids[kind] ?? []), id];
      if (slug) ids['slug'] = [...(ids['slug'] ?? []), slug];
    };
    await create('team', '/teams', { name: 'Fuzz team', slug: 'fuzz-team' });
    await create('resource', '/resources', {
      name: 'Fuzz',
      slug: 'fuzz-res',
      shortDescription: 'x',
      type: 'MOD',
    });
    await create('server', '/servers', { name: 'Fuzz server', slug: 'fuzz-server', ip: 'play.example.com' });
    ids['id'] = Object.values(ids).flat();

    const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json<Document>();
    components = document.components?.schemas ?? {};
    const actors: Actor[] = [{ headers: {} }, admin, user, { headers: { 'x-api-key': 'mk_wrong' } }];
    const statuses = new Map<string, number>();
    const failures: string[] = [];
    let violations = 0;
    const fail = (text: string) => (violations += 1) <= 50 && failures.push(text);
    let sent = 0;
    const deadline = Date.now() + SECONDS * 1000;
    const record = (label: string, method: string, result: Result) => {
      const bucket = `${Math.floor(result.status / 100)}xx`;
      statuses.set(bucket, (statuses.get(bucket) ?? 0) + 1);
      const problem = violation(method, result);
      if (problem) fail(`${problem}: ${label} → ${result.status} ${result.body.slice(0, 300)}`);
    };
    const worker = async () => {
      while (sent < MAX_REQUESTS && Date.now() < deadline) {
        sent += 1;
        const raw = chance(0.01) ? pick(RAW_REQUESTS) : undefined;
        const c = raw === undefined ? await makeCase(document, actors, ids) : undefined;
        const label = c
          ? `${c.method} ${c.path.slice(0, 200)} ${JSON.stringify(c.body?.toString().slice(0, 200) ?? '')}`
          : `raw ${JSON.stringify(raw!.slice(0, 80))}`;
        if (TRACE) console.log(`> ${label}`);
        try {
          const result = c ? await send(port, agent, c) : await sendRaw(port, raw!);
          if (TRACE) console.log(`< ${result.status} ${label}`);
          record(label, c?.method ?? 'RAW', result);
        } catch (error) {
          fail(`no answer (${(error as Error).message}): ${label}`);
        }
      }
    };
    const started = Date.now();
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const seconds = (Date.now() - started) / 1000;
    const dialect = app.context.database.dialect;
    console.log(`fuzz (${dialect}, seed ${SEED}): ${sent} requests in ${seconds.toFixed(1)} s`);
    console.log(`statuses: ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`);
    console.log(
      `violations: ${violations}${violations > failures.length ? ` (first ${failures.length} shown)` : ''}`,
    );
    for (const failure of failures) console.log(`  ${failure}`);
    process.exitCode = violations > 0 ? 1 : 0;
  } finally {
    agent.destroy();
    await app.close();
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
