/**
 * What a channel type must be able to render: every alert kind, a group of review alerts, the weekly
 * digest and the test message. A channel type's renderers (render/channels.ts) are a value of
 * `ChannelRenderers<M>`, `M` being what its sender posts; one without a renderer for some alert kind, or
 * for the digest, does not compile.
 */
import type { Alert, AlertKind, AlertOf, Notification } from '../alerts/types.js';
import type { DigestData } from '../digest/types.js';
import type { DigestRenderOptions } from './digest/digest-wording.js';
import type { DataSource } from './wording.js';

export type GroupNotification = Extract<Notification, { kind: 'group' }>;

/** One renderer per alert kind, each given the alert of its kind. */
export type AlertRenderers<M> = { readonly [K in AlertKind]: (alert: AlertOf<K>, source: DataSource) => M };

export interface ChannelRenderers<M> {
  readonly alerts: AlertRenderers<M>;
  /** The review alerts of one app in one message (alerts/types.ts, Notification). */
  readonly group: (notification: GroupNotification, source: DataSource) => M;
  readonly digest: (data: DigestData, options: DigestRenderOptions) => M;
  /** What `reviewwatch notify test` sends: plainly a test, named for the channel. */
  readonly test: (channel: string, at: Date) => M;
}

/** A notification rendered by a channel type's renderers: the group's, or its alert kind's. */
export function renderWith<M>(
  renderers: ChannelRenderers<M>,
  notification: Notification,
  source: DataSource,
): M {
  if (notification.kind === 'group') return renderers.group(notification, source);
  return renderAlert(renderers.alerts, notification.alert, source);
}

/** An alert rendered by the renderer of its kind. */
export function renderAlert<M>(renderers: AlertRenderers<M>, alert: Alert, source: DataSource): M {
  // TypeScript cannot tie `alert.kind` to the parameter of the renderer it picks (a correlated union);
  // AlertRenderers' mapped type is what guarantees each renderer takes the alert of its own kind.
  const render = renderers[alert.kind] as (alert: Alert, source: DataSource) => M;
  return render(alert, source);
}
