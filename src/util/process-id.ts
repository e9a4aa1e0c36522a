import { hostname } from 'node:os';

let id: string | undefined;

/**
 * This process as `<hostname>:<pid>`, for the store to record which process polled an app last
 * (`apps.last_poll_by`): with several `reviewwatch start` processes on one store, `status` says which one
 * is doing the work, and a dead one's id stops appearing. Read once: neither changes while we run.
 */
export function processId(): string {
  id ??= `${hostname()}:${process.pid}`;
  return id;
}
