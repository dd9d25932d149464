// Process entry: configuration → dependency checks → app → listen, and a graceful shutdown on SIGINT/SIGTERM
// (core/lifecycle.ts). A start-up failure is one line on stderr naming the variable to check, and exit code 1.
import { buildApp } from './app.js';
import type { App } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import type { Config } from './config.js';
import { installGracefulShutdown } from './core/lifecycle.js';
import { causeOf, checkDependencies, describeListenFailure, StartupError } from './core/startup.js';

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

async function start(config: Config): Promise<App> {
  await checkDependencies(config);
  try {
    return await buildApp({ config, startJobs: true });
  } catch (error) {
    // Past the checks above this is rare (a failed migration, a database that went away meanwhile).
    throw new StartupError(`Start-up failed: ${causeOf(error)}`);
  }
}

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message);
    throw error;
  }
  let app: App;
  try {
    app = await start(config);
  } catch (error) {
    if (error instanceof StartupError) fail(error.message);
    throw error;
  }
  const { shutdown } = installGracefulShutdown(app, config.shutdownTimeoutMs);
  const stop = (signal: string) => void shutdown(signal).then((code) => process.exit(code));
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await app.close().catch(() => {});
    fail(describeListenFailure(error, config));
  }
  app.log.info(`API on ${config.publicUrl} — docs at ${config.publicUrl}/docs`);
}

main().catch((error: unknown) => fail(`Start-up failed: ${causeOf(error)}`));
