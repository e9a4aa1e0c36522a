/**
 * Emerging complaints: phrases of one to three words that are new or rising in an app's low reviews
 * against its own history, by Dunning's log-likelihood G², each from at least three reviews by three
 * reviewers, with quotes. They catch what the fixed topics cannot name: "klaviyo", "2.3 update",
 * "dark mode" (docs/topics.md, "Emerging phrases").
 */
import { logLikelihoodG2 } from './stats.js';
import { type Token, tokenize } from './text.js';

export interface PhraseReview {
  id: string;
  /** Who wrote it: three reviews by one angry merchant are not three voices. */
  reviewer: string;
  content: string;
}

/** How many reviews of a body of text hold each phrase (each review counted once). */
export interface PhraseCounts {
  documents: number;
  counts: Map<string, number>;
}

export interface PhraseQuote {
  reviewId: string;
  text: string;
}

export interface EmergingPhrase {
  phrase: string;
  reviews: number;
  reviewers: number;
  /** Reviews of the history that held it. */
  baselineReviews: number;
  /** Not once in the history. */
  isNew: boolean;
  g2: number;
  quotes: PhraseQuote[];
  reviewIds: string[];
}

export interface PhraseRule {
  minReviews: number;
  minReviewers: number;
  /** 10.83 is p < 0.001 for one degree of freedom. */
  minG2: number;
  maxPhrases: number;
  maxQuotes: number;
  /** A quote longer than this is cut at a word, with an ellipsis. */
  maxQuoteCharacters: number;
}

export const DEFAULT_PHRASE_RULE: PhraseRule = Object.freeze({
  minReviews: 3,
  minReviewers: 3,
  minG2: 10.83,
  maxPhrases: 10,
  maxQuotes: 3,
  maxQuoteCharacters: 160,
});

/**
 * Words that make no phrase on their own and may not start or end one: function words, the
 * boilerplate of every review in this marketplace ("app", "store", "stars", "shopify"), and the
 * generic verdicts that say how, not what ("disappointed", "avoid"): the stars already say that.
 */
const STOP_WORDS = new Set(
  `a about above after again against all also am an and any are as at be because been before being
  below between both but by can could did do does doing down during each even ever every few for from
  further get got had has have having he her here hers him his how i if in into is it its itself just
  let me more most my myself no nor not now of off on once only or other our ours out over own really
  same she should so some still such than that the their theirs them then there these they this those
  through to too under until up us very was we were what when where which while who whom why will with
  would you your yours yet im ive dont doesnt didnt cant wont isnt its it's i'm i've don't doesn't
  didn't can't won't isn't wasn't one two three lot lots much many well way thing things use used using
  app apps application store shop shopify review reviews star stars product products customer customers
  please thanks thank great good bad like love best worst time times day days week weeks month months
  year years back make made go going gone need needs want wanted try tried know think say said new
  work works worked working recommend highly totally absolutely definitely literally since ago
  happy unhappy disappointed disappointing frustrating frustrated avoid meh terrible awful horrible useless
  waste fine ok okay expected better worse nice annoying sad sadly fair honestly`.split(/\s+/),
);

const MAX_WORDS = 3;

function usable(token: string): boolean {
  if (token.length < 2 || STOP_WORDS.has(token)) return false;
  // A bare number is no phrase ("5", "2024"); a version is ("2.3").
  return !/^[$€£]?\d+$/.test(token);
}

/** The distinct phrases of a review: n-grams within a clause that neither start nor end with a stop word. */
export function phrasesOf(content: string): Set<string> {
  const tokens = tokenize(content);
  const phrases = new Set<string>();
  for (let i = 0; i < tokens.length; i += 1) {
    const first = tokens[i] as Token;
    if (!usable(first.norm)) continue;
    let phrase = first.norm;
    phrases.add(phrase);
    for (let n = 1; n < MAX_WORDS && i + n < tokens.length; n += 1) {
      const next = tokens[i + n] as Token;
      if (next.clause !== first.clause) break;
      phrase = `${phrase} ${next.norm}`;
      if (usable(next.norm)) phrases.add(phrase);
    }
  }
  return phrases;
}

/** Phrase counts of a body of reviews: the history an app's new reviews are compared with. */
export function phraseCounts(contents: Iterable<string>): PhraseCounts {
  const counts = new Map<string, number>();
  let documents = 0;
  for (const content of contents) {
    documents += 1;
    for (const phrase of phrasesOf(content)) counts.set(phrase, (counts.get(phrase) ?? 0) + 1);
  }
  return { documents, counts };
}

/** The sentence of `content` holding `phrase`, cut to `max` characters at a word. */
export function quoteOf(content: string, phrase: string, max: number): string {
  const sentences = content.split(/(?<=[.!?])\s+|\n+/).filter((s) => s.trim() !== '');
  const sentence = sentences.find((s) => [...phrasesOf(s)].includes(phrase)) ?? sentences[0] ?? content;
  const text = sentence.trim().replace(/\s+/g, ' ');
  if ([...text].length <= max) return text;
  const cut = [...text].slice(0, max - 1).join('');
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), 1))}…`;
}

interface Candidate {
  phrase: string;
  reviews: PhraseReview[];
  reviewers: number;
}

/** Phrases held by enough reviews from enough reviewers. */
export function frequentPhrases(reviews: readonly PhraseReview[], rule: PhraseRule): Candidate[] {
  const byPhrase = new Map<string, PhraseReview[]>();
  for (const review of reviews) {
    for (const phrase of phrasesOf(review.content)) {
      const list = byPhrase.get(phrase);
      if (list === undefined) byPhrase.set(phrase, [review]);
      else list.push(review);
    }
  }
  const candidates: Candidate[] = [];
  for (const [phrase, list] of byPhrase) {
    if (list.length < rule.minReviews) continue;
    const reviewers = new Set(list.map((r) => r.reviewer)).size;
    if (reviewers >= rule.minReviewers) candidates.push({ phrase, reviews: list, reviewers });
  }
  return candidates;
}

function contains(longer: string, shorter: string): boolean {
  return ` ${longer} `.includes(` ${shorter} `);
}

/**
 * One phrase per thing said: of "dark" and "dark mode" in the same reviews, "dark mode" stays; a longer
 * phrase held by under 70% of its shorter one's reviews goes instead. Input sorted best first.
 */
export function withoutOverlaps<T extends { phrase: string; reviews: number }>(sorted: readonly T[]): T[] {
  const dropped = new Set<T>();
  for (const a of sorted) {
    for (const b of sorted) {
      if (a === b || dropped.has(a) || dropped.has(b) || !contains(b.phrase, a.phrase)) continue;
      dropped.add(b.reviews >= 0.7 * a.reviews ? a : b);
    }
  }
  return sorted.filter((p) => !dropped.has(p));
}

export function quotesOf(reviews: readonly PhraseReview[], phrase: string, rule: PhraseRule): PhraseQuote[] {
  const quotes: PhraseQuote[] = [];
  const reviewers = new Set<string>();
  for (const review of reviews) {
    if (quotes.length >= rule.maxQuotes) break;
    if (reviewers.has(review.reviewer)) continue;
    reviewers.add(review.reviewer);
    quotes.push({ reviewId: review.id, text: quoteOf(review.content, phrase, rule.maxQuoteCharacters) });
  }
  return quotes;
}

/**
 * The phrases new or rising in `current` (an app's low reviews of the period) against `history` (its
 * low reviews before), best first. Rising means a larger share of reviews than in the history and a G²
 * of at least `minG2`.
 */
export function emergingPhrases(
  current: readonly PhraseReview[],
  history: PhraseCounts,
  rule: PhraseRule = DEFAULT_PHRASE_RULE,
): EmergingPhrase[] {
  const n1 = current.length;
  const found: EmergingPhrase[] = [];
  for (const candidate of frequentPhrases(current, rule)) {
    const a = candidate.reviews.length;
    const c = history.counts.get(candidate.phrase) ?? 0;
    if (history.documents > 0 && a / n1 <= c / history.documents) continue;
    const g2 = logLikelihoodG2(a, n1, c, history.documents);
    if (g2 < rule.minG2) continue;
    found.push({
      phrase: candidate.phrase,
      reviews: a,
      reviewers: candidate.reviewers,
      baselineReviews: c,
      isNew: c === 0,
      g2: Math.round(g2 * 10) / 10,
      quotes: quotesOf(candidate.reviews, candidate.phrase, rule),
      reviewIds: candidate.reviews.map((r) => r.id),
    });
  }
  found.sort((x, y) => y.g2 - x.g2 || y.reviews - x.reviews || x.phrase.localeCompare(y.phrase));
  return withoutOverlaps(found).slice(0, rule.maxPhrases);
}
