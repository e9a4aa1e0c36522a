import { describe, expect, it } from 'vitest';
import { BUILT_IN_TAXONOMY, compileTaxonomy, topicsOf } from '../../src/topics/index.js';
import { wordHash } from '../../src/topics/text.js';

/**
 * The matcher reads a word's entry by its hash and a role by its prefixes (src/topics/lexicon.ts), in
 * arrays reused from review to review (src/topics/match.ts): what that must not change.
 */
describe('the lexicon', () => {
  it('never takes a word for another with the same hash', () => {
    // Two words of one length whose FNV-1a hashes are equal: found by trying six-letter words.
    expect(wordHash('glbppa')).toBe(wordHash('yaczfa'));
    const one = compileTaxonomy([{ name: 'one', weight: 0, words: ['=yaczfa'] }]);
    expect(topicsOf('glbppa', one)).toEqual([]);
    expect(topicsOf('Yaczfa!', one)).toEqual([{ name: 'one', words: ['Yaczfa'] }]);
    const both = compileTaxonomy([
      { name: 'one', weight: 0, words: ['=yaczfa'] },
      { name: 'other', weight: 0, words: ['=glbppa'] },
    ]);
    expect(topicsOf('glbppa and yaczfa', both)).toEqual([
      { name: 'one', words: ['yaczfa'] },
      { name: 'other', words: ['glbppa'] },
    ]);
  });

  it('matches on past the 65,535th review, where the marks of present slots start again', () => {
    // A two-word phrase is tried only when both its slots are marked present for this review; marks past
    // 0xffff would not fit their two bytes, and then no phrase would be tried again.
    const taxonomy = compileTaxonomy([{ name: 'sync', weight: 0, words: ['sync broke'] }]);
    let missed = 0;
    for (let i = 0; i < 70_000; i += 1) {
      if (topicsOf(i % 2 === 0 ? 'The sync broke' : 'All good', taxonomy).length !== 1 - (i % 2)) missed += 1;
    }
    expect(missed).toBe(0);
  });

  it('gives a word every prefix it starts with, and its own form', () => {
    const taxonomy = compileTaxonomy([
      { name: 'short', weight: 0, words: ['conn*'] },
      { name: 'long', weight: 0, words: ['connect* fail*'] },
      { name: 'exact', weight: 0, words: ['=connector'] },
    ]);
    expect(topicsOf('The connection failed', taxonomy)).toEqual([
      { name: 'short', words: ['connection'] },
      { name: 'long', words: ['connection failed'] },
    ]);
    expect(topicsOf('The connector failed', taxonomy)).toEqual([
      { name: 'short', words: ['connector'] },
      { name: 'long', words: ['connector failed'] },
      { name: 'exact', words: ['connector'] },
    ]);
    expect(topicsOf('Conned again', taxonomy)).toEqual([{ name: 'short', words: ['Conned'] }]);
    // The same words in a text that is not ASCII: looked up by their strings, the same answer.
    expect(topicsOf('The connector failed \u{1F621}', taxonomy)).toEqual(
      topicsOf('The connector failed', taxonomy),
    );
  });

  it('reads a review longer than its buffers, with more evidence than they first hold', () => {
    const filler = Array.from({ length: 150 }, (_, i) => `word${i}`).join(' ');
    const crashes = Array.from({ length: 40 }, (_, i) => `crash${i % 2 === 0 ? 'es' : 'ed'} on page ${i}.`);
    const text = `${filler} ${crashes.join(' ')} Then they charged me twice`;
    const found = topicsOf(text, BUILT_IN_TAXONOMY);
    expect(found.map((t) => t.name)).toEqual(['billing', 'bugs']);
    expect(found[0]?.words).toEqual(['charged me twice']);
    expect(found[1]?.words).toEqual(['crashes', 'crashed']);
    // The next, short review is read on its own: nothing of the long one's words or spans is left.
    expect(topicsOf('Refund please', BUILT_IN_TAXONOMY)).toEqual([{ name: 'billing', words: ['Refund'] }]);
  });

  it('puts together the evidence of a long review whose topics interleave, its vetoes where they stand', () => {
    const taxonomy = compileTaxonomy([
      { name: 'a', weight: 0, words: ['crash*'], unless: ['never crash*'] },
      { name: 'b', weight: 0, words: ['refund*'] },
    ]);
    const numbers = Array.from({ length: 40 }, (_, i) => i).filter((i) => i !== 7);
    const text = `${numbers.map((i) => `crash${i} refund${i}.`).join(' ')} It will never crash7 again. Refund7 too.`;
    expect(topicsOf(text, taxonomy)).toEqual([
      { name: 'a', words: numbers.map((i) => `crash${i}`) },
      { name: 'b', words: [...numbers.map((i) => `refund${i}`), 'Refund7'] },
    ]);
  });
});
