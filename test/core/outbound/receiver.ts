// Real HTTP receivers on loopback for the outbound tests: they record what arrived and how connections ended.

import { once } from 'node:events';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { RECEIVER_TEST_CERT, RECEIVER_TEST_KEY } from './tls-fixture.js';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  host: string;
  port: number;
  requests: ReceivedRequest[];
  /** Every TCP connection accepted, whether or not a request came through it. */
  connections: number;
  /** Resolves once each accepted connection has closed. */
  allClosed(): Promise<void>;
  close(): Promise<void>;
}

type Handler = (request: http.IncomingMessage, response: http.ServerResponse, body: string) => void;

export async function startReceiver(
  handler: Handler,
  options: { host?: string; port?: number; tls?: boolean; onServerName?: (name: string) => void } = {},
): Promise<Receiver> {
  const host = options.host ?? '127.0.0.1';
  const sockets = new Set<Socket>();
  const closed: Promise<unknown>[] = [];
  const listener: http.RequestListener = (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      receiver.requests.push({
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body,
      });
      handler(request, response, body);
    });
  };
  const server = options.tls
    ? https.createServer(
        {
          cert: RECEIVER_TEST_CERT,
          key: RECEIVER_TEST_KEY,
          SNICallback: (name, done) => {
            options.onServerName?.(name);
            done(null);
          },
        },
        listener,
      )
    : http.createServer(listener);
  server.on('connection', (socket: Socket) => {
    receiver.connections += 1;
    sockets.add(socket);
    closed.push(new Promise((resolve) => socket.on('close', resolve)));
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(options.port ?? 0, host);
  await once(server, 'listening');

  const receiver: Receiver = {
    host,
    port: (server.address() as AddressInfo).port,
    requests: [],
    connections: 0,
    allClosed: async () => {
      await Promise.all(closed);
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return receiver;
}

/** A port nothing listens on: bound once by the OS, then released. */
export async function unusedPort(): Promise<number> {
  const server = http.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
