// One log line per request (DESIGN §2): Fastify's default pair ("incoming" + "completed") costs throughput
// and says less. Credentials never appear: headers are not logged at all.
import { LogController } from 'fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';

export class OneLineLogController extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const line = {
      method: request.method,
      url: request.url.split('?')[0],
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
      user: request.actor?.userId,
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request');
  }
}
