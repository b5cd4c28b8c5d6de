import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from '@jest/globals';
import {
  cachedSynthesizedWorkflows,
  ensureSynthesis,
  sourcesHash,
  synthesisPath,
} from '../../../local/synthesis/synthesis-cache.js';

const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A stand-in repository with one file in each kind of source the hash covers. */
function sourceTree(): string {
  const root = mkdtempSync(join(tmpdir(), 'synthesis-cache-test-'));
  roots.push(root);
  const files: Record<string, string> = {
    'workflows/optimization-workflow.ts': 'export const timeout = 60;\n',
    'infra/stacks/stack.ts': 'export const stack = 1;\n',
    'cdk.json': '{"app":"npx tsx infra/app.ts"}\n',
    'README.md': '# Read me\n',
  };
  for (const [path, text] of Object.entries(files)) write(root, path, text);
  return root;
}

function write(root: string, path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

/** A file as the writer leaves it: the synthesized workflows' JSON. */
const machine = (name: string) => ({
  logicalId: `${name}StateMachine`,
  name,
  definition: { StartAt: 'Done', States: { Done: { Type: 'Succeed' } } },
  resources: {},
});
const SYNTHESIS = {
  template: { Resources: {} },
  optimization: machine('Optimization'),
  asyncInference: machine('AsyncInference'),
  failedRunCleanUp: machine('FailedRunCleanUp'),
  asyncWaitTimeoutSeconds: 600,
};

describe('sourcesHash', () => {
  it('changes when a workflow source changes', () => {
    // Prepare
    const root = sourceTree();
    const before = sourcesHash(root);

    // Act
    write(root, 'workflows/optimization-workflow.ts', 'export const timeout = 90;\n');

    // Assert
    expect(sourcesHash(root)).not.toBe(before);
  });

  it('changes when a source file is added, and again when it is removed', () => {
    // Prepare
    const root = sourceTree();
    const before = sourcesHash(root);

    // Act
    write(root, 'core/new-step.ts', 'export {};\n');
    const added = sourcesHash(root);
    rmSync(join(root, 'core/new-step.ts'));
    const removed = sourcesHash(root);

    // Assert
    expect([added === before, removed === before]).toEqual([false, true]);
  });

  it('changes when the CDK config changes', () => {
    // Prepare
    const root = sourceTree();
    const before = sourcesHash(root);

    // Act
    write(root, 'cdk.json', '{"app":"npx tsx infra/app.ts","context":{"k":"v"}}\n');

    // Assert
    expect(sourcesHash(root)).not.toBe(before);
  });

  it('stays the same when only a file outside the sources changes', () => {
    // Prepare
    const root = sourceTree();
    const before = sourcesHash(root);

    // Act
    write(root, 'README.md', '# Read me, edited\n');

    // Assert
    expect(sourcesHash(root)).toBe(before);
  });

  it('names another cache file once a source changes, so a stale synthesis is never read', () => {
    // Prepare
    const root = sourceTree();
    const cacheDir = join(root, '.cache', 'synth');
    const before = synthesisPath(root, cacheDir);

    // Act
    write(root, 'infra/stacks/stack.ts', 'export const stack = 2;\n');

    // Assert
    expect(synthesisPath(root, cacheDir)).toBe(join(cacheDir, `workflows-${sourcesHash(root)}.json`));
    expect(synthesisPath(root, cacheDir)).not.toBe(before);
  });
});

describe('cachedSynthesizedWorkflows', () => {
  it('reads a cached synthesis without synthesizing', () => {
    // Prepare
    const root = sourceTree();
    const path = join(root, '.cache', 'synth', 'workflows-0123456789abcdef.json');
    write(root, '.cache/synth/workflows-0123456789abcdef.json', JSON.stringify(SYNTHESIS));
    const calls: string[] = [];

    // Act
    const read = cachedSynthesizedWorkflows({
      path,
      onMiss: () => calls.push('miss'),
      write: (target) => calls.push(`write ${target}`),
    });

    // Assert
    expect({ read, calls }).toEqual({ read: { workflows: SYNTHESIS, path, cached: true }, calls: [] });
  });

  it('synthesizes on a miss, says so first, then reads what was written', () => {
    // Prepare
    const root = sourceTree();
    const path = join(root, '.cache', 'synth', 'workflows-0123456789abcdef.json');
    const calls: string[] = [];

    // Act
    const read = cachedSynthesizedWorkflows({
      path,
      onMiss: () => calls.push('miss'),
      write: (target) => {
        calls.push(`write ${target}`);
        writeFileSync(target, JSON.stringify(SYNTHESIS));
      },
    });

    // Assert
    expect({ read, calls }).toEqual({
      read: { workflows: SYNTHESIS, path, cached: false },
      calls: ['miss', `write ${path}`],
    });
  });
});

describe('ensureSynthesis', () => {
  it("removes earlier sources' syntheses and old partial files, keeping a partial still being written", () => {
    // Prepare
    const root = sourceTree();
    const cacheDir = join(root, '.cache', 'synth');
    write(root, '.cache/synth/workflows-aaaaaaaaaaaaaaaa.json', '{}');
    write(root, '.cache/synth/workflows-bbbbbbbbbbbbbbbb.json.77.partial', '{');
    write(root, '.cache/synth/workflows-cccccccccccccccc.json.78.partial', '{');
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(join(cacheDir, 'workflows-cccccccccccccccc.json.78.partial'), hourAgo, hourAgo);
    const path = join(cacheDir, 'workflows-dddddddddddddddd.json');

    // Act
    const wrote = ensureSynthesis(path, (target) => {
      writeFileSync(target, '{}');
    });

    // Assert
    expect({ wrote, files: readdirSync(cacheDir).sort() }).toEqual({
      wrote: true,
      files: ['workflows-bbbbbbbbbbbbbbbb.json.77.partial', 'workflows-dddddddddddddddd.json'],
    });
  });
});

describe('the local CLIs', () => {
  it('load no aws-cdk-lib module when they start: a cached synthesis needs none', () => {
    // Prepare
    const script = [
      "import { createRequire } from 'node:module';",
      "await import('./local/cli/main.ts');",
      "await import('./local/cli/async/main.ts');",
      'const loaded = Object.keys(createRequire(import.meta.url).cache);',
      "process.stdout.write(JSON.stringify(loaded.filter((file) => file.includes('/aws-cdk-lib/'))));",
    ].join('\n');

    // Act
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    });

    // Assert
    expect({ status: child.status, stderr: child.stderr, loaded: child.stdout }).toEqual({
      status: 0,
      stderr: '',
      loaded: '[]',
    });
  });
});
