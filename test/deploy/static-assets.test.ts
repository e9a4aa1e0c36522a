// The inbox's stylesheet and script are files in src/web/static/, read beside the module that serves them
// (src/web/assets.ts, compiled to dist/web/assets.js). tsc copies no such file: the build must, or the
// built CLI and the Docker image would fail at start.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ASSETS } from '../../src/web/assets.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

describe('the inbox’s static files', () => {
  it('are every one served, hashed by content', () => {
    const files = readdirSync(join(ROOT, 'src/web/static')).sort();
    expect(files).toEqual(['inbox.css', 'inbox.js']);
    for (const file of files) {
      const [name, extension] = file.split('.');
      const asset = ASSETS.find((a) =>
        new RegExp(`^/assets/${name}\\.[0-9a-f]{12}\\.${extension}$`).test(a.path),
      );
      expect(asset?.body, file).toBe(read(`src/web/static/${file}`));
    }
  });

  it('are copied by `npm run build` to where the compiled module reads them', () => {
    const build = JSON.parse(read('tsconfig.build.json')) as {
      compilerOptions: { rootDir: string; outDir: string };
    };
    expect(build.compilerOptions).toMatchObject({ rootDir: 'src', outDir: 'dist' });
    const script = (JSON.parse(read('package.json')) as { scripts: { build: string } }).scripts.build;
    expect(script).toMatch(/^tsc -p tsconfig\.build\.json && /);
    expect(script).toContain("cpSync('src/web/static', 'dist/web/static', { recursive: true })");
    expect(read('src/web/assets.ts')).toContain('new URL(`./static/${file}`, import.meta.url)');
  });
});
