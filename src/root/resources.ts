import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { createSenders } from '../notify/channels.js';
import type { ChannelSender } from '../notify/sender.js';
import { connectRedis } from '../queue/connection.js';
import type { Settings } from '../settings.js';
import { openStore, type Store } from '../store/db.js';
import { Releasers } from '../util/releasers.js';

/**
 * What a short command (status, prune, rules, digest, notify, user) works with, each opened when first
 * asked for: `notify test` needs no database, most commands no Redis.
 */
export interface CommandResources {
  readonly settings: Settings;
  /** The SQLite store (migrated on open). */
  readonly store: Store;
  /** Redis at REDIS_URL; fails with a message saying how to get one when none answers. */
  redis(): Promise<Redis>;
  /** A queue under the configured prefix, to read or to add jobs to; no worker runs here. */
  queue<Data = unknown>(name: string): Promise<Queue<Data>>;
  /** One sender per configured channel. */
  senders(): ReadonlyMap<string, ChannelSender>;
}

/**
 * The composition root of short commands, beside `startWorker` for the long-running ones: opens what
 * `work` asks for and releases all of it when `work` returns or throws, last opened first, each release
 * isolated (util/releasers.ts).
 */
export async function withResources<T>(
  settings: Settings,
  work: (resources: CommandResources) => Promise<T> | T,
): Promise<T> {
  const releasers = new Releasers();
  try {
    let store: Store | undefined;
    let redis: Promise<Redis> | undefined;
    let senders: ReadonlyMap<string, ChannelSender> | undefined;
    const resources: CommandResources = {
      settings,
      get store() {
        if (!store) {
          const opened = openStore(settings.databasePath);
          releasers.add('SQLite', () => opened.close());
          store = opened;
          // An empty table or "0 reviews" would not tell a mistyped DATABASE_PATH, or a command run away
          // from the worker's directory, from a store with nothing in it yet.
          if (opened.created) {
            process.stderr.write(
              `reviewwatch: no database was at ${settings.databasePath}: created an empty one. If the worker stores elsewhere, set DATABASE_PATH to its database.\n`,
            );
          }
        }
        return store;
      },
      redis() {
        if (!redis) {
          const connecting = connectRedis(settings.redisUrl);
          // Registered before it resolves: a command that ends first still closes what it was opening.
          releasers.add('Redis connection', async () => {
            const connection = await connecting.catch(() => undefined);
            await connection?.quit().catch(() => connection.disconnect());
          });
          redis = connecting;
        }
        return redis;
      },
      queue<Data>(name: string) {
        const opening = resources
          .redis()
          .then((connection) => new Queue<Data>(name, { connection, prefix: settings.queuePrefix }));
        releasers.add(`${name} queue`, async () => {
          await (await opening.catch(() => undefined))?.close();
        });
        return opening;
      },
      senders() {
        if (!senders) {
          const created = createSenders(settings.config, settings.smtpUrl, { simulated: settings.simulated });
          releasers.add('channel senders', () => {
            for (const sender of created.values()) sender.close?.();
          });
          senders = created;
        }
        return senders;
      },
    };
    return await work(resources);
  } finally {
    const errors = await releasers.releaseAll();
    // A failed release is worth a word, never worth hiding the command's own outcome.
    for (const err of errors) process.stderr.write(`reviewwatch: ${err.message}\n`);
  }
}
