import type { FastifyInstance } from 'fastify';
import { OPTIONAL_AUTH } from '../../core/http/openapi.js';
import { errors, ref } from '../../core/http/schemas.js';
import { typed } from '../../core/http/typed.js';
import { EventList, EventListQuery } from './events.schemas.js';
import type { EventsService } from './events.service.js';

export async function eventsRoutes(fastify: FastifyInstance, { events }: { events: EventsService }) {
  const app = typed(fastify);
  app.get(
    '/events',
    {
      schema: {
        tags: ['events'],
        summary: 'The event log after a cursor',
        description:
          'Events oldest first after `after`, only those the caller may see: events of APPROVED subjects to ' +
          'everyone; of other subjects to their owner side, contributors (resources) or team members (servers) ' +
          'and moderators; report events to the reporter and moderators; team invitation events to the ' +
          "team's OWNER/ADMIN and the invitee. Filters: `types`, and `resourceId`, `serverId`, `teamId`, " +
          '`userId` (events whose subject is or belongs to it). Poll with `after=nextCursor`. A request examines ' +
          'at most 1,000 events: when the caller may see few of them, fewer than `limit` come back and ' +
          '`nextCursor` moves past what was examined. On PostgreSQL events appear about a second after their ' +
          'change (EVENT_FEED_SETTLE_MS), so a cursor never passes an event committed a moment late. Events are ' +
          'kept for EVENT_RETENTION_DAYS (90).',
        operationId: 'listEvents',
        security: OPTIONAL_AUTH,
        querystring: EventListQuery,
        response: { 200: ref(EventList), ...errors(400, 401) },
      },
    },
    async (request) => events.list(request.actor, request.query),
  );
}
