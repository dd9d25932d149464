// Moderation threads (spec/extensions.md §4): GET the thread, POST a message, under a resource or a server.
import type { FastifyInstance } from 'fastify';
import { requireActor, requireUser } from '../../../core/auth/authenticate.js';
import { SECURED } from '../../../core/http/openapi.js';
import { IdParams, errors, ref } from '../../../core/http/schemas.js';
import { typed } from '../../../core/http/typed.js';
import type { ThreadKind } from './threads.repo.js';
import {
  PostResourceMessageBody,
  PostServerMessageBody,
  Thread,
  ThreadMessage,
  ThreadQuery,
} from './threads.schemas.js';
import type { ThreadsService } from './threads.service.js';

const security = SECURED;
const WHO =
  'Readable by the owner side (the user owner, members of the owning team' +
  '{contributors}) and MODERATOR+; anyone else gets 404, whether or not the {subject} is visible to them, so a ' +
  'thread’s existence is not revealed. Internal messages are shown to moderators only.';

const SUBJECTS = {
  RESOURCE: {
    path: '/resources/:id/moderation/thread',
    tags: ['resources'],
    noun: 'resource',
    operation: 'Resource',
    contributors: ', contributors',
    body: PostResourceMessageBody,
  },
  SERVER: {
    path: '/servers/:id/moderation/thread',
    tags: ['servers'],
    noun: 'server',
    operation: 'Server',
    contributors: '',
    body: PostServerMessageBody,
  },
} as const;

export async function threadsRoutes(
  fastify: FastifyInstance,
  { threads }: { threads: ThreadsService },
): Promise<void> {
  const app = typed(fastify);

  for (const kind of ['RESOURCE', 'SERVER'] as const satisfies readonly ThreadKind[]) {
    const subject = SUBJECTS[kind];
    const who = WHO.replace('{contributors}', subject.contributors).replace('{subject}', subject.noun);

    app.get(
      subject.path,
      {
        preHandler: requireUser,
        schema: {
          tags: [...subject.tags],
          summary: `The moderation thread of a ${subject.noun}, oldest message first`,
          description:
            `${who} Paged with limit (default 50) and offset over the messages the caller can see, oldest ` +
            'first: the newest are on the last page (offset = total − limit). Moderation actions with a reason ' +
            'or notes post automatic messages (automatic: true): the reason as an ordinary message, the notes ' +
            'as an internal one.',
          operationId: `get${subject.operation}ModerationThread`,
          params: IdParams,
          querystring: ThreadQuery,
          security,
          response: { 200: Thread, ...errors(400, 401, 404) },
        },
      },
      async (request) =>
        threads.list(
          requireActor(request),
          kind,
          request.params.id,
          request.query.limit ?? 50,
          request.query.offset ?? 0,
        ),
    );

    app.post(
      `${subject.path}/messages`,
      {
        preHandler: requireUser,
        schema: {
          tags: [...subject.tags],
          summary: `Post a message to the moderation thread of a ${subject.noun}`,
          description:
            `${who} The body is markdown, sanitized like a version changelog; one that is empty once ` +
            'sanitized is 400. internal: true is for moderators only (403 for the owner side).' +
            (kind === 'RESOURCE' ? ' versionId must name a version of this resource (400 otherwise).' : '') +
            ' Records moderation.message_posted (an internal message’s event is visible to moderators only).',
          operationId: `post${subject.operation}ModerationMessage`,
          params: IdParams,
          body: subject.body,
          security,
          response: { 201: ref(ThreadMessage), ...errors(400, 401, 403, 404) },
        },
      },
      async (request, reply) => {
        reply.code(201);
        return threads.post(requireActor(request), kind, request.params.id, request.body);
      },
    );
  }
}
