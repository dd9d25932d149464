// Webhooks (spec/extensions.md §1.2): the management routes and the delivery worker that sends what the fan-out
// queues. The worker runs in every process that runs jobs, unless WEBHOOK_WORKER=false.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app.js';
import type { Access } from '../../core/auth/access.js';
import type { ResourceAccess } from '../../core/auth/resource-access.js';
import type { ServerAccess } from '../../core/auth/server-access.js';
import { createSecretBox } from '../../core/events/secret-box.js';
import { eventSettleMs } from '../../core/events/settle.js';
import { webhooksRoutes } from './webhooks.routes.js';
import { createWebhooksService } from './webhooks.service.js';
import { deleteOrphanedWebhooks } from './webhooks.repo.js';
import { createDeliveryWorker } from './delivery/worker.js';
import type { DeliveryWorker } from './delivery/worker.js';

declare module 'fastify' {
  interface FastifyInstance {
    webhookWorker: DeliveryWorker;
  }
}

/** Registers the webhook routes and the worker; app.ts starts the worker where jobs run. */
export async function registerWebhooks(
  app: FastifyInstance,
  context: AppContext,
  checks: { access: Access; resourceAccess: ResourceAccess; serverAccess: ServerAccess },
): Promise<void> {
  const { database, clock, config, scheduler } = context;
  const { db, dialect } = database;
  const secretBox = createSecretBox(config.secret, 'webhook-secrets');
  const webhooks = createWebhooksService({
    db,
    dialect,
    clock,
    ...checks,
    secretBox,
    outboundAllowPrivate: config.events.outboundAllowPrivate,
  });
  await app.register(webhooksRoutes, { webhooks });
  scheduler.register({
    // A webhook scoped to a resource, server or team stays after its subject is deleted so that it receives the
    // deletion event; once nothing is left to send it, it goes.
    name: 'purge-orphaned-webhooks',
    intervalMs: 24 * 60 * 60 * 1000,
    run: async () => {
      const deleted = await deleteOrphanedWebhooks(db);
      if (deleted > 0) app.log.info({ deleted }, 'webhooks of deleted subjects removed');
    },
  });
  const worker = createDeliveryWorker({
    db,
    dialect,
    clock,
    secretBox,
    settings: {
      publicUrl: config.publicUrl,
      timeoutMs: config.events.webhookTimeoutMs,
      maxBodyBytes: config.events.webhookMaxBodyBytes,
      allowPrivate: config.events.outboundAllowPrivate,
    },
    concurrency: config.events.webhookConcurrency,
    pollMs: config.events.webhookPollMs,
    settleMs: eventSettleMs(config.events, dialect),
    logger: app.log,
  });
  app.decorate('webhookWorker', worker);
  app.addHook('onClose', async () => worker.stop());
}
