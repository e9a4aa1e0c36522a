/**
 * A taxonomy's patterns as flat arrays of numbers, built once when it is compiled, so that the matcher
 * (match.ts) reads a review as numbers: each word's entry and role found from its characters where they
 * stand in the text, without a string, an object or a map lookup for most words
 * (bench/README.md, "Stored topics"). What a word does is its role: the slots it fits and the patterns it
 * may start. A word's role depends only on its form if it is one of the rules' forms, and otherwise on the
 * longest prefix of the rules it starts with, so there are few roles and each is computed here once.
 */
import type { Pattern } from './compile.js';
import { wordHash } from './text.js';

/**
 * Words that turn what follows into its opposite. Contractions appear with and without the apostrophe,
 * because reviews are typed on phones; any word ending in "n't" negates too.
 */
const NEGATIONS = [
  'not',
  'no',
  'never',
  'nothing',
  'none',
  'zero',
  'without',
  'cannot',
  'unable',
  'hardly',
  'barely',
  'nor',
  'dont',
  'doesnt',
  'didnt',
  'isnt',
  'wasnt',
  'wont',
  'cant',
  'couldnt',
  'wouldnt',
  'arent',
  'werent',
  'havent',
  'hasnt',
  'hadnt',
  'aint',
];

function isNegation(word: string): boolean {
  return NEGATIONS.includes(word) || word.endsWith("n't");
}

/**
 * Laid out so that a word touches few cache lines: a poll does much else between two reviews, and each
 * review's matching starts with little of this in the caches (bench/README.md, "Stored topics").
 */
export interface Lexicon {
  /**
   * Every form of the rules' words, and the negations, by `wordHash` (text.ts), in open addressing: records
   * of `RECORD` numbers, the hash, where the word's characters start in `chars` plus one (0 for a free
   * record), the offset of its role in `roles`, and its length times two plus one if it negates. A word's
   * entry is its record's index.
   */
  table: Int32Array;
  mask: number;
  chars: Uint16Array;
  /** The entries by word, for texts the ASCII scan does not read. */
  entryOf: ReadonlyMap<string, number>;
  /**
   * The rules' ASCII prefixes as a trie over `PREFIX_SYMBOL`'s symbols: the next state of each state and
   * symbol, -1 for none. A state where a prefix ends has the role of a word that is no entry and starts so:
   * the longest prefix a word starts with decides its role.
   */
  trie: Int32Array;
  trieRole: Int32Array;
  /** Every prefix's role, for texts the ASCII scan does not read. */
  prefixRoleOf: ReadonlyMap<string, number>;
  longestPrefix: number;
  /**
   * The roles, each at its offset (0: the role of a word that does nothing): the count of slots it fits and
   * their ids, ascending; the count of patterns it starts, to try where it stands, and their offsets in
   * `patterns`; the count of patterns whose second word must follow it at once (no gap, no prefix) by that
   * word, then pairs of an entry, ascending, and where that word's patterns stand in `roles` (their count,
   * then their offsets). Most phrases, and most patterns a common word starts ("support ...", "works ..."),
   * are tried only when the next word is one of theirs.
   */
  roles: Int32Array;
  /**
   * The patterns, each at its offset: its topic (`Taxonomy.topics`), its flags (`VETO`, `NEGATION_REQUIRED`,
   * `NEGATION_FORBIDDEN`, `CLAUSE_START`), its count of slots, and for each slot its id and the other
   * words allowed before it (the first's 0).
   */
  patterns: Int32Array;
  /** Slot ids run from 0 to one below this. */
  slotCount: number;
  /**
   * The topics' names by index: read from one array of strings rather than from the definitions, whose
   * shapes differ (with and without `unless`).
   */
  topicNames: readonly string[];
}

export const RECORD = 4;
export const VETO = 1;
export const NEGATION_REQUIRED = 2;
export const NEGATION_FORBIDDEN = 4;
export const CLAUSE_START = 8;

/** The characters of an ASCII word, as trie symbols; -1 for any other. */
export const PREFIX_SYMBOL = new Int8Array(128).fill(-1);
const SYMBOLS = "abcdefghijklmnopqrstuvwxyz0123456789$'-.";
for (let s = 0; s < SYMBOLS.length; s += 1) PREFIX_SYMBOL[SYMBOLS.charCodeAt(s)] = s;
export const SYMBOL_COUNT = SYMBOLS.length;

const FLAGS_OF_NEGATION = { any: 0, required: NEGATION_REQUIRED, forbidden: NEGATION_FORBIDDEN } as const;

/** The patterns laid out, and each one's offset. */
function patternsOf(patterns: readonly Pattern[]): { layout: Int32Array; offsets: number[] } {
  const layout: number[] = [];
  const offsets = patterns.map((pattern) => {
    const offset = layout.length;
    const flags =
      (pattern.veto ? VETO : 0) |
      FLAGS_OF_NEGATION[pattern.negation] |
      (pattern.clauseStart ? CLAUSE_START : 0);
    layout.push(pattern.topic, flags, pattern.slots.length);
    pattern.slots.forEach((slot, s) => {
      layout.push(slot.id, pattern.gaps[s] ?? 0);
    });
    return offset;
  });
  return { layout: Int32Array.from(layout), offsets };
}

/** The table of `words` (`Lexicon.table`) and their characters, each word's role by `roleOf`. */
function tableOf(
  words: readonly string[],
  roleOf: (word: string, entryOf: ReadonlyMap<string, number>) => number,
) {
  const size = 2 ** Math.ceil(Math.log2(Math.max(2, words.length) * 2));
  const table = new Int32Array(size * RECORD);
  const chars = new Uint16Array(words.reduce((sum, word) => sum + word.length, 0));
  const entryOf = new Map<string, number>();
  let written = 0;
  for (const word of words) {
    const hash = wordHash(word);
    let at = hash & (size - 1);
    while (table[at * RECORD + 1] !== 0) at = (at + 1) & (size - 1);
    for (let i = 0; i < word.length; i += 1) chars[written + i] = word.charCodeAt(i);
    table[at * RECORD] = hash;
    table[at * RECORD + 1] = written + 1;
    table[at * RECORD + 3] = word.length * 2 + (isNegation(word) ? 1 : 0);
    written += word.length;
    entryOf.set(word, at);
  }
  // Roles last: a role's next words are named by their entries.
  for (const [word, at] of entryOf) table[at * RECORD + 2] = roleOf(word, entryOf);
  return { table, mask: size - 1, chars, entryOf };
}

/** The trie of the prefixes' roles (`Lexicon.trie`). */
function trieOf(prefixRoleOf: ReadonlyMap<string, number>): { trie: Int32Array; trieRole: Int32Array } {
  const trie: number[] = new Array<number>(SYMBOL_COUNT).fill(-1);
  const trieRole: number[] = [0];
  for (const [prefix, role] of prefixRoleOf) {
    let state = 0;
    for (let i = 0; i < prefix.length && state >= 0; i += 1) {
      const code = prefix.charCodeAt(i);
      const symbol = code < 128 ? (PREFIX_SYMBOL[code] as number) : -1;
      if (symbol < 0) state = -1;
      else {
        let next = trie[state * SYMBOL_COUNT + symbol] as number;
        if (next < 0) {
          next = trieRole.length;
          trieRole.push(0);
          trie.push(...new Array<number>(SYMBOL_COUNT).fill(-1));
          trie[state * SYMBOL_COUNT + symbol] = next;
        }
        state = next;
      }
    }
    // A prefix with a character no ASCII word holds starts no word the trie reads.
    if (state > 0) trieRole[state] = role;
  }
  return { trie: Int32Array.from(trie), trieRole: Int32Array.from(trieRole) };
}

/** Builds the lexicon of patterns whose slots are numbered in order from 0, as compileTaxonomy numbers them. */
export function lexiconOf(patterns: readonly Pattern[], topicNames: readonly string[]): Lexicon {
  const slotsByForm = new Map<string, number[]>();
  const slotsByPrefix = new Map<string, number[]>();
  const byForm = new Map<string, number[]>();
  const byPrefix: number[] = [];
  let slotCount = 0;
  patterns.forEach((pattern, p) => {
    for (const slot of pattern.slots) {
      if (slot.id !== slotCount) throw new Error('slots must be numbered in order');
      slotCount += 1;
      for (const form of slot.forms) pushTo(slotsByForm, form, slot.id);
      for (const prefix of slot.prefixes) pushTo(slotsByPrefix, prefix, slot.id);
    }
    const first = pattern.slots[0];
    for (const form of first?.forms ?? []) pushTo(byForm, form, p);
    if ((first?.prefixes.length ?? 0) > 0) byPrefix.push(p);
  });
  const prefixes = [...slotsByPrefix.keys()];
  const { layout, offsets } = patternsOf(patterns);

  const roles: number[] = [];
  const roleByKey = new Map<string, number>();
  /**
   * The role of a word as one of the forms (`asForm`) or as a word that only starts with prefixes: the slots
   * it fits and the patterns it starts, laid out once for each distinct pair (the forms of one word mostly
   * share theirs).
   */
  const roleOf = (word: string, asForm: boolean, entryOf: ReadonlyMap<string, number>): number => {
    const matching = prefixes.filter((prefix) => word.startsWith(prefix));
    let slots = asForm ? (slotsByForm.get(word) ?? []) : [];
    let started = asForm ? (byForm.get(word) ?? []) : [];
    // Most words start with no prefix: their form's lists, ascending and distinct already, are the answer.
    if (matching.length > 0) {
      const fitted = new Set([...slots, ...matching.flatMap((prefix) => slotsByPrefix.get(prefix) ?? [])]);
      slots = [...fitted].sort((a, b) => a - b);
      const prefixed = byPrefix.filter((p) =>
        (patterns[p]?.slots[0]?.prefixes ?? []).some((x) => word.startsWith(x)),
      );
      started = [...started, ...prefixed];
    }
    const key = `${slots.join()}|${started.join()}`;
    let role = roleByKey.get(key);
    if (role !== undefined) return role;
    const starts: number[] = [];
    const byNext = new Map<number, number[]>();
    for (const p of started) {
      const pattern = patterns[p] as Pattern;
      const second = pattern.slots[1];
      if (second === undefined || pattern.gaps[1] !== 0 || second.prefixes.length > 0) starts.push(p);
      else for (const form of second.forms) pushTo(byNext, entryOf.get(form) as number, p);
    }
    const next = [...byNext].sort((a, b) => a[0] - b[0]);
    role = roles.length;
    roleByKey.set(key, role);
    roles.push(
      slots.length,
      ...slots,
      starts.length,
      ...starts.map((p) => offsets[p] as number),
      next.length,
    );
    const pairs = roles.length;
    roles.push(...new Array<number>(next.length * 2).fill(0));
    next.forEach(([entry, ids], k) => {
      roles[pairs + k * 2] = entry;
      roles[pairs + k * 2 + 1] = roles.length;
      roles.push(ids.length, ...ids.map((p) => offsets[p] as number));
    });
    return role;
  };
  roleOf('', false, new Map()); // at 0: the role of most words, which do nothing

  const words = [...new Set([...slotsByForm.keys(), ...NEGATIONS])];
  const table = tableOf(words, (word, entryOf) => roleOf(word, true, entryOf));
  const prefixRoleOf = new Map(prefixes.map((prefix) => [prefix, roleOf(prefix, false, table.entryOf)]));
  return {
    ...table,
    ...trieOf(prefixRoleOf),
    prefixRoleOf,
    longestPrefix: Math.max(0, ...prefixes.map((p) => p.length)),
    roles: Int32Array.from(roles),
    patterns: layout,
    slotCount,
    topicNames: [...topicNames],
  };
}

function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}
