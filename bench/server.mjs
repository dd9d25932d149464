// The service as the benchmark runs it: the compiled build (what `npm start` runs), in its own process,
// rate limits off, warn-level logs. Answers 'cpu' and 'rss' messages so the runner can report CPU time per
// request (steadier than req/s on a shared machine) and memory growth.
import { buildApp } from '../dist/app.js';
import { loadConfig } from '../dist/config.js';

const config = loadConfig({ ...process.env, RATE_LIMIT: 'off', LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' });
const app = await buildApp({ config });
await app.listen({ port: config.port, host: '127.0.0.1' });
process.send?.({ ready: true, port: app.server.address().port });
process.on('message', (message) => {
  if (message === 'cpu') process.send?.({ cpu: process.cpuUsage() });
  if (message === 'rss') process.send?.({ rss: process.memoryUsage().rss });
});
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
