// `npm run bench:files`: memory stays flat for big files (DESIGN §10). Starts the service (the compiled build,
// in its own process), uploads a generated 100 MiB file through HTTP as a streamed multipart body, then
// downloads a three-file version as a ZIP, sampling the server's RSS throughout; prints the growth over the
// RSS measured just before each transfer. Target: < 64 MiB each.
import { execFileSync, fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { systemClock } from '../src/core/clock.js';
import { openDatabase } from '../src/core/db/database.js';
import { migrateToLatest } from '../src/core/db/migrator.js';
import { createApiKeysService } from '../src/modules/api-keys/api-keys.service.js';
import { createAccount } from '../src/modules/auth/accounts.js';

const MIB = 1024 * 1024;
const UPLOAD_BYTES = 100 * MIB;
const ZIP_FILE_BYTES = [40 * MIB, 30 * MIB, 30 * MIB];
const TARGET_GROWTH = 64 * MIB;

function startService(env: Record<string, string>): Promise<{ child: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    const child = fork('bench/server.mjs', [], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.once('message', (message: { port: number }) => resolve({ child, port: message.port }));
    child.once('exit', (code) => reject(new Error(`bench/server.mjs exited with ${code}`)));
  });
}

function rssOf(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    const onMessage = (message: { rss?: number }) => {
      if (message.rss === undefined) return;
      child.off('message', onMessage);
      resolve(message.rss);
    };
    child.on('message', onMessage);
    child.send('rss');
  });
}

/** Runs `work` while sampling the child's RSS every 50 ms; returns the peak growth over the RSS before. */
async function peakGrowth(
  child: ChildProcess,
  work: () => Promise<void>,
): Promise<{ growth: number; base: number }> {
  const base = await rssOf(child);
  let peak = base;
  let running = true;
  const sampler = (async () => {
    while (running) {
      peak = Math.max(peak, await rssOf(child));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  try {
    await work();
  } finally {
    running = false;
    await sampler;
  }
  peak = Math.max(peak, await rssOf(child));
  return { growth: peak - base, base };
}

/** `size` pseudo-random bytes produced on demand (never held in memory at once). */
function generated(size: number): Readable {
  const block = randomBytes(MIB);
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= size) {
        this.push(null);
        return;
      }
      const chunk = block.subarray(0, Math.min(MIB, size - sent));
      block[0] = (block[0]! + 1) % 256;
      sent += chunk.length;
      this.push(Buffer.from(chunk));
    },
  });
}

/**
 * A plugin JAR of about `size` bytes, produced on demand: STOREd 1 MiB entries of pseudo-random bytes, then
 * `smallEntries` tiny ones and a manifest.json, then the central directory (the only part held in memory). CRCs
 * are left at zero: the inspection reads the directory, never the content.
 */
function* generatedJar(size: number, smallEntries: number): Generator<Buffer> {
  const directory: Buffer[] = [];
  let offset = 0;
  const entry = function* (name: string, data: Buffer): Generator<Buffer> {
    const encodedName = Buffer.from(name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(encodedName.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(encodedName.length, 28);
    central.writeUInt32LE(offset, 42);
    directory.push(central, encodedName);
    offset += 30 + encodedName.length + data.length;
    yield Buffer.concat([local, encodedName]);
    yield data;
  };
  const block = randomBytes(MIB);
  const manifest = Buffer.from(
    JSON.stringify({ Group: 'bench', Name: 'Bench', Version: '1.0.0', Dependencies: { 'Hytale:Core': '*' } }),
  );
  for (let index = 0; offset + MIB < size - smallEntries * 100; index += 1) {
    block[0] = index % 256;
    yield* entry(`data/blob-${index}.bin`, Buffer.from(block));
  }
  for (let index = 0; index < smallEntries; index += 1)
    yield* entry(`assets/item-${index}.json`, Buffer.from('{}'));
  yield* entry('manifest.json', manifest);
  const centralDirectory = Buffer.concat(directory);
  const count = directory.length / 2;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(count, 8);
  end.writeUInt16LE(count, 10);
  end.writeUInt32LE(centralDirectory.length, 12);
  end.writeUInt32LE(offset, 16);
  yield centralDirectory;
  yield end;
}

async function* multipartBody(
  boundary: string,
  fileName: string,
  content: AsyncIterable<Buffer> | Iterable<Buffer>,
): AsyncGenerator<Buffer> {
  yield Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="displayName"\r\n\r\nBench file\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\n` +
      'Content-Type: application/octet-stream\r\n\r\n',
  );
  for await (const chunk of content) yield chunk;
  yield Buffer.from(`\r\n--${boundary}--\r\n`);
}

function send(
  port: number,
  options: { method: string; path: string; headers: Record<string, string>; body?: Readable | string },
): Promise<{ status: number; body: string; response: IncomingMessage }> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1',
      port,
      method: options.method,
      path: options.path,
      headers: options.headers,
    });
    req.on('error', reject);
    req.on('response', (response) => {
      const chunks: Buffer[] = [];
      let bytes = 0;
      response.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        // Keep JSON answers; count (and drop) binary ones.
        if (chunks.length < 64) chunks.push(chunk);
      });
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          body: bytes < MIB ? Buffer.concat(chunks).toString() : `${bytes} bytes`,
          response,
        }),
      );
      response.on('error', reject);
    });
    if (options.body instanceof Readable) options.body.pipe(req);
    else req.end(options.body);
  });
}

async function main(): Promise<void> {
  execFileSync(process.execPath, ['scripts/ensure-build.mjs'], { stdio: 'inherit' });
  const dataDir = mkdtempSync(join(tmpdir(), 'marketplace-bench-files-'));
  const databaseUrl = `sqlite:${join(dataDir, 'bench.db')}`;
  const database = openDatabase({ databaseUrl, dataDir, sqliteSynchronous: 'NORMAL' });
  await migrateToLatest(database.db, database.dialect);
  const owner = await createAccount(database.db, systemClock, {
    username: 'bench_owner',
    email: 'bench_owner@example.test',
    password: 'correct horse battery',
    role: 'USER',
  });
  const { key } = await createApiKeysService({
    db: database.db,
    dialect: database.dialect,
    clock: systemClock,
  }).create(owner.id, { name: 'bench' });
  await database.destroy();

  const service = await startService({
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    PORT: '0',
    SECRET: 'bench-secret-'.padEnd(40, 'x'),
    MAX_FILE_MB: '128',
  });
  const { port, child } = service;
  const auth = { 'x-api-key': key };
  const json = async (method: string, path: string, payload?: unknown) => {
    const result = await send(port, {
      method,
      path,
      headers: { ...auth, ...(payload !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(payload !== undefined ? { body: JSON.stringify(payload) } : {}),
    });
    if (result.status >= 300) throw new Error(`${method} ${path}: ${result.status} ${result.body}`);
    return JSON.parse(result.body) as Record<string, unknown>;
  };
  const upload = async (
    resourceId: string,
    versionId: string,
    name: string,
    content: number | Iterable<Buffer>,
  ) => {
    const boundary = `bench${randomBytes(8).toString('hex')}`;
    const body = typeof content === 'number' ? (generated(content) as AsyncIterable<Buffer>) : content;
    const result = await send(port, {
      method: 'POST',
      path: `/resources/${resourceId}/versions/${versionId}/files`,
      headers: { ...auth, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: Readable.from(multipartBody(boundary, name, body)),
    });
    if (result.status !== 201) throw new Error(`upload ${name}: ${result.status} ${result.body}`);
    return JSON.parse(result.body) as { inspection: { format: string; entries: number } | null };
  };

  try {
    const gameVersions = (await json('GET', '/game-versions'))['gameVersions'] as Array<{ id: string }>;
    const resource = await json('POST', '/resources', {
      name: 'Bench resource',
      slug: 'bench-resource',
      shortDescription: 'Big files',
      type: 'MOD',
    });
    const resourceId = resource['id'] as string;
    const newVersion = async (versionNumber: string) =>
      (
        await json('POST', `/resources/${resourceId}/versions`, {
          versionNumber,
          channel: 'RELEASE',
          compatibleGameVersionIds: [gameVersions[0]!.id],
        })
      )['id'] as string;

    const big = await newVersion('1.0.0');
    const started = Date.now();
    const uploadResult = await peakGrowth(child, async () => {
      await upload(resourceId, big, 'big.bin', UPLOAD_BYTES);
    });
    const uploadSeconds = (Date.now() - started) / 1000;

    // Inspection at upload (§2.3): a 100 MiB plugin JAR with 20,000 small entries; the directory is read back
    // from storage by range after the upload, so the difference with the plain upload is the inspection's cost.
    const jarVersion = await newVersion('1.1.0');
    const jarStarted = Date.now();
    let jarInspection = '';
    const jarResult = await peakGrowth(child, async () => {
      const file = await upload(resourceId, jarVersion, 'plugin.jar', generatedJar(UPLOAD_BYTES, 20_000));
      jarInspection = `${file.inspection?.format}, ${file.inspection?.entries} entries`;
    });
    const jarSeconds = (Date.now() - jarStarted) / 1000;

    const three = await newVersion('2.0.0');
    for (const [index, size] of ZIP_FILE_BYTES.entries())
      await upload(resourceId, three, `part-${index}.bin`, size);
    const zipStarted = Date.now();
    let zipBytes = '';
    const zipResult = await peakGrowth(child, async () => {
      const result = await send(port, {
        method: 'GET',
        path: `/resources/${resourceId}/versions/${three}/download`,
        headers: auth,
      });
      if (result.status !== 200) throw new Error(`zip: ${result.status} ${result.body}`);
      zipBytes = result.body;
    });
    const zipSeconds = (Date.now() - zipStarted) / 1000;

    const mib = (bytes: number) => `${(bytes / MIB).toFixed(1)} MiB`;
    const verdict = (growth: number) => (growth < TARGET_GROWTH ? 'ok' : 'MISS');
    console.log('\nserver RSS growth (peak during the transfer − RSS just before), target < 64 MiB\n');
    console.log(
      `upload 100 MiB file (streamed multipart): ${mib(uploadResult.growth)} over ${mib(uploadResult.base)} ` +
        `in ${uploadSeconds.toFixed(1)} s (${(UPLOAD_BYTES / MIB / uploadSeconds).toFixed(0)} MiB/s) — ` +
        verdict(uploadResult.growth),
    );
    console.log(
      `upload 100 MiB plugin JAR with inspection (${jarInspection}): ${mib(jarResult.growth)} over ` +
        `${mib(jarResult.base)} in ${jarSeconds.toFixed(1)} s (${(UPLOAD_BYTES / MIB / jarSeconds).toFixed(0)} MiB/s)` +
        ` — ${verdict(jarResult.growth)}`,
    );
    console.log(
      `download 3-file version as ZIP (${ZIP_FILE_BYTES.map(mib).join(' + ')}, ${zipBytes}): ${mib(zipResult.growth)} ` +
        `over ${mib(zipResult.base)} in ${zipSeconds.toFixed(1)} s — ${verdict(zipResult.growth)}`,
    );
  } finally {
    child.removeAllListeners('exit');
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
