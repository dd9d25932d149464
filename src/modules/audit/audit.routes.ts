import type { FastifyInstance } from 'fastify';
import { requireRole } from '../../core/auth/authenticate.js';
import { SECURED } from '../../core/http/openapi.js';
import { errors, ref } from '../../core/http/schemas.js';
import { typed } from '../../core/http/typed.js';
import { AUDIT_ACTIONS } from './actions.js';
import { AuditList, AuditQuery } from './audit.schemas.js';
import type { AuditService } from './audit.service.js';

export async function auditRoutes(fastify: FastifyInstance, { audit }: { audit: AuditService }) {
  const app = typed(fastify);
  app.get(
    '/admin/audit',
    {
      preHandler: requireRole('ADMIN'),
      schema: {
        tags: ['admin'],
        summary: 'The audit log of moderation and admin actions (admin or super admin)',
        description:
          'Every moderation and admin action, newest first, with its actor (null for automatic actions: a ' +
          "trusted creator's version approved on submission), subject and a before/after summary of the changed " +
          'fields (null before a creation or after a deletion). Entries are written in the same transaction as ' +
          'their action and cannot be edited or deleted. Filters combine with AND; `since` and `until` are ' +
          'inclusive. Actions: ' +
          AUDIT_ACTIONS.map((action) => `\`${action}\``).join(', ') +
          '. `user.status_changed` covers suspensions, bans and their lifting, including those applied by a ' +
          'report resolution (which also records its `report.resolved`).',
        operationId: 'listAuditLog',
        querystring: AuditQuery,
        security: SECURED,
        response: { 200: ref(AuditList), ...errors(400, 401, 403) },
      },
    },
    async (request) => audit.list(request.query),
  );
}
