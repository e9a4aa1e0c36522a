// deploy/reviewwatch.service: the systemd unit of a host install (docs/deployment.md). Parsed and checked
// for the directives that matter; `systemd-analyze verify` runs on it where systemd's tools are installed.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const UNIT = join(ROOT, 'deploy/reviewwatch.service');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** Section → directive → values in order (a directive may repeat: Environment=, SystemCallFilter=). */
function parseUnit(text: string): Map<string, Map<string, string[]>> {
  const sections = new Map<string, Map<string, string[]>>();
  let current: Map<string, string[]> | undefined;
  for (const raw of text.replace(/\\\n/g, ' ').split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header?.[1]) {
      current = new Map();
      sections.set(header[1], current);
      continue;
    }
    const eq = line.indexOf('=');
    if (eq < 0 || current === undefined) throw new Error(`not a directive: ${line}`);
    const key = line.slice(0, eq).trim();
    current.set(key, [...(current.get(key) ?? []), line.slice(eq + 1).trim()]);
  }
  return sections;
}

const unit = parseUnit(read('deploy/reviewwatch.service'));
const service = unit.get('Service') ?? new Map<string, string[]>();
const one = (key: string) => service.get(key)?.at(-1);
const environment = new Map(
  (service.get('Environment') ?? []).flatMap((value) =>
    value
      .split(/\s+/)
      .map((pair) => pair.replace(/^"|"$/g, ''))
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)] as const),
  ),
);

/** systemd time spans: `40`, `40s`, `1min 30s`. */
function seconds(span: string): number {
  let total = 0;
  for (const [, amount, unit = 's'] of span.matchAll(/(\d+(?:\.\d+)?)\s*(ms|min|h|s)?/g))
    total += Number(amount) * ({ ms: 0.001, s: 1, min: 60, h: 3600 }[unit] ?? 1);
  return total;
}

describe('deploy/reviewwatch.service', () => {
  it('runs `reviewwatch start` from /opt/reviewwatch as an unprivileged user', () => {
    expect(one('User')).toBe('reviewwatch');
    expect(one('Group') ?? 'reviewwatch').toBe('reviewwatch');
    expect(one('WorkingDirectory')).toBe('/opt/reviewwatch');
    const [node, ...args] = (one('ExecStart') ?? '').split(/\s+/);
    expect(posix.isAbsolute(node ?? ''), 'an absolute path to node').toBe(true);
    expect(posix.basename(node ?? '')).toBe('node');
    const pkg = JSON.parse(read('package.json')) as { bin: Record<string, string> };
    expect(args).toEqual([pkg.bin.reviewwatch, 'start']);
    expect(one('Type') ?? 'simple').toBe('simple');
  });

  it('takes secrets from an environment file, and keeps the database in its state directory', () => {
    expect(one('EnvironmentFile')).toBe('/etc/reviewwatch/env');
    expect(environment.get('NODE_ENV')).toBe('production');
    const database = environment.get('DATABASE_PATH') ?? '';
    expect(database.startsWith('/var/lib/reviewwatch/')).toBe(true);
    expect(one('StateDirectory')).toBe('reviewwatch');
    // With ProtectSystem=strict, the database's directory must be the one writable path.
    expect(service.get('ReadWritePaths')?.join(' ').split(/\s+/)).toContain(posix.dirname(database));
  });

  it('stops gracefully: SIGTERM, then time for the jobs in flight', () => {
    expect(one('KillSignal')).toBe('SIGTERM');
    const source = read('src/cli/commands/start.ts');
    const match = /STOP_GRACE_MS\s*=\s*([\d_]+)/.exec(source);
    const grace = match?.[1] ? Number(match[1].replaceAll('_', '')) / 1000 : 30;
    expect(seconds(one('TimeoutStopSec') ?? '90')).toBeGreaterThan(grace);
    expect(one('Restart')).toBe('on-failure');
    // A wrong config (exit code 2) is not retried in a loop.
    expect(one('RestartPreventExitStatus')?.split(/\s+/)).toContain('2');
  });

  it('is hardened', () => {
    expect(one('NoNewPrivileges')).toBe('yes');
    expect(one('ProtectSystem')).toBe('strict');
    for (const key of ['ProtectHome', 'PrivateTmp', 'PrivateDevices', 'RestrictSUIDSGID', 'LockPersonality'])
      expect(one(key), key).toBe('yes');
    expect(one('CapabilityBoundingSet')).toBe('');
    // V8's JIT needs writable executable memory: this would kill node at start.
    expect(one('MemoryDenyWriteExecute') ?? 'no').toBe('no');
    expect(service.has('DynamicUser')).toBe(false);
  });

  it('starts at boot, after the network', () => {
    expect(unit.get('Install')?.get('WantedBy')).toContain('multi-user.target');
    expect(unit.get('Unit')?.get('After')?.join(' ')).toContain('network-online.target');
  });

  const analyze = spawnSync('systemd-analyze', ['--version'], { stdio: 'ignore' });
  it.skipIf(analyze.error !== undefined || analyze.status !== 0)('passes systemd-analyze verify', () => {
    const result = spawnSync('systemd-analyze', ['verify', '--man=no', UNIT], { encoding: 'utf8' });
    // Complaints about this host (no /opt/reviewwatch, no such user) are not the unit's fault.
    const problems = `${result.stdout}${result.stderr}`
      .split('\n')
      .filter((line) => line.includes('reviewwatch.service'))
      .filter((line) => !/Failed to resolve user|is not executable|No such file or directory/.test(line));
    expect(problems).toEqual([]);
  });
});
