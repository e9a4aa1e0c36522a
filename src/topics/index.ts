export {
  BUILT_IN_TAXONOMY,
  BUILT_IN_TOPIC_NAMES,
  BUILT_IN_TOPICS,
  type BuiltInTopicName,
} from './builtin.js';
export { type BurstReview, type BurstSummary, type SharedTopic, summarizeBurst } from './burst.js';
export { compileTaxonomy, type Taxonomy, type TopicDefinition, TopicRuleError } from './compile.js';
export {
  type CustomTopic,
  type CustomTopicProblem,
  customTopicProblems,
  definitionsWith,
  MAX_TOPIC_WEIGHT,
  TOPIC_NAME,
  taxonomyWith,
} from './custom.js';
export { type ReviewTopic, topicsOf } from './match.js';
export {
  DEFAULT_PHRASE_RULE,
  type EmergingPhrase,
  emergingPhrases,
  type PhraseCounts,
  type PhraseQuote,
  type PhraseReview,
  type PhraseRule,
  phraseCounts,
  phrasesOf,
} from './phrases.js';
export { reviewTopicsOf, type TopicSource, topicNamesOf } from './review-topics.js';
export {
  DEFAULT_SPIKE_RULE,
  detectSpikes,
  type FiredSpike,
  type SpikeBaseline,
  type SpikeInput,
  type SpikeReview,
  type SpikeRule,
  spikeBaseline,
  type TopicSpike,
} from './spike.js';
export {
  type DatedReview,
  DEFAULT_TREND_RULE,
  describeTrend,
  type PeriodCount,
  type Trend,
  type TrendRule,
  topicTrend,
  topicWeeks,
  weekOf,
} from './trends.js';
