#!/usr/bin/env node
// The npm registry mirror of our build machines answers 404 for platform packages it does not carry
// (biome and msgpackr-extract binaries for macOS, Windows, musl…), so `npm install` leaves them out of
// package-lock.json and `npm ci` then refuses the lock as out of sync. This adds a lock entry, with the
// platform it is for, for every optional dependency that has none; npm ci skips those on other platforms.
// Run it after `npm install` changes the lock: `node scripts/complete-lockfile.mjs`.
import { readFileSync, writeFileSync } from 'node:fs';

const path = 'package-lock.json';
const lock = JSON.parse(readFileSync(path, 'utf8'));
const packages = lock.packages;

function platformOf(name) {
  const base = name.split('/').pop();
  const os = ['darwin', 'linux', 'win32', 'android', 'freebsd', 'openbsd', 'sunos', 'aix'].find((o) =>
    base.includes(o),
  );
  const cpu = ['arm64', 'x64', 'ia32', 'arm', 'ppc64', 's390x', 'riscv64', 'loong64'].find((c) =>
    new RegExp(`-${c}(-|$)`).test(base),
  );
  return { os, cpu, libc: base.includes('musl') ? 'musl' : undefined };
}

const added = [];
for (const [key, meta] of Object.entries(packages)) {
  for (const [dep, version] of Object.entries(meta.optionalDependencies ?? {})) {
    const nested = `${key ? `${key}/` : ''}node_modules/${dep}`;
    const top = `node_modules/${dep}`;
    if (packages[nested] || packages[top]) continue;
    const { os, cpu, libc } = platformOf(dep);
    packages[top] = {
      version,
      ...(meta.dev ? { dev: true } : {}),
      optional: true,
      ...(os ? { os: [os] } : {}),
      ...(cpu ? { cpu: [cpu] } : {}),
      ...(libc ? { libc: [libc] } : {}),
    };
    added.push(`${dep}@${version}`);
  }
}
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1)),
);
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(added.length ? `added ${added.join(', ')}` : 'package-lock.json already complete');
