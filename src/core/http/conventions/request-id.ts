// `requestId` in every error body, equal to the x-request-id header, so a client that logs only the body can
// still quote the id. The error handler and the not-found handler set it themselves; this hook covers every other
// error object a route or plugin sends (rate limits, access checks replying directly).
import type { FastifyInstance } from 'fastify';

interface ErrorLike {
  statusCode?: unknown;
  code?: unknown;
  requestId?: unknown;
}

export function registerRequestIdInErrors(app: FastifyInstance): void {
  app.addHook('preSerialization', async (request, reply, payload: unknown) => {
    if (reply.statusCode < 400 || typeof payload !== 'object' || payload === null) return payload;
    const body = payload as ErrorLike;
    if (typeof body.code !== 'string' || typeof body.statusCode !== 'number') return payload;
    if (body.requestId === undefined) body.requestId = request.id;
    return payload;
  });
}
