// docker-compose.yml runs reviewwatch beside a persistent Redis. No Docker engine runs here: the file is
// parsed with `yaml` and checked against the conventions (docs/deployment.md) and the Dockerfile.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

type Mapping = Record<string, unknown>;

interface Service {
  image?: string;
  build?: string | { context?: string; dockerfile?: string };
  command?: string | string[];
  environment?: Mapping | string[];
  env_file?: string | Array<string | { path: string; required?: boolean }>;
  volumes?: Array<string | { type?: string; source?: string; target: string; read_only?: boolean }>;
  ports?: Array<string | number | { host_ip?: string; target: number; published?: string | number }>;
  depends_on?: string[] | Record<string, { condition?: string }>;
  healthcheck?: { test?: string | string[]; disable?: boolean };
  restart?: string;
  init?: boolean;
  stop_grace_period?: string;
}

const compose = parse(read('docker-compose.yml')) as { services: Record<string, Service>; volumes?: Mapping };
const services = compose.services;

/** The service running the image built from this repository. */
const appName = Object.keys(services).find((name) => {
  const build = services[name]?.build;
  return build === '.' || (typeof build === 'object' && (build.context ?? '.') === '.');
});
const app = services[appName ?? ''] as Service;
const redisName = Object.keys(services).find((name) => /^redis(:|$)/.test(services[name]?.image ?? ''));
const redis = services[redisName ?? ''] as Service;

function environmentOf(service: Service): Map<string, string> {
  const env = service.environment ?? {};
  if (Array.isArray(env))
    return new Map(env.map((entry) => [entry.split('=')[0] ?? '', entry.slice(entry.indexOf('=') + 1)]));
  return new Map(Object.entries(env).map(([key, value]) => [key, String(value)]));
}

function volumesOf(service: Service): Array<{ source: string; target: string; readOnly: boolean }> {
  return (service.volumes ?? []).map((volume) => {
    if (typeof volume !== 'string')
      return { source: volume.source ?? '', target: volume.target, readOnly: volume.read_only === true };
    const [source = '', target = '', mode = ''] = volume.split(':');
    return { source, target, readOnly: mode.split(',').includes('ro') };
  });
}

/** Compose durations: `40s`, `1m30s`, `500ms`. */
function seconds(duration: string): number {
  let total = 0;
  for (const [, amount, unit] of duration.matchAll(/(\d+(?:\.\d+)?)(ms|us|h|m|s)/g))
    total += Number(amount) * ({ h: 3600, m: 60, s: 1, ms: 0.001, us: 0.000001 }[unit ?? 's'] ?? 1);
  return total;
}

/** The ENV and VOLUME of the Dockerfile's last stage, read simply (the Dockerfile test parses it fully). */
const dockerfile = read('Dockerfile').replace(/\\\n/g, ' ');
const finalStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
const imageEnv = (name: string) => new RegExp(`\\b${name}=(\\S+)`).exec(finalStage)?.[1];

/** How long `reviewwatch start` lets jobs in flight finish on SIGTERM (docs/cli.md: 30 s). */
function stopGraceSeconds(): number {
  const source = read('src/cli/commands/start.ts');
  const match = /STOP_GRACE_MS\s*=\s*([\d_]+)/.exec(source);
  return match?.[1] ? Number(match[1].replaceAll('_', '')) / 1000 : 30;
}

describe('docker-compose.yml', () => {
  it('has a Redis service and the app built from this directory', () => {
    expect(redisName, 'a service from a redis image').toBeDefined();
    expect(redis.image).toMatch(/^redis:7(\b|$)/);
    expect(appName, 'a service with `build: .`').toBeDefined();
  });

  it('runs Redis with persistence on and no eviction, into a named volume', () => {
    const command = Array.isArray(redis.command) ? redis.command.join(' ') : (redis.command ?? '');
    expect(command).toMatch(/--appendonly\s+yes/);
    expect(command).toMatch(/--maxmemory-policy\s+noeviction/);
    const data = volumesOf(redis).find((volume) => volume.target === '/data');
    expect(data, 'a volume at /data').toBeDefined();
    expect(Object.keys(compose.volumes ?? {})).toContain(data?.source);
  });

  it('gives Redis a healthcheck the app waits for', () => {
    const test = redis.healthcheck?.test;
    expect((Array.isArray(test) ? test : [test]).join(' ')).toMatch(/redis-cli.*\bping\b/);
    const dependsOn = app.depends_on;
    expect(Array.isArray(dependsOn), 'the long form, with a condition').toBe(false);
    expect((dependsOn as Record<string, { condition?: string }>)[redisName ?? '']?.condition).toBe(
      'service_healthy',
    );
  });

  it('points REDIS_URL at the Redis service', () => {
    const url = new URL(environmentOf(app).get('REDIS_URL') ?? '');
    expect(url.protocol).toBe('redis:');
    expect(url.hostname).toBe(redisName);
    expect(url.port || '6379').toBe('6379');
  });

  it('takes secrets from .env, never from the compose file', () => {
    const envFiles = [app.env_file ?? []]
      .flat()
      .map((entry) => (typeof entry === 'string' ? entry : entry.path));
    expect(envFiles).toContain('.env');
    const env = environmentOf(app);
    for (const secret of ['CATALOG_API_KEY', 'SLACK_WEBHOOK_URL', 'SMTP_URL', 'REVIEWWATCH_ADMIN_TOKEN']) {
      const value = env.get(secret);
      // Set here at most by interpolation from the host's environment.
      if (value !== undefined) expect(value).toMatch(/^\$\{\w+(:?-[^}]*)?\}$/);
    }
  });

  it('mounts the config read-only where the image looks for it, and the data volume at the image VOLUME', () => {
    const volumes = volumesOf(app);
    const configPath = imageEnv('REVIEWWATCH_CONFIG') ?? '/app/config/reviewwatch.yaml';
    const config = volumes.find((volume) => volume.target === configPath);
    expect(config, `a mount at ${configPath}`).toBeDefined();
    expect(config?.readOnly).toBe(true);
    expect(config?.source).toBe('./config/reviewwatch.yaml');

    const databasePath = imageEnv('DATABASE_PATH') ?? '';
    const dataDir = databasePath.slice(0, databasePath.lastIndexOf('/'));
    expect(finalStage).toMatch(new RegExp(`VOLUME\\s+\\[?"?${dataDir}"?`));
    const data = volumes.find((volume) => volume.target === dataDir);
    expect(data, `a volume at ${dataDir}`).toBeDefined();
    expect(Object.keys(compose.volumes ?? {}), 'a named volume, not a host directory').toContain(
      data?.source,
    );
  });

  it('publishes the ops port on the loopback only', () => {
    const ports = app.ports ?? [];
    expect(ports.length).toBeGreaterThan(0);
    for (const port of ports) {
      if (typeof port === 'object') {
        expect(port.host_ip).toBe('127.0.0.1');
        expect(port.target).toBe(9464);
      } else {
        expect(String(port)).toMatch(/^127\.0\.0\.1:\d+:9464$/);
      }
    }
    // Redis is for the app only.
    expect(redis.ports ?? []).toEqual([]);
  });

  it('restarts, stops gracefully and reaps with an init', () => {
    for (const service of [app, redis]) expect(['unless-stopped', 'always']).toContain(service.restart);
    expect(app.init).toBe(true);
    expect(app.stop_grace_period, 'stop_grace_period').toBeDefined();
    expect(seconds(app.stop_grace_period ?? '')).toBeGreaterThan(stopGraceSeconds());
  });
});

describe('deploy/env.example', () => {
  const names = read('deploy/env.example')
    .split('\n')
    .map((line) => /^#?\s*([A-Z][A-Z0-9_]*)=/.exec(line.trim())?.[1])
    .filter((name): name is string => name !== undefined);

  it('lists the secrets and every variable the example config references', () => {
    const config = read('config/reviewwatch.example.yaml')
      .split('\n')
      .filter((line) => !line.trim().startsWith('#'))
      .join('\n');
    const referenced = [...config.matchAll(/\$\{(\w+)\}/g)].map((m) => m[1]);
    expect(referenced.length).toBeGreaterThan(0);
    for (const name of [...referenced, 'SMTP_URL', 'REVIEWWATCH_ADMIN_TOKEN']) expect(names).toContain(name);
  });

  it('leaves REDIS_URL and DATABASE_PATH to the compose file and the image', () => {
    const active = read('deploy/env.example')
      .split('\n')
      .filter((line) => /^[A-Z]/.test(line))
      .map((line) => line.split('=')[0]);
    expect(active).not.toContain('REDIS_URL');
    expect(active).not.toContain('DATABASE_PATH');
  });

  it('is documented, with every variable, in docs/deployment.md', () => {
    const docs = read('docs/deployment.md');
    for (const name of names) expect(docs, name).toContain(name);
  });
});
