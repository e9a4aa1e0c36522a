import { createInterface, type Interface } from 'node:readline/promises';
import { ReviewwatchError } from '../errors.js';

/** Ctrl-C or Ctrl-D at a question: stop, as a shell would, having changed nothing. */
export class PromptAbortedError extends ReviewwatchError {
  constructor() {
    super('Stopped at the question: nothing was written.', { exitCode: 130 });
  }
}

/** Questions at a terminal. A Ctrl-C or the end of input rejects the question with PromptAbortedError. */
export class Prompt {
  readonly #rl: Interface;
  readonly #output: NodeJS.WritableStream;
  readonly #aborted = new AbortController();

  constructor(input: NodeJS.ReadableStream = process.stdin, output: NodeJS.WritableStream = process.stdout) {
    this.#output = output;
    this.#rl = createInterface({ input, output, terminal: true });
    // Without a listener, readline only pauses on Ctrl-C and the question would wait for ever.
    this.#rl.on('SIGINT', () => this.#aborted.abort());
    this.#rl.on('close', () => this.#aborted.abort());
  }

  async ask(question: string): Promise<string> {
    if (this.#aborted.signal.aborted) throw new PromptAbortedError();
    try {
      return (await this.#rl.question(question, { signal: this.#aborted.signal })).trim();
    } catch (err) {
      if (this.#aborted.signal.aborted) throw new PromptAbortedError();
      throw err;
    }
  }

  /** Yes unless answered no; asks again on anything else. */
  async confirm(question: string): Promise<boolean> {
    for (;;) {
      const answer = (await this.ask(`${question} [Y/n] `)).toLowerCase();
      if (answer === '' || answer === 'y' || answer === 'yes') return true;
      if (answer === 'n' || answer === 'no') return false;
      this.#output.write('Answer y or n.\n');
    }
  }

  /**
   * One of `options`, or undefined for none: a yes or no for one option, a number for several (`label`
   * names what they replace).
   */
  async choose(label: string, options: readonly string[]): Promise<string | undefined> {
    const [first] = options;
    if (first === undefined) return undefined;
    if (options.length === 1)
      return (await this.confirm(`Use ${first} instead of ${label}?`)) ? first : undefined;
    this.#output.write(`Instead of ${label}:\n${options.map((o, i) => `  ${i + 1}. ${o}`).join('\n')}\n`);
    for (;;) {
      const answer = await this.ask(`Which one (1-${options.length}, Enter for none)? `);
      if (answer === '') return undefined;
      const chosen = options[Number(answer) - 1];
      if (/^\d+$/.test(answer) && chosen !== undefined) return chosen;
      this.#output.write(`Answer a number from 1 to ${options.length}, or Enter for none.\n`);
    }
  }

  /**
   * Numbers out of 1..count ("2 5", "1-3", "all"); Enter picks none. Asks again, saying why, when an
   * answer holds anything else.
   */
  async pickNumbers(question: string, count: number): Promise<Set<number>> {
    for (;;) {
      const parsed = parseNumbers(await this.ask(question), count);
      if (typeof parsed !== 'string') return parsed;
      this.#output.write(`${parsed}\n`);
    }
  }

  close(): void {
    this.#rl.close();
  }
}

/** "2 5", "1-3, 7", "all" or "" → the numbers; anything else → what is wrong with it. */
export function parseNumbers(answer: string, count: number): Set<number> | string {
  const picked = new Set<number>();
  const text = answer.trim().toLowerCase();
  if (text === 'all') return new Set(Array.from({ length: count }, (_, i) => i + 1));
  for (const token of text.split(/[\s,]+/).filter((t) => t !== '')) {
    const range = /^(\d+)(?:-(\d+))?$/.exec(token);
    const from = Number(range?.[1]);
    const to = Number(range?.[2] ?? range?.[1]);
    if (range === null || from < 1 || to > count || from > to) {
      return `"${token}" is not a number from 1 to ${count} (or a range such as 2-4, or all).`;
    }
    for (let n = from; n <= to; n++) picked.add(n);
  }
  return picked;
}
