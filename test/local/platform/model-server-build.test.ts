import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import {
  buildModelServer,
  MODEL_SERVER_ENTRIES,
  modelServerBuild,
  modelServerSourcesHash,
} from '../../../local/platform/model-server-build.js';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'model-server-build-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function write(root: string, path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

/** A repository of the server's entries alone, each importing `imports` (module paths from the root). */
function tinyRepository(imports: Readonly<Record<string, string>> = {}): string {
  const root = join(dir, 'repo');
  for (const entry of MODEL_SERVER_ENTRIES) {
    const target = imports[entry];
    const importLine =
      target === undefined ? '' : `import '${relative(dirname(entry), target).replace(/\.ts$/, '.js')}';\n`;
    write(root, entry, `${importLine}export const name: string = '${entry}';\n`);
  }
  return root;
}

function filesUnder(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .sort();
}

describe('modelServerSourcesHash', () => {
  it('changes when a source file is edited, added or removed, and only then', () => {
    // Prepare
    const root = tinyRepository();
    const first = modelServerSourcesHash(root);

    // Act
    const again = modelServerSourcesHash(root);
    write(root, 'local/model-server/main.ts', 'export const name = 1;\n');
    const edited = modelServerSourcesHash(root);
    write(root, 'core/contracts/new.ts', 'export {};\n');
    const added = modelServerSourcesHash(root);
    rmSync(join(root, 'core/contracts/new.ts'));
    const removed = modelServerSourcesHash(root);
    write(root, 'lambdas/elsewhere.ts', 'export {};\n');
    const outside = modelServerSourcesHash(root);

    // Assert
    expect(again).toBe(first);
    expect(new Set([first, edited, added])).toHaveProperty('size', 3);
    expect(removed).toBe(edited);
    expect(outside).toBe(edited);
  });
});

describe('buildModelServer', () => {
  it('transpiles the modules the entries import, each at its path, as ES modules without types', () => {
    // Prepare
    const root = tinyRepository({ 'local/model-server/main.ts': 'core/contracts/errors.ts' });
    write(root, 'core/contracts/errors.ts', 'export type Unused = string;\n');
    write(root, 'core/contracts/unused.ts', 'export {};\n');
    const target = join(dir, 'build');

    // Act
    buildModelServer(target, root);

    // Assert
    expect(filesUnder(target)).toEqual(
      [
        'core/contracts/errors.js',
        ...MODEL_SERVER_ENTRIES.map((entry) => entry.replace(/\.ts$/, '.js')),
        'package.json',
      ].sort(),
    );
    expect(JSON.parse(readFileSync(join(target, 'package.json'), 'utf8'))).toEqual({ type: 'module' });
    const main = readFileSync(join(target, 'local/model-server/main.js'), 'utf8');
    expect(main).toContain('import "../../core/contracts/errors.js";');
    expect(main).toContain('const name = "local/model-server/main.ts";');
    expect(main).not.toContain(': string');
    expect(main).toContain('//# sourceMappingURL=data:application/json;base64,');
    expect(readdirSync(dir).sort()).toEqual(['build', 'repo']);
  });

  it('fails when the server imports a module outside the folders the build is keyed on, and leaves nothing', () => {
    // Prepare
    const root = tinyRepository({ 'local/model-server/inference-worker.ts': 'core/report/render.ts' });
    write(root, 'core/report/render.ts', 'export {};\n');
    const target = join(dir, 'build');

    // Act
    const building = () => {
      buildModelServer(target, root);
    };

    // Assert
    expect(building).toThrow(
      /^The model server imports core\/report\/render\.ts, outside the folders its build is keyed on \(local\/model-server, local\/platform, local\/example-model, core\/contracts\): expected its modules there/,
    );
    expect(readdirSync(dir)).toEqual(['repo']);
  });
});

describe('modelServerBuild', () => {
  it("builds the repository's model server once and names its entry and preload", () => {
    // Prepare
    const cacheDir = join(dir, 'cache');

    // Act
    const first = modelServerBuild(cacheDir);
    const builtAt = statSync(first.main).mtimeMs;
    const second = modelServerBuild(cacheDir);

    // Assert
    expect(second).toEqual(first);
    expect(statSync(second.main).mtimeMs).toBe(builtAt);
    expect(readdirSync(cacheDir)).toEqual([modelServerSourcesHash()]);
    expect(first.main).toBe(join(cacheDir, modelServerSourcesHash(), 'local/model-server/main.js'));
    expect(first.exitWithParentUrl).toBe(
      `file://${join(cacheDir, modelServerSourcesHash(), 'local/platform/exit-with-parent.js')}`,
    );
    expect(filesUnder(first.dir)).toEqual(
      expect.arrayContaining([
        'local/model-server/inference-worker.js',
        'local/model-server/generative/step-worker.js',
        'core/contracts/errors.js',
      ]),
    );
  });
});
