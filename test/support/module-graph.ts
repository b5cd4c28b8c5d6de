/**
 * The project's import graph, read once for the architecture test: every `.ts` module of the
 * source folders with the modules it imports by a relative specifier (static, `export … from`,
 * dynamic and type-only alike, as the TypeScript pre-processor finds them), and the room each
 * module belongs to.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { ASYNC_INFERENCE_STEPS } from '../../core/contracts/async-state.js';
import { OPTIMIZATION_STEPS } from '../../core/contracts/optimization-state.js';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The folders whose modules are rooms of the architecture (tests only as an import target). */
export const SOURCE_FOLDERS = ['core', 'lambdas', 'workflows', 'infra', 'local', 'client', 'bench'] as const;

export interface ModuleImport {
  /** Repository-relative `.ts` path of the importer. */
  readonly from: string;
  /** Repository-relative `.ts` path (or folder `index.ts`) of the imported module. */
  readonly to: string;
}

/** Every `.ts` file under `folder`, repository-relative, sorted. */
export function sourcesUnder(folder: string): string[] {
  return readdirSync(join(REPO_ROOT, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => relative(REPO_ROOT, join(entry.parentPath, entry.name)))
    .filter((path) => !path.split('/').includes('node_modules') && !path.split('/').includes('out'))
    .sort();
}

/** The relative imports of `source` (at repository path `path`), as repository-relative `.ts` paths. */
export function relativeImportsOf(path: string, source: string): string[] {
  return ts
    .preProcessFile(source, true, true)
    .importedFiles.map((file) => file.fileName)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => join(dirname(path), specifier).replace(/\.js$/, '.ts'));
}

/** Every relative import of every module of the source folders. */
export function readModuleGraph(): ModuleImport[] {
  return SOURCE_FOLDERS.flatMap((folder) => sourcesUnder(folder)).flatMap((from) =>
    relativeImportsOf(from, readFileSync(join(REPO_ROOT, from), 'utf8')).map((to) => ({ from, to })),
  );
}

/** The core's step modules: one per registered step of either workflow, in its workflow's room. */
export function stepModules(): ReadonlySet<string> {
  const candidates = [
    ...Object.values(OPTIMIZATION_STEPS).map((name) => `core/steps/optimization/${name}.ts`),
    ...Object.values(ASYNC_INFERENCE_STEPS).map((name) => `core/steps/async/${name}.ts`),
  ];
  const present = new Set(sourcesUnder('core'));
  return new Set(candidates.filter((path) => present.has(path)));
}

/**
 * The room of a module: the nearest folder the table names, so a sub-folder (below `bench/`, or a
 * room's own sub-folders such as `core/load-test/streaming`) belongs to its parent's room.
 */
export function roomOf(path: string, rooms: readonly string[]): string {
  let folder = dirname(path);
  while (folder !== '.' && !rooms.includes(folder)) folder = dirname(folder);
  return folder === '.' ? (path.split('/')[0] ?? path) : folder;
}

/**
 * The strongly connected components of more than one module (the import circles), each sorted,
 * by Tarjan's algorithm (iterative, so a long chain cannot overflow the stack).
 */
export function importCircles(edges: readonly ModuleImport[]): string[][] {
  const successors = new Map<string, string[]>();
  for (const { from, to } of edges) {
    successors.set(from, [...(successors.get(from) ?? []), to]);
    if (!successors.has(to)) successors.set(to, []);
  }
  const index = new Map<string, number>();
  const lowLink = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const circles: string[][] = [];
  let counter = 0;
  for (const root of successors.keys()) {
    if (index.has(root)) continue;
    const work: { node: string; next: number }[] = [{ node: root, next: 0 }];
    index.set(root, counter);
    lowLink.set(root, counter);
    counter += 1;
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      if (frame === undefined) break;
      const next = (successors.get(frame.node) ?? [])[frame.next];
      if (next !== undefined) {
        frame.next += 1;
        if (!index.has(next)) {
          index.set(next, counter);
          lowLink.set(next, counter);
          counter += 1;
          stack.push(next);
          onStack.add(next);
          work.push({ node: next, next: 0 });
        } else if (onStack.has(next)) {
          lowLink.set(frame.node, Math.min(lowLink.get(frame.node) ?? 0, index.get(next) ?? 0));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent !== undefined) {
        lowLink.set(parent.node, Math.min(lowLink.get(parent.node) ?? 0, lowLink.get(frame.node) ?? 0));
      }
      if (lowLink.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        for (;;) {
          const member = stack.pop();
          if (member === undefined) break;
          onStack.delete(member);
          component.push(member);
          if (member === frame.node) break;
        }
        if (component.length > 1) circles.push(component.sort());
      }
    }
  }
  return circles.sort((a, b) => (a[0] ?? '').localeCompare(b[0] ?? ''));
}
