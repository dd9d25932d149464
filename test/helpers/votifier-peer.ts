// A NuVotifier protocol v2 listener for tests: a real TCP server on 127.0.0.1 that greets with a fresh
// challenge, checks the magic, the length, the HMAC-SHA256 signature under its token and the challenge, answers
// like NuVotifier ({"status":"ok"} or {"status":"error","cause","error"}) and records the votes it accepted.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import net from 'node:net';

export interface ReceivedVote {
  serviceName: string;
  username: string;
  address: string;
  timestamp: number;
  challenge: string;
}

export interface VotifierPeer {
  port: number;
  /** Votes that passed every check, in arrival order. */
  votes: ReceivedVote[];
  /** Every refusal the peer answered, as `cause: error`. */
  refusals: string[];
  /** Stops listening (connections are refused) until start() again on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

const MAGIC = 0x733a;

export async function startVotifierPeer(token: string): Promise<VotifierPeer> {
  const votes: ReceivedVote[] = [];
  const refusals: string[] = [];
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  let port = 0;

  function handle(socket: net.Socket): void {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    const challenge = randomBytes(12).toString('hex');
    socket.write(`VOTIFIER 2 ${challenge}\n`);
    let buffered = Buffer.alloc(0);
    const refuse = (cause: string, error: string) => {
      refusals.push(`${cause}: ${error}`);
      socket.end(`${JSON.stringify({ status: 'error', cause, error })}\r\n`);
    };
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (buffered.length < 4) return;
      if (buffered.readUInt16BE(0) !== MAGIC) return refuse('CorruptedFrameException', 'Bad magic');
      const length = buffered.readUInt16BE(2);
      if (buffered.length < 4 + length) return;
      if (buffered.length > 4 + length) return refuse('CorruptedFrameException', 'Trailing bytes');
      let message: { payload?: unknown; signature?: unknown };
      try {
        message = JSON.parse(buffered.subarray(4).toString('utf8')) as typeof message;
      } catch {
        return refuse('CorruptedFrameException', 'Message is not JSON');
      }
      if (typeof message.payload !== 'string' || typeof message.signature !== 'string')
        return refuse('CorruptedFrameException', 'Missing payload or signature');
      const expected = createHmac('sha256', token).update(message.payload).digest();
      const given = Buffer.from(message.signature, 'base64');
      if (given.length !== expected.length || !timingSafeEqual(given, expected))
        return refuse('CorruptedFrameException', 'Signature is not valid (invalid token?)');
      const vote = JSON.parse(message.payload) as ReceivedVote;
      if (vote.challenge !== challenge) return refuse('CorruptedFrameException', 'Challenge is not valid');
      votes.push(vote);
      socket.end(`${JSON.stringify({ status: 'ok' })}\r\n`);
    });
  }

  async function start(): Promise<void> {
    const listening = net.createServer(handle);
    await new Promise<void>((resolve, reject) => {
      listening.once('error', reject);
      listening.listen(port, '127.0.0.1', () => resolve());
    });
    port = (listening.address() as net.AddressInfo).port;
    server = listening;
  }

  async function stop(): Promise<void> {
    const current = server;
    server = undefined;
    if (current === undefined) return;
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => current.close(() => resolve()));
  }

  await start();
  return {
    get port() {
      return port;
    },
    votes,
    refusals,
    stop,
    start,
    close: stop,
  };
}
