import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DeliveryError } from '../../src/notify/errors.js';

/** One answer the receiver gives: a status, headers and a body (JSON when an object). */
export interface ChatAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface ChatCall {
  headers: IncomingHttpHeaders;
  /** The body exactly as it arrived, and its size in bytes (what Teams limits). */
  raw: string;
  bytes: number;
  body: Record<string, unknown>;
}

/**
 * A real HTTP server standing in for a Teams workflow or a Discord webhook: records every request and
 * answers with queued answers, then `ok` (Teams' 202, Discord's 204). Its URL carries a token in the path
 * and a `sig=` in the query, as theirs do, so a test can check neither leaks.
 */
export interface ChatReceiver {
  url: string;
  calls: ChatCall[];
  respond(...answers: ChatAnswer[]): void;
  close(): Promise<void>;
}

export const RECEIVER_SECRET = 'tok-in-the-path';
export const RECEIVER_SIG = 'sig-in-the-query';

export async function startChatReceiver(ok: ChatAnswer = { status: 204 }): Promise<ChatReceiver> {
  const calls: ChatCall[] = [];
  const queue: ChatAnswer[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const data = Buffer.concat(chunks);
      const raw = data.toString('utf8');
      calls.push({ headers: req.headers, raw, bytes: data.length, body: JSON.parse(raw || '{}') });
      const answer = queue.shift() ?? ok;
      const body =
        answer.body === undefined
          ? ''
          : typeof answer.body === 'string'
            ? answer.body
            : JSON.stringify(answer.body);
      res.writeHead(answer.status, {
        ...(typeof answer.body === 'object' ? { 'content-type': 'application/json' } : {}),
        ...answer.headers,
      });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api/webhooks/123/${RECEIVER_SECRET}?api-version=1&sig=${RECEIVER_SIG}`,
    calls,
    respond: (...answers) => queue.push(...answers),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** What a sender made of an answer: the error's message, whether it is final, and the wait it asks. */
export async function refusalOf(
  sender: { post(message: never): Promise<void> },
  receiver: ChatReceiver,
  answer: ChatAnswer,
): Promise<{ message: string; permanent: boolean; retryAfterMs: number | undefined }> {
  receiver.respond(answer);
  // The receiver answers whatever is posted: the message's content plays no part.
  const err = await sender.post({} as never).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof DeliveryError)) throw new Error(`expected a DeliveryError, got ${String(err)}`);
  return { message: err.message, permanent: err.permanent, retryAfterMs: err.retryAfterMs };
}
