// GET /resources/:resourceId/versions/:versionId/history: a version's status moves, oldest first (moderators).
// Registered by the audit module (modules/audit/register.ts) with the trusted-creator work it exists to show: an
// automatic approval is an APPROVE with `moderator: null, automatic: true`.
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { requireRole } from '../../../core/auth/authenticate.js';
import type { DB } from '../../../core/db/schema.js';
import { SECURED } from '../../../core/http/openapi.js';
import { Id, Nullable, StringEnum, Timestamp, errors, named, ref } from '../../../core/http/schemas.js';
import { typed } from '../../../core/http/typed.js';
import type { VersionsService } from '../versions.service.js';
import { VERSION_TAGS } from '../versions.routes.js';
import { VersionParams } from '../versions.schemas.js';
import { VERSION_STATUSES } from '../versions.states.js';

const VersionHistoryEntry = named(
  'VersionHistoryEntry',
  Type.Object({
    id: Id,
    action: StringEnum(['SUBMIT', 'RESUBMIT', 'APPROVE', 'REJECT', 'ARCHIVE'] as const),
    fromStatus: StringEnum(VERSION_STATUSES),
    toStatus: StringEnum(VERSION_STATUSES),
    reason: Nullable(Type.String({ description: 'The submission note or the rejection reason' })),
    moderator: Nullable(
      Type.Object(
        { id: Id, username: Type.String() },
        { description: 'Who moved it; null for an automatic approval and once the account is gone' },
      ),
    ),
    automatic: Type.Boolean({
      description: "A trusted creator's clean submission approved without a moderator",
    }),
    createdAt: Timestamp,
  }),
);

function listHistory(db: Kysely<DB>, versionId: string) {
  return db
    .selectFrom('version_moderation_events as e')
    .leftJoin('users as u', 'u.id', 'e.actor_id')
    .select([
      'e.id',
      'e.action',
      'e.from_status',
      'e.to_status',
      'e.reason',
      'e.actor_id',
      'u.username',
      'e.automatic',
      'e.created_at',
    ])
    .where('e.version_id', '=', versionId)
    .orderBy('e.created_at')
    .orderBy('e.id')
    .execute();
}

export async function versionHistoryRoutes(
  fastify: FastifyInstance,
  { db, versions }: { db: Kysely<DB>; versions: Pick<VersionsService, 'requireVersion'> },
) {
  const app = typed(fastify);
  app.get(
    '/resources/:resourceId/versions/:versionId/history',
    {
      preHandler: requireRole('MODERATOR'),
      schema: {
        tags: VERSION_TAGS,
        summary: 'The status history of a version, oldest first (moderator, admin)',
        description:
          'Every submission, approval, rejection and archiving. An automatic approval (a trusted creator whose ' +
          'files are all clean, approved on submission) is an APPROVE with `moderator: null, automatic: true`.',
        operationId: 'getVersionHistory',
        params: VersionParams,
        security: SECURED,
        response: {
          200: Type.Object({ history: Type.Array(ref(VersionHistoryEntry)) }),
          ...errors(400, 401, 403, 404),
        },
      },
    },
    async (request) => {
      const { resourceId, versionId } = request.params;
      await versions.requireVersion(resourceId, versionId);
      const rows = await listHistory(db, versionId);
      return {
        history: rows.map((row) => ({
          id: row.id,
          action: row.action as 'SUBMIT' | 'RESUBMIT' | 'APPROVE' | 'REJECT' | 'ARCHIVE',
          fromStatus: row.from_status,
          toStatus: row.to_status,
          reason: row.reason,
          moderator:
            row.actor_id === null || row.username === null
              ? null
              : { id: row.actor_id, username: row.username },
          automatic: Boolean(row.automatic),
          createdAt: row.created_at,
        })),
      };
    },
  );
}
