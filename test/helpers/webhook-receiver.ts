import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedCall {
  headers: IncomingHttpHeaders;
  /** The body exactly as it arrived: what a signature is checked against. */
  raw: string;
  body: { type: string; id: string; createdAt: string; data: Record<string, unknown> };
}

/**
 * A real HTTP server standing in for a webhook receiver: records every request, headers and raw body,
 * and answers with queued statuses (then 204).
 */
export interface WebhookReceiver {
  url: string;
  calls: ReceivedCall[];
  respond(...responses: Response[]): void;
  close(): Promise<void>;
}

/** An answer to queue: its status, and a Retry-After or a Location to send with it. */
type Response = { status: number; retryAfter?: string; location?: string };

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const calls: ReceivedCall[] = [];
  const queue: Response[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      calls.push({ headers: req.headers, raw, body: JSON.parse(raw || '{}') });
      const next = queue.shift() ?? { status: 204 };
      res.writeHead(next.status, {
        ...(next.retryAfter === undefined ? {} : { 'retry-after': next.retryAfter }),
        ...(next.location === undefined ? {} : { location: next.location }),
      });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/reviewwatch/tok-in-the-path`,
    calls,
    respond: (...responses) => queue.push(...responses),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
