import { randomUUID } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

let id: string | undefined;
let scope: string | undefined;

/**
 * This process as `<hostname>:<pid>`, for the store to record which process polled an app last
 * (`apps.last_poll_by`): with several `reviewwatch start` processes on one store, `status` says which one
 * is doing the work, and a dead one's id stops appearing. Read once: neither changes while we run.
 */
export function processId(): string {
  id ??= `${hostname()}:${process.pid}`;
  return id;
}

/**
 * Where this process's pid means something: two processes with the same scope see the same processes
 * under the same pids, so one can ask whether the other's pid is alive. On Linux that is the kernel's
 * boot and the pid namespace (a container has its own, whatever its hostname); elsewhere the host. When
 * it cannot be told, a scope no other process shares: no pid is then judged from here.
 */
export function processScope(): string {
  scope ??= scopeOfThisProcess();
  return scope;
}

function scopeOfThisProcess(): string {
  if (process.platform !== 'linux') return `host:${hostname()}`;
  try {
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    return `linux:${boot}:${readlinkSync('/proc/self/ns/pid')}`;
  } catch {
    return `unknown:${randomUUID()}`;
  }
}

/**
 * Whether a process with this pid runs in this process's scope (signal 0 checks without sending). A
 * killed process whose parent has not reaped it yet (a zombie) still has its pid, but runs no more.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: it exists, under another user.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return !zombie(pid);
}

function zombie(pid: number): boolean {
  if (process.platform !== 'linux') return false;
  try {
    // "pid (comm) S …": the state follows the last ")", since the command name may hold one.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return /^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return false;
  }
}
