import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempStore } from '../helpers/index.js';

let store: ReturnType<typeof tempStore>;
let reader: Database.Database;

beforeEach(() => {
  store = tempStore();
  reader = new Database(store.path, { readonly: true });
});
afterEach(() => {
  reader.close();
  store.cleanup();
});

const insertApp = (handle: string) => () => {
  store.db.$client.prepare('insert into apps (handle) values (?)').run(handle);
  return handle;
};
const storedApps = (db: Database.Database) =>
  db
    .prepare<[], { handle: string }>('select handle from apps order by handle')
    .all()
    .map((row) => row.handle);

describe('WriteBatch', () => {
  it('commits the writes asked for together once, after all of them ran', async () => {
    const seenByReader: string[][] = [];
    const results = await Promise.all([
      store.writes.run(insertApp('a')),
      store.writes.run(insertApp('b')),
      store.writes.run(() => {
        // Another connection sees nothing of a or b yet: they wait for the same commit as this one.
        seenByReader.push(storedApps(reader));
        return insertApp('c')();
      }),
    ]);
    expect(results).toEqual(['a', 'b', 'c']);
    expect(seenByReader).toEqual([[]]);
    expect(storedApps(reader)).toEqual(['a', 'b', 'c']);
  });

  it('rolls back only the work that threw, and tells only its caller', async () => {
    const outcomes = await Promise.allSettled([
      store.writes.run(insertApp('a')),
      store.writes.run(() => {
        insertApp('b')();
        throw new Error('b went wrong');
      }),
      store.writes.run(insertApp('c')),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({ message: 'b went wrong' });
    expect(storedApps(reader)).toEqual(['a', 'c']);
  });

  it('fails every caller and writes nothing when the batch cannot take the write lock', async () => {
    store.db.$client.pragma('busy_timeout = 0');
    const other = new Database(store.path);
    other.prepare('begin immediate').run();
    try {
      const outcomes = await Promise.allSettled([
        store.writes.run(insertApp('a')),
        store.writes.run(insertApp('b')),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
      expect((outcomes[0] as PromiseRejectedResult).reason).toMatchObject({ code: 'SQLITE_BUSY' });
    } finally {
      other.prepare('rollback').run();
      other.close();
    }
    expect(storedApps(reader)).toEqual([]);
    // The next batch works again.
    await store.writes.run(insertApp('c'));
    expect(storedApps(reader)).toEqual(['c']);
  });

  it('fails every caller with the error, and writes nothing, when SQLite rolls back the whole batch', async () => {
    const client = store.db.$client;
    // A database that cannot grow: the big write below fails with SQLITE_FULL, which ends the transaction.
    client.pragma(`max_page_count = ${(client.pragma('page_count', { simple: true }) as number) + 3}`);
    const outcomes = await Promise.allSettled([
      store.writes.run(insertApp('a')),
      store.writes.run(() => {
        const insert = client.prepare('insert into apps (handle, title) values (?, ?)');
        for (let i = 0; i < 1000; i++) insert.run(`big-${i}`, 'x'.repeat(2000));
      }),
      store.writes.run(insertApp('c')),
    ]);
    client.pragma('max_page_count = 1073741823');
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
    for (const outcome of outcomes) {
      expect((outcome as PromiseRejectedResult).reason).toMatchObject({ code: 'SQLITE_FULL' });
    }
    expect(storedApps(reader)).toEqual([]);
  });
});
