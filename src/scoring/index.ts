export { compileWords, matchWords } from './keywords.js';
export { isLowRated, PRIORITIES, type Priority, type Severity } from './priority.js';
export {
  DEFAULT_SCORING_RULES,
  GROUP_TOPICS,
  type KeywordGroup,
  MAX_GROUP_WEIGHT,
  mergeScoringRules,
  type ScoringOverrides,
  type ScoringPriorities,
  type ScoringProblem,
  type ScoringRules,
  scoringOverridesProblems,
  topicNameOfGroup,
  topicsOfOverrides,
} from './rules.js';
export {
  DETAILED_REVIEW,
  LONG_TIME_USER,
  priorityOf,
  RATING_POINTS,
  RERATED_DOWN_POINTS,
  type ScoreInput,
  scoreReview,
} from './severity.js';
export { describeTenure, parseTimeUsingApp } from './tenure.js';
