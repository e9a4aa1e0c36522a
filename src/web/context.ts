/**
 * What the inbox's routers and middleware share, made once by `createWeb`: the store and the config, the
 * clock, who is asking, and how reviews and apps are shown.
 */
import type { IncomingMessage } from 'node:http';
import type { Config } from '../config/index.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/db.js';
import type { Principal, Sessions } from './auth.js';
import type { LiveState } from './live.js';
import type { Presenter } from './present.js';

export interface WebContext {
  store: Store;
  config: Config;
  logger: Logger;
  now: () => Date;
  /** `web.publicUrl`: the inbox's address as browsers see it, when it is set. */
  publicUrl: string | undefined;
  sessions: Sessions;
  presenter: Presenter;
  /** What open pages poll for: the open count and the store's mark (live.ts). */
  live: LiveState;
  /** How often a visible page polls `/api/live`. */
  livePollMs: number;
  /** A session or the admin token; undefined for anyone else. */
  principalOf(req: IncomingMessage): Principal | undefined;
}
