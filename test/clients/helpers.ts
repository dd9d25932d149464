// A real app listening on an ephemeral 127.0.0.1 port whose PUBLIC_URL (and so every signed download URL) is that
// address, for tests that talk to it over HTTP: the typed client, and Chromium on /docs.
import { createServer } from 'node:net';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';

/** A port the OS reports free right now (the listener binds it a moment later). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return address.port;
}

export interface ListeningApp extends TestApp {
  baseUrl: string;
}

export async function listeningApp(env: Record<string, string> = {}): Promise<ListeningApp> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const t = await buildTestApp({ PUBLIC_URL: baseUrl, ...env });
  await t.app.listen({ port, host: '127.0.0.1' });
  return { ...t, baseUrl };
}
