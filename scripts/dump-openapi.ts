// The OpenAPI document exactly as the app serves it at GET /openapi.json, built on the embedded defaults (a
// temporary SQLite database and data directory, no network, no jobs) so the same sources always give the same
// document. Shared by `npm run client:generate` and usable by any other tool that needs the document offline.
// Run directly (`tsx scripts/dump-openapi.ts [file]`) it prints the document, or writes it to `file`.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';

/** The document as JSON text (the bytes the app sends). */
export async function dumpOpenApi(): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dump-openapi-'));
  try {
    // An explicit environment: nothing from the caller's shell may change the document.
    const config = loadConfig({
      DATA_DIR: dataDir,
      DATABASE_URL: `sqlite:${join(dataDir, 'dump.db')}`,
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
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const runDirectly =
  process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href;
if (runDirectly) {
  const document = await dumpOpenApi();
  const target = process.argv[2];
  if (target === undefined) process.stdout.write(document + '\n');
  else writeFileSync(target, document);
}
