import { describe, expect, it } from 'vitest';
import {
  BUILT_IN_TAXONOMY,
  BUILT_IN_TOPIC_NAMES,
  compileTaxonomy,
  TopicRuleError,
  taxonomyWith,
  topicsOf,
} from '../../src/topics/index.js';
import { tokenize } from '../../src/topics/text.js';

function topics(text: string): Record<string, string[]> {
  return Object.fromEntries(topicsOf(text, BUILT_IN_TAXONOMY).map((t) => [t.name, t.words]));
}

function names(text: string): string[] {
  return topicsOf(text, BUILT_IN_TAXONOMY).map((t) => t.name);
}

describe('the built-in taxonomy', () => {
  it('has exactly the ten topics of issue 24, in their order', () => {
    expect(BUILT_IN_TAXONOMY.topics.map((t) => t.name)).toEqual([...BUILT_IN_TOPIC_NAMES]);
    expect(BUILT_IN_TOPIC_NAMES).toEqual([
      'billing',
      'bugs',
      'performance',
      'support',
      'setup',
      'integrations',
      'features',
      'data-loss',
      'uninstall',
      'usability',
    ]);
  });

  it('gives a generic verdict no topic', () => {
    for (const text of [
      'Great app!',
      'Works fine.',
      'No issues at all',
      'Terrible.',
      'love it, 5 stars',
      '',
    ]) {
      expect(names(text), text).toEqual([]);
    }
  });
});

describe('topicsOf', () => {
  it("returns the review's own words as written, phrases whole", () => {
    expect(topics('Charged TWICE and they took all my money. Support never replied!')).toEqual({
      billing: ['Charged TWICE', 'took all my money'],
      support: ['Support', 'never replied'],
    });
  });

  it('knows word forms and the typos merchants make', () => {
    for (const text of ['I want a refund', 'still no refunds', 'they refunded me', 'where is my refnd']) {
      expect(names(text), text).toContain('billing');
    }
    expect(topics('Uninstaled it, the intergration was a mess')).toEqual({
      integrations: ['intergration'],
      uninstall: ['Uninstaled'],
    });
  });

  it('reads a negation where it flips the evidence, and only there', () => {
    expect(topics("The sync doesn't work")).toMatchObject({ bugs: ["doesn't work"] });
    expect(names('It works, no issues')).toEqual([]);
    expect(names('Had issues with the widget')).toEqual(['bugs']);
    // Rule 5 of the labelling: "no bugs" still speaks of bugs.
    expect(names('No bugs so far')).toEqual(['bugs']);
    expect(topics('It does not support multiple currencies')).toEqual({
      features: ['not support'],
    });
  });

  it('keeps a phrase and a negation inside one sentence', () => {
    expect(names('I was charged. Twice the fun')).toEqual(['billing']);
    expect(names('Not great. Works for us')).toEqual([]);
  });

  it('tells data loss from removing the app', () => {
    expect(names('I deleted the app')).toEqual(['uninstall']);
    expect(topics('The update deleted all my products')).toEqual({
      'data-loss': ['deleted all my products'],
    });
    expect(names('We lost two sales because checkout broke')).not.toContain('data-loss');
  });

  it('reads a text typed on a phone as its plain spelling: curly apostrophes, full-width letters, emoji', () => {
    // An ASCII text and any other take two paths through the tokenizer (src/topics/text.ts): one answer.
    const plain = "The app's sync doesn't work; it CRASHES. Refund me";
    const expected = topics(plain);
    expect(Object.keys(expected)).toEqual(['billing', 'bugs']);
    expect(topics(`${plain} \u{1F621}`)).toEqual(expected);
    expect(
      names(
        'The app\u2019s sync doesn\u2019t work; it \uFF23\uFF32\uFF21\uFF33\uFF28\uFF25\uFF33. Refund me',
      ),
    ).toEqual(Object.keys(expected));
    expect(tokenize(`${plain} \u{1F621}`)).toEqual(tokenize(plain));
  });

  it('splits an ASCII text into the words the Unicode path finds, at the edges of words too', () => {
    // The ASCII path reads characters one by one; the other runs the expression WORD (src/topics/text.ts).
    for (const text of [
      "$5 off, $$10 and $ 3; it's. set-up -x x- 2.3. judge.me's a.b.c 'quoted' don''t end.",
      "Won't-fix... e-mail--again 3.5x $9.99/mo CRASH'S?!\n\nNew line - dash ' apostrophe '",
      "trailing joiners: word- word. word' $",
      // The Kelvin sign is the one character past ASCII that lowercases into it: the ASCII path reads it.
      '\u212Aeeps crashing since the \u212A update',
    ]) {
      // An emoji is no word: it only sends the text down the Unicode path.
      expect(tokenize(text)).toEqual(tokenize(`${text} \u{1F621}`));
    }
  });

  it('finds several topics in one review', () => {
    expect(names('uninstalled it in march and still got charged in april, emailed support twice')).toEqual([
      'billing',
      'support',
      'uninstall',
    ]);
  });
});

describe('compileTaxonomy', () => {
  it('compiles custom topics with the same rule language', () => {
    const taxonomy = compileTaxonomy([
      { name: 'shipping', weight: 20, words: ['shipping rate', 'carrier*', 'label|labels ... print'] },
    ]);
    expect(topicsOf('Carriers are missing and the shipping rates are off', taxonomy)).toEqual([
      { name: 'shipping', words: ['Carriers', 'shipping rates'] },
    ]);
    expect(topicsOf('Labels fail to print', taxonomy)).toEqual([
      { name: 'shipping', words: ['Labels fail to print'] },
    ]);
  });

  it('versions the rules: another weight or word is another version', () => {
    const a = compileTaxonomy([{ name: 'x', weight: 1, words: ['a'] }]);
    expect(compileTaxonomy([{ name: 'x', weight: 1, words: ['a'] }]).version).toBe(a.version);
    expect(compileTaxonomy([{ name: 'x', weight: 2, words: ['a'] }]).version).not.toBe(a.version);
    expect(compileTaxonomy([{ name: 'x', weight: 1, words: ['b'] }]).version).not.toBe(a.version);
  });

  it('refuses a rule that matches nothing, naming the topic', () => {
    expect(() => compileTaxonomy([{ name: 'x', weight: 0, words: ['*'] }])).toThrow(TopicRuleError);
    expect(() => compileTaxonomy([{ name: 'x', weight: 0, words: ['...'] }])).toThrow('topic "x"');
  });
});

describe('answers', () => {
  it('are arrays of their own, which a caller may change', () => {
    const text = 'They charged me twice and the app crashes.';
    const first = topicsOf(text, BUILT_IN_TAXONOMY);
    first[0]?.words.push('changed by a caller');
    first.pop();
    const again = topicsOf(text, BUILT_IN_TAXONOMY);
    expect(again.map((t) => t.name)).toEqual(['billing', 'bugs']);
    expect(again.flatMap((t) => t.words)).not.toContain('changed by a caller');
    // Another taxonomy is another answer.
    const custom = taxonomyWith({ twice: { words: ['twice'] } });
    expect(topicsOf(text, custom).map((t) => t.name)).toContain('twice');
  });

  it("looks each word up in its own taxonomy's rules", () => {
    const shipping = compileTaxonomy([{ name: 'shipping', weight: 0, words: ['ship*'] }]);
    const exact = compileTaxonomy([{ name: 'exact', weight: 0, words: ['=shipping'] }]);
    expect(topicsOf('The shipment is late', shipping)).toEqual([{ name: 'shipping', words: ['shipment'] }]);
    // The same word under another taxonomy: what its rules say, not what the first one's did.
    expect(topicsOf('The shipment is late', exact)).toEqual([]);
    expect(topicsOf('Free shipping', exact)).toEqual([{ name: 'exact', words: ['shipping'] }]);
  });
});
