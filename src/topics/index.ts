export {
  BUILT_IN_TAXONOMY,
  BUILT_IN_TOPIC_NAMES,
  BUILT_IN_TOPICS,
  type BuiltInTopicName,
} from './builtin.js';
export { compileTaxonomy, type Taxonomy, type TopicDefinition, TopicRuleError } from './compile.js';
export { type ReviewTopic, topicsOf } from './match.js';
