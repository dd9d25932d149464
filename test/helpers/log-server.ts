// The real app on a real listener with info-level logs on stdout, for tests that read its access log lines
// (test/platform/access-log.test.ts). Prints `LISTENING <port>` once it accepts connections; SIGTERM closes it.
import { buildTestApp } from './app.js';

const t = await buildTestApp({ LOG_LEVEL: 'info' });
await t.app.listen({ port: 0, host: '127.0.0.1' });
const address = t.app.server.address();
process.stdout.write(`LISTENING ${typeof address === 'object' && address !== null ? address.port : ''}\n`);
process.on('SIGTERM', () => void t.close().then(() => process.exit(0)));
