/**
 * What a run of reviewwatch is for, and so what the composition root opens (docs/architecture.md,
 * "The composition roots"):
 *
 * - `service` (`start`, the demo): the schedules, every worker (poll, notify, digest, daily prune,
 *   reconciliation), the outbox sweep, upkeep after a Redis flush, and the ops server;
 * - `once` (`poll --once`, `reconcile`, benchmarks, most tests): the poll and notify workers on demand;
 * - `serve` (`reviewwatch serve`): the inbox and the ops server over the store and Redis, no worker.
 */
export type Mode = 'service' | 'once' | 'serve';
