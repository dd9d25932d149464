// Queue positions and public moderation statistics (spec/extensions.md §4). The positions appear on the single
// reads of resources, versions and servers (their services call queuePosition); this registers the statistics.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../app.js';
import { errors, ref } from '../../../core/http/schemas.js';
import { typed } from '../../../core/http/typed.js';
import type { SharedServices } from '../../shared-services.js';
import { ModerationStats } from './queue.schemas.js';
import { moderationStats } from './queue.service.js';

export const STATS_CACHE_CONTROL = 'public, max-age=60';

export async function registerModerationQueue(
  fastify: FastifyInstance,
  context: AppContext,
  _shared: SharedServices,
): Promise<void> {
  const app = typed(fastify);
  const { db } = context.database;
  const { clock } = context;

  app.get(
    '/moderation/stats',
    {
      schema: {
        tags: ['moderation'],
        summary: 'How fast moderation is: pending items and review times per kind (public)',
        description:
          'Per kind (versions, resources, servers, reports). A review is a moderator decision on a waiting item: ' +
          'approve, reject or suspend of a PENDING resource or server, approve or reject of a PENDING version, ' +
          'resolve or dismiss of a report. Its time runs from when the item entered the queue — creation, or ' +
          'the latest resubmission before the decision (versions: the latest submit or resubmit; reports: ' +
          'creation) — to the decision, so each resubmission is a review of its own. Automatic approvals ' +
          '(trusted creators) are not reviews. Windows end now and start exactly 7 and 30 days (× 24 h) ' +
          'before, both ends included. Items deleted since are not counted. Computed at most once a minute ' +
          'per process: `Cache-Control: public, max-age=60`.',
        operationId: 'getModerationStats',
        response: { 200: ref(ModerationStats), ...errors(400) },
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', STATS_CACHE_CONTROL);
      return moderationStats(db, clock);
    },
  );
}
