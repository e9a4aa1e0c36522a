import { errorMessage } from '../errors.js';

type Release = () => Promise<void> | void;

/**
 * What a composition root opened, in order, so it can be given back in reverse. Modelled on
 * graphile-worker's `withReleasers`: each release runs even when an earlier one threw (a Redis that is
 * gone must not keep SQLite open), and releasing twice returns the first release's promise instead of
 * running the list again in the wrong order.
 */
export class Releasers {
  private readonly stack: Array<{ name: string; release: Release }> = [];
  private releasing: Promise<Error[]> | undefined;

  /** Registers `release` to run before everything added earlier. */
  add(name: string, release: Release): void {
    if (this.releasing) throw new Error(`cannot add "${name}": already released`);
    this.stack.push({ name, release });
  }

  /** Runs every release, last added first; resolves with the errors, each named for what failed. */
  releaseAll(): Promise<Error[]> {
    this.releasing ??= (async () => {
      const errors: Error[] = [];
      for (const { name, release } of this.stack.toReversed()) {
        try {
          await release();
        } catch (err) {
          errors.push(new Error(`releasing ${name} failed: ${errorMessage(err)}`, { cause: err }));
        }
      }
      return errors;
    })();
    return this.releasing;
  }
}

/**
 * Runs `open` with fresh releasers; when it throws half-way, releases what it opened before rethrowing,
 * so a start-up that fails leaves no connection, server or child process behind.
 */
export async function withReleasers<T>(open: (releasers: Releasers) => Promise<T>): Promise<T> {
  const releasers = new Releasers();
  try {
    return await open(releasers);
  } catch (err) {
    await releasers.releaseAll();
    throw err;
  }
}
