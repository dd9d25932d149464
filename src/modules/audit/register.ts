// The audit log and trusted creators (spec/extensions.md §4). recordAudit (record.ts) is called by every
// moderation and admin service; the trusted flag is set through PATCH /admin/users/:userId (modules/admin) and
// used by version submission (versions/moderation/auto-approval.ts).
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app.js';
import type { SharedServices } from '../shared-services.js';
import { versionHistoryRoutes } from '../versions/moderation/version-history.js';
import { auditRoutes } from './audit.routes.js';
import { createAuditService } from './audit.service.js';

export async function registerAudit(
  app: FastifyInstance,
  context: AppContext,
  shared: SharedServices,
): Promise<void> {
  const { db } = context.database;
  await app.register(auditRoutes, { audit: createAuditService({ db }) });
  await app.register(versionHistoryRoutes, { db, versions: shared.versions });
}
