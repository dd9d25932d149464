// The service as the benchmark runs it: a separate process, rate limits off, warn-level logs.
// Answers 'cpu' messages with its CPU usage, so the runner can report CPU time per request (steadier than
// req/s on a shared machine).
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';

const config = loadConfig({
  ...process.env,
  RATE_LIMIT: 'off',
  LOG_LEVEL: process.env['LOG_LEVEL'] ?? 'warn',
});
const app = await buildApp({ config });
await app.listen({ port: config.port, host: '127.0.0.1' });
process.send?.({ ready: true, port: (app.server.address() as { port: number }).port });
process.on('message', (message) => {
  if (message === 'cpu') process.send?.({ cpu: process.cpuUsage() });
});
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
