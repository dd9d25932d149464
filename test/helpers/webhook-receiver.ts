// A real HTTP receiver on 127.0.0.1 for webhook tests: records every request and answers as told.
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  url: string;
  received: ReceivedRequest[];
  /** What the next requests get; a function may delay or hang. */
  respond: (
    request: ReceivedRequest,
  ) => { status: number; body?: string; headers?: Record<string, string> } | 'hang';
  close(): Promise<void>;
}

export async function startReceiver(path = '/hook'): Promise<Receiver> {
  const hanging = new Set<() => void>();
  const receiver: Receiver = {
    url: '',
    received: [],
    respond: () => ({ status: 204 }),
    close: () => Promise.resolve(),
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const received = {
        path: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      receiver.received.push(received);
      const answer = receiver.respond(received);
      if (answer === 'hang') {
        hanging.add(() => response.destroy());
        return;
      }
      response.statusCode = answer.status;
      for (const [name, value] of Object.entries(answer.headers ?? {})) response.setHeader(name, value);
      response.end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  receiver.close = async () => {
    for (const release of hanging) release();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return receiver;
}
