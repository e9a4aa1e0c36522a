/** The topics a poll or a reconciliation reads each stored review for. */
import type { AlertPolicy } from '../alerts/raise.js';
import { BUILT_IN_TAXONOMY, type Taxonomy } from '../topics/index.js';

/**
 * The config's taxonomy (built-in topics, `topics:` and keyword groups, merged by the alert policy's
 * scoring rules), or the built-in one for a poll that raises no alerts (a test's, a baseline tool's).
 */
export function taxonomyOf(alerts: AlertPolicy | undefined): Taxonomy {
  return alerts?.scoring.topics ?? BUILT_IN_TAXONOMY;
}
