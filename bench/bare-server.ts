// The ceiling for this machine: node:http answering the same bytes and headers as the measured endpoint.
import { createServer } from 'node:http';

const body = Buffer.from(process.env['BARE_BODY'] ?? '{}', 'base64');
const contentType = process.env['BARE_CONTENT_TYPE'] ?? 'application/json; charset=utf-8';
const server = createServer((_request, response) => {
  response.writeHead(200, { 'content-type': contentType, 'content-length': body.length });
  response.end(body);
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address() as { port: number };
  process.send?.({ ready: true, port: address.port });
});
process.on('message', (message) => {
  if (message === 'cpu') process.send?.({ cpu: process.cpuUsage() });
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
