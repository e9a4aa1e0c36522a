import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface WebhookCall {
  path: string;
  body: { text?: string; blocks?: Array<Record<string, unknown>> };
  at: number;
}

/**
 * A real HTTP server standing in for a Slack incoming webhook: records what arrives and answers with
 * queued statuses (then 200 "ok", as Slack does).
 */
export interface FakeSlack {
  url: string;
  calls: WebhookCall[];
  /** Accepted messages only (the ones answered 200). */
  accepted: () => WebhookCall[];
  respond(...responses: Array<{ status: number; retryAfter?: number; body?: string }>): void;
  close(): Promise<void>;
}

export async function startFakeSlack(): Promise<FakeSlack> {
  const calls: WebhookCall[] = [];
  const acceptedCalls: WebhookCall[] = [];
  const queue: Array<{ status: number; retryAfter?: number; body?: string }> = [];
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => {
      raw += chunk;
    });
    req.on('end', () => {
      const call = { path: req.url ?? '', body: JSON.parse(raw || '{}'), at: Date.now() };
      calls.push(call);
      const next = queue.shift() ?? { status: 200, body: 'ok' };
      if (next.status === 200) acceptedCalls.push(call);
      res.writeHead(next.status, {
        'content-type': 'text/plain',
        ...(next.retryAfter === undefined ? {} : { 'retry-after': String(next.retryAfter) }),
      });
      res.end(next.body ?? (next.status === 200 ? 'ok' : 'error'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/services/T000/B000/secret-token-xyz`,
    calls,
    accepted: () => acceptedCalls,
    respond: (...responses) => queue.push(...responses),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
