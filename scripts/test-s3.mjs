// `npm run test:s3`: the suite with S3 storage, against an in-process s3rver (it does not check signatures;
// the signing logic has its own tests); each test app creates its own bucket there (test/helpers/app.ts).
// Arguments are passed to vitest (e.g. a folder to narrow the run).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

const directory = mkdtempSync(join(tmpdir(), 's3rver-'));
const server = new S3rver({
  port: 0,
  address: '127.0.0.1',
  silent: true,
  directory,
});
const { port } = await server.run();
const child = spawn(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { ...process.env, TEST_S3_ENDPOINT: `http://127.0.0.1:${port}` },
});
const code = await new Promise((resolve) => child.on('exit', (status) => resolve(status ?? 1)));
await server.close();
rmSync(directory, { recursive: true, force: true });
process.exit(code);
