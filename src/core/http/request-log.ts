// One log line per request (DESIGN §2): Fastify's default pair ("incoming" + "completed") costs throughput
// and says less. Credentials never appear: only the user agent is taken from the headers.
import { LogController } from 'fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** A user agent is client-chosen text: bounded so one request cannot write an arbitrarily long line. */
const MAX_USER_AGENT = 256;

/** Bytes the connection had written when the request arrived; the difference at the end is this response's. */
const bytesAtStart = new WeakMap<FastifyRequest, number>();

/**
 * Bytes of the response as sent: status line, headers and the body after compression. Measured on the socket,
 * since compressed and streamed bodies carry no Content-Length. (A pipelined request whose predecessor was still
 * being written counts the predecessor's tail too; browsers do not pipeline.) Injected requests have no real
 * socket: there, the Content-Length.
 */
function responseBytes(request: FastifyRequest, reply: FastifyReply): number | undefined {
  const written = request.raw.socket?.bytesWritten;
  const start = bytesAtStart.get(request);
  if (typeof written === 'number' && start !== undefined) return written - start;
  const length = Number(reply.getHeader('content-length'));
  return Number.isFinite(length) ? length : undefined;
}

export class OneLineLogController extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    const written = request.raw.socket?.bytesWritten;
    if (typeof written === 'number') bytesAtStart.set(request, written);
  }

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
      bytes: responseBytes(request, reply),
      ip: request.ip,
      ua: request.headers['user-agent']?.slice(0, MAX_USER_AGENT),
      user: request.actor?.userId,
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request');
  }
}
