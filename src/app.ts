// buildApp(config): core plugins first, then every module (modules/index.ts holds the URL map).
import cors from '@fastify/cors';
import etag from '@fastify/etag';
import multipart from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import { authenticate } from './core/auth/authenticate.js';
import { systemClock } from './core/clock.js';
import type { Clock } from './core/clock.js';
import { openDatabase } from './core/db/database.js';
import { etagHash } from './core/http/rendered.js';
import type { Database } from './core/db/database.js';
import { migrateToLatest } from './core/db/migrator.js';
import { registerErrorHandling } from './core/http/error-handler.js';
import { registerConventions, scheduleConventionJobs } from './core/http/conventions/index.js';
import { clientErrorHandler, frameworkErrors, MAX_PARAM_LENGTH } from './core/http/framework-errors.js';
import { registerInputGuards } from './core/http/input-guards.js';
import { registerOpenApi } from './core/http/openapi.js';
import { createRateLimiting, registerRateLimits } from './core/http/rate-limits.js';
import { trustProxyOption, warnIfTrustingEveryProxy } from './core/http/proxy-trust.js';
import { OneLineLogController } from './core/http/request-log.js';
import { registerRequestShaping } from './core/http/request-shaping.js';
import { registerSecurityHeaders, requestIds } from './core/http/security-headers.js';
import { serializerFactory } from './core/http/serialization.js';
import { validatorFactory } from './core/http/validation.js';
import { createScheduler } from './core/jobs/scheduler.js';
import type { Scheduler } from './core/jobs/scheduler.js';
import { ensureDefaultAssets } from './core/default-assets.js';
import { cdnRoutes } from './core/storage/cdn.routes.js';
import { createStorage } from './core/storage/index.js';
import type { Storage } from './core/storage/storage.js';
import { registerModules } from './modules/index.js';
import { enforceMinimumBodyRate, serverTimeoutOptions } from './core/http/server-timeouts.js';
import { closeConnectionsWithUnreadBodies } from './core/http/multipart.js';
import { registerCompression } from './core/http/compression.js';
import { createMetrics, instrumentStorage, registerMetrics } from './core/metrics/index.js';
import { countWebhookBacklog } from './modules/webhooks/delivery/deliveries.repo.js';
import { createReadiness, registerCoreProbes } from './core/readiness.js';
import type { Readiness } from './core/readiness.js';

/** Everything a module may depend on. Services take only the parts they use. */
export interface AppContext {
  config: Config;
  database: Database;
  storage: Storage;
  clock: Clock;
  scheduler: Scheduler;
  /** GET /ready's probe registry: register a probe for every outside dependency. */
  readiness: Readiness;
}

export interface BuildAppOptions {
  config: Config;
  /** Tests inject a controllable clock. */
  clock?: Clock;
  /** Tests may share an already-open database. */
  database?: Database;
  storage?: Storage;
  /** Periodic jobs start only in the real server, never in tests unless asked. */
  startJobs?: boolean;
}

export type App = FastifyInstance;

const REDACTED_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers["x-server-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.password',
  '*.token',
  '*.key',
  '*.apiKey',
  // Webhook signing secrets (shown once) and their sealed forms.
  '*.secret',
  '*.secret_encrypted',
  '*.previous_secret_encrypted',
];

export async function buildApp(options: BuildAppOptions): Promise<App> {
  const { config } = options;
  const clock = options.clock ?? systemClock;
  // Metrics exist only when enabled: off, they add no hook, no timing and no wrapper.
  const metrics = config.metrics ? createMetrics() : undefined;
  const database = options.database ?? openDatabase(config, { observeQuery: metrics?.observeQuery });
  const ownsDatabase = options.database === undefined;
  const plainStorage = options.storage ?? createStorage(config, { clock });
  const storage = metrics ? instrumentStorage(plainStorage, metrics.storageErrors) : plainStorage;

  if (config.migrate) await migrateToLatest(database.db, database.dialect);

  const app = Fastify({
    logger: {
      level: config.logLevel,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    },
    logController: new OneLineLogController(),
    // requestIds() reads x-request-id itself, keeping a client's id only when it is short and plain.
    requestIdHeader: false,
    genReqId: requestIds(),
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors,
    clientErrorHandler: clientErrorHandler(),
    trustProxy: trustProxyOption(config.trustProxy),
    bodyLimit: 1024 * 1024,
    ...serverTimeoutOptions(config.timeouts),
    schemaController: {
      compilersFactory: { buildValidator: validatorFactory(), buildSerializer: serializerFactory() },
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Created first so that any plugin below (rate limits on Redis…) can register its own probe.
  const readiness = createReadiness(app.log);
  registerCoreProbes(readiness, database, storage);
  warnIfTrustingEveryProxy(app.log, config.trustProxy);
  registerErrorHandling(app);
  // Before any route: their onRoute rules (Location, Link, idempotency, 405) must see every route.
  registerConventions(app, { db: database.db, clock, secret: config.secret });
  registerSecurityHeaders(app);
  if (config.compression) await registerCompression(app);
  if (metrics) await registerMetrics(app, { metrics, token: config.metricsToken, database });
  registerInputGuards(app);
  await app.register(cors, {
    origin: config.corsOrigins.length === 0 ? false : config.corsOrigins,
    credentials: false,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ['content-type', 'x-api-key', 'authorization', 'if-none-match', 'range', 'x-request-id'],
    exposedHeaders: [
      'x-request-id',
      'x-ratelimit-limit',
      'x-ratelimit-remaining',
      'x-ratelimit-reset',
      'etag',
    ],
  });
  await app.register(etag, { weak: true, hashFn: etagHash });
  await app.register(multipart, {
    limits: { fileSize: config.maxFileBytes, files: 1, fields: 20, fieldSize: 100_000 },
  });
  closeConnectionsWithUnreadBodies(app);
  enforceMinimumBodyRate(app.server, config.timeouts, app.log);
  registerRequestShaping(app);
  const rateLimiting = config.rateLimit ? createRateLimiting(config, app.log) : undefined;
  await app.register(authenticate, {
    db: database.db,
    dialect: database.dialect,
    clock,
    failedAuthentications: rateLimiting?.failedAuthentications,
  });
  if (rateLimiting !== undefined) await registerRateLimits(app, rateLimiting, readiness);
  // After rate limits, so /docs and its assets are limited like every other route.
  await registerOpenApi(app, config);

  const scheduler = createScheduler({ database, logger: app.log, clock });
  const context: AppContext = { config, database, storage, clock, scheduler, readiness };
  app.decorate('context', context);
  if (metrics) scheduler.observe((run) => metrics.observeJobRun(run));
  scheduleConventionJobs(scheduler, database.db, clock);

  await app.register(cdnRoutes, { prefix: '/cdn', storage, secret: config.secret, clock });
  await registerModules(app, context);
  if (metrics) {
    app.webhookWorker.observe((outcome, durationMs) => metrics.observeDelivery(outcome.result, durationMs));
    metrics.watchWebhookQueue(() => countWebhookBacklog(database.db));
  }
  await ensureDefaultAssets(storage);

  // Not awaited: what is due at start runs in the background, so listening never waits for a job.
  if (options.startJobs === true) app.addHook('onReady', async () => void scheduler.start());
  if (options.startJobs === true && config.events.webhookWorker) {
    app.addHook('onReady', async () => app.webhookWorker.start());
  }
  app.addHook('onClose', async () => {
    await scheduler.stop();
    if (ownsDatabase) await database.destroy();
  });
  return app;
}

declare module 'fastify' {
  interface FastifyInstance {
    context: AppContext;
  }
}
