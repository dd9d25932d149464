// A production install (`npm ci --omit=dev`) must start and run the CLI: no dev dependency may be needed at run
// time or to build, and npm start / cli / db:migrate run the compiled output, not tsx. (The full check, a clone
// with `npm ci --omit=dev`, takes minutes and is described in docs/deploy.md; this test pins its parts.)
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const outDir = join('node_modules', '.cache', `production-build-test-${process.pid}`);

afterAll(() => rmSync(outDir, { recursive: true, force: true }));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.test.ts') ? [path] : [];
  });
}

/** Packages imported for their values (type-only imports vanish from the build). */
function runtimeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/^import (?!type )[^;]*?from '([^']+)'/gms)].map((match) => match[1]!);
  specifiers.push(...[...text.matchAll(/import\('([^']+)'\)/g)].map((match) => match[1]!));
  return specifiers
    .filter((specifier) => !specifier.startsWith('.') && !specifier.startsWith('node:'))
    .map((specifier) =>
      specifier
        .split('/')
        .slice(0, specifier.startsWith('@') ? 2 : 1)
        .join('/'),
    )
    .filter((name) => !builtinModules.includes(name));
}

describe('production install', () => {
  it('needs only `dependencies` at run time', () => {
    const missing = sourceFiles('src').flatMap((file) =>
      runtimeImports(file)
        .filter((name) => pkg.dependencies[name] === undefined)
        .map((name) => `${file}: ${name}`),
    );
    expect(missing).toEqual([]);
  });

  it('builds with `dependencies` only: typescript is one, and the build does not type check (no @types/*)', () => {
    expect(pkg.dependencies['typescript']).toBeDefined();
    const build = JSON.parse(readFileSync('tsconfig.build.json', 'utf8').replace(/^\s*\/\/.*$/gm, '')) as {
      compilerOptions: Record<string, unknown>;
    };
    expect(build.compilerOptions['noCheck']).toBe(true);
    expect(build.compilerOptions['types']).toEqual([]);
  });

  it('runs start, cli and db:migrate from the compiled build, never through tsx', () => {
    for (const script of ['start', 'cli', 'db:migrate']) {
      expect(pkg.scripts[script]).toMatch(/^node scripts\/ensure-build\.mjs && node dist\//);
      expect(pkg.scripts[script]).not.toContain('tsx');
    }
  });

  it('compiles with the build settings and the compiled CLI runs', async () => {
    const tsc = join('node_modules', 'typescript', 'bin', 'tsc');
    await run(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', outDir]);
    const { stdout } = await run(process.execPath, [join(outDir, 'cli.js'), '--help']);
    expect(stdout).toContain('create-user');
  }, 180_000);
});
