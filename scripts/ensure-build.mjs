// `npm start`, `npm run cli` and `npm run db:migrate` on a fresh clone or a production install (no dev
// dependencies): compile once, and again whenever a source file is newer than the build. TypeScript is a runtime
// dependency for this reason; the build emits without type checking, so no @types/* package is needed.
// Messages go to stderr: `npm run --silent cli` prints JSON on stdout that scripts parse.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

const outputs = ['dist/server.js', 'dist/cli.js'];
const oldestOutput = Math.min(...outputs.map((path) => (existsSync(path) ? statSync(path).mtimeMs : 0)));
const sourcesChanged = existsSync('src') && oldestOutput < newestMtime('src');
if (oldestOutput === 0 || sourcesChanged) {
  if (!existsSync('src')) {
    console.error(
      'No build in dist/ and no src/ to build it from: run `npm run build` where the sources are.',
    );
    process.exit(1);
  }
  console.error('Building (tsc)…');
  try {
    execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
  } catch {
    console.error(
      'The build failed (see above). Is `typescript` installed? It is a dependency: run `npm ci`.',
    );
    process.exit(1);
  }
}
