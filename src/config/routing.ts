import { plural } from '../util/plural.js';
import type { Config } from './schema.js';

/**
 * What a valid config routes nowhere, in words for `check-config` and `start`: an own app whose `notify`
 * names no channel (its alerts are kept for the inbox and sent to no one), and a channel nothing names.
 * Warnings, not errors: an inbox-only app is a choice, but an easy one to make by forgetting a line, and
 * then the first bad review of Tuesday reaches no one.
 */
export function routingWarnings(config: Config): string[] {
  const channels = Object.keys(config.channels);
  if (channels.length === 0) return [];
  const warnings: string[] = [];
  const silent = config.apps.filter((app) => app.role === 'own' && app.notify.length === 0);
  if (silent.length > 0) {
    const handles = silent.map((app) => app.handle);
    const shown =
      handles.length > 5
        ? `${handles.slice(0, 5).join(', ')} and ${handles.length - 5} more`
        : handles.join(', ');
    const [who, verb, their] =
      silent.length === 1
        ? [`own app ${shown}`, 'names', 'its']
        : [`${plural(silent.length, 'own app')} (${shown})`, 'name', 'their'];
    warnings.push(
      `${who} ${verb} no channel in \`notify\`: ${their} alerts go to the inbox only (add \`notify: [${channels[0]}]\` to send them)`,
    );
  }
  const named = new Set([
    ...config.apps.flatMap((app) => app.notify),
    ...config.categories.flatMap((category) => category.notify),
    ...config.digest.channels,
  ]);
  for (const channel of channels) {
    if (!named.has(channel))
      warnings.push(
        `channel "${channel}" is in no app's or category's \`notify\` and not in \`digest.channels\`: it receives nothing`,
      );
  }
  return warnings;
}
