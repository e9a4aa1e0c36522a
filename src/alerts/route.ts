import { PRIORITIES, type Priority } from '../scoring/priority.js';

/** True when an alert of `priority` reaches a channel that takes `minPriority` and above. */
export function reaches(priority: Priority, minPriority: Priority): boolean {
  return PRIORITIES.indexOf(priority) <= PRIORITIES.indexOf(minPriority);
}

/** The channels of `notify` an alert of this priority goes to, in config order. */
export function routeAlert(
  priority: Priority,
  notify: readonly string[],
  channels: Readonly<Record<string, { minPriority: Priority }>>,
): string[] {
  return notify.filter((name) => {
    const channel = channels[name];
    return channel !== undefined && reaches(priority, channel.minPriority);
  });
}
