import type { Config } from '../config/index.js';
import { DEFAULT_SCORING_RULES, mergeScoringRules } from '../scoring/index.js';
import type { AlertPolicy } from './raise.js';

export function alertPolicyOf(config: Config): AlertPolicy {
  const { alerts } = config;
  return {
    maxRating: alerts.lowRating.maxRating,
    minDrop: alerts.ratingDrop.minDrop,
    displayedDrop: alerts.ratingDrop.displayed,
    dropRecovery: alerts.ratingDrop.recovery,
    dropRecoveryHoldMs: alerts.ratingDrop.recoveryHold,
    competitorDrops: alerts.ratingDrop.competitors,
    incident: { count: alerts.incident.count, windowMs: alerts.incident.window },
    groupAbove: alerts.groupAbove,
    scoring: mergeScoringRules(DEFAULT_SCORING_RULES, alerts.scoring, config.topics),
    channels: config.channels,
    apps: new Map(
      config.apps.map((app) => [app.handle, { name: app.name, notify: app.notify, role: app.role }]),
    ),
  };
}
