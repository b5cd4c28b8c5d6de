/**
 * The floor plan, held by one table: each room (a folder) lists the rooms it may import, value and
 * type imports alike; no step module imports another, even in its own room. The core's rooms are
 * ordered from the vocabulary (`core/contracts`, which imports nothing in the core) up to the
 * steps; the AWS side (`lambdas/`) and the local side (`local/`) never meet; `bench/` imports no
 * test. What breaks the table today is written down below as allowances that may only shrink: a
 * new kind of import, or more of one, fails; fewer fails too, until the allowance is lowered, so
 * the list records the debt exactly.
 */
import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  importCircles,
  type ModuleImport,
  readModuleGraph,
  REPO_ROOT,
  roomOf,
  stepModules,
} from './support/module-graph.js';
import { CORE_ROOM_PURPOSES, CORE_STEPS, FLOOR_PLAN, roomsSection } from './support/floor-plan.js';

const ROOMS = [...Object.keys(FLOOR_PLAN), 'test'];
/** The step modules, read once: each is a room of its own. */
const steps = stepModules();

/**
 * Imports that break the table today, as `from -> to: count`. Each may only go down; a count that
 * went down must be lowered here, and a line at 0 removed.
 */
const ALLOWED_TODAY: Readonly<Record<string, number>> = {};

/** `from -> to` for each import that leaves its room for a room the table does not list. */
function violationsOf(edges: readonly ModuleImport[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { from, to } of edges) {
    const fromRoom = roomOf(from, ROOMS);
    const toRoom = roomOf(to, ROOMS);
    const stepToStep = steps.has(from) && steps.has(to) && from !== to;
    if (!stepToStep && (fromRoom === toRoom || (FLOOR_PLAN[fromRoom] ?? []).includes(toRoom))) continue;
    const key = `${fromRoom} -> ${toRoom}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** Each difference between what is found and what is allowed, as a sentence naming the fix. */
function allowanceProblems(
  found: ReadonlyMap<string, number>,
  allowed: Readonly<Record<string, number>>,
): string[] {
  const keys = [...new Set([...found.keys(), ...Object.keys(allowed)])].sort();
  return keys.flatMap((key) => {
    const count = found.get(key) ?? 0;
    const allowance = allowed[key];
    if (allowance === undefined) return [`${key}: ${count} import(s) the floor plan does not allow`];
    if (count > allowance) return [`${key}: ${count} import(s), more than the ${allowance} allowed today`];
    if (count < allowance) return [`${key}: ${count} import(s) now; lower its allowance from ${allowance}`];
    if (allowance === 0) return [`${key}: allowance 0; remove the line`];
    return [];
  });
}

/**
 * Rooms that have no `index.ts` yet: imports into them may name any module. Once a room has its
 * index, modules of other rooms import it only through that index. The list may only shrink.
 */
const ROOMS_WITHOUT_INDEX_TODAY: readonly string[] = [];

/**
 * Imports from other rooms that pass by a room's `index.ts`, counted per room (`room: count`),
 * for the rooms that have one. Each count may only go down.
 */
const INDEX_BYPASSES_TODAY: Readonly<Record<string, number>> = {};

/**
 * The rooms whose modules are each entered on their own, by the Lambda (or local handler) that runs
 * it: an index would put every step or operation into each of their bundles.
 */
const ENTERED_BY_MODULE: readonly string[] = [...CORE_STEPS, 'core/operations'];

/** The rooms of the table that are folders with an `index.ts`. */
function roomsWithIndex(): string[] {
  return Object.keys(FLOOR_PLAN).filter((room) => existsSync(join(REPO_ROOT, room, 'index.ts')));
}

/** For each room with an index, how many imports from other rooms name one of its modules instead. */
function indexBypasses(edges: readonly ModuleImport[], indexed: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { from, to } of edges) {
    const toRoom = roomOf(to, ROOMS);
    if (!indexed.includes(toRoom) || roomOf(from, ROOMS) === toRoom || to === `${toRoom}/index.ts`) continue;
    counts.set(toRoom, (counts.get(toRoom) ?? 0) + 1);
  }
  return counts;
}

/** Import circles allowed today, each as its sorted modules: none, and a new one fails. */
const CIRCLES_TODAY: readonly (readonly string[])[] = [];

describe('the floor plan', () => {
  const edges = readModuleGraph();

  it('holds every import, apart from today’s allowances, which may only shrink', () => {
    // Act
    const problems = allowanceProblems(violationsOf(edges), ALLOWED_TODAY);

    // Assert
    expect(problems).toEqual([]);
  });

  it('enters a room with an index.ts only through it, apart from today’s allowances', () => {
    // Act
    const problems = allowanceProblems(indexBypasses(edges, roomsWithIndex()), INDEX_BYPASSES_TODAY);

    // Assert
    expect(problems).toEqual([]);
  });

  it('has an index.ts in every room other rooms import, but those listed today, which may only shrink', () => {
    // Prepare
    const imported = new Set(
      edges
        .filter(({ from, to }) => roomOf(from, ROOMS) !== roomOf(to, ROOMS))
        .map(({ to }) => roomOf(to, ROOMS)),
    );

    // Act
    const withoutIndex = Object.keys(FLOOR_PLAN).filter(
      (room) => imported.has(room) && !ENTERED_BY_MODULE.includes(room) && !roomsWithIndex().includes(room),
    );

    // Assert
    expect(withoutIndex).toEqual(ROOMS_WITHOUT_INDEX_TODAY);
  });

  it('has no import circle beyond today’s, which may only shrink', () => {
    // Act
    const circles = importCircles(edges);

    // Assert
    expect(circles).toEqual(CIRCLES_TODAY);
  });

  it('puts every module in a room of the table, and every room of the table is a folder', () => {
    // Act
    const roomless = edges
      .flatMap(({ from, to }) => [from, to])
      .filter((path) => !ROOMS.includes(roomOf(path, ROOMS)));
    const missingFolders = Object.keys(FLOOR_PLAN).filter((room) => !existsSync(join(REPO_ROOT, room)));

    // Assert
    expect([...new Set(roomless)]).toEqual([]);
    expect(missingFolders).toEqual([]);
  });

  it('never lets lambdas/ and local/ meet', () => {
    // Act
    const meetings = edges.filter(
      ({ from, to }) =>
        (from.startsWith('lambdas/') && to.startsWith('local/')) ||
        (from.startsWith('local/') && to.startsWith('lambdas/')),
    );

    // Assert
    expect(meetings).toEqual([]);
  });
});

describe('the floor plan’s checks', () => {
  it('fails when a step module imports another step module', () => {
    // Prepare
    const edges = [
      {
        from: 'core/steps/optimization/recommend.ts',
        to: 'core/steps/optimization/deploy-candidate.ts',
      },
    ];

    // Act
    const found = violationsOf(edges);

    // Assert
    expect([...found]).toEqual([['core/steps/optimization -> core/steps/optimization', 1]]);
  });

  it('fails when the vocabulary floor imports a room above it', () => {
    // Prepare
    const edges = [{ from: 'core/contracts/optimization-state.ts', to: 'core/report/report.ts' }];

    // Act
    const problems = allowanceProblems(violationsOf(edges), {});

    // Assert
    expect(problems).toEqual(['core/contracts -> core/report: 1 import(s) the floor plan does not allow']);
  });

  it('fails when an allowance is not lowered after its imports went away', () => {
    // Act
    const problems = allowanceProblems(new Map([['bench -> test', 2]]), { 'bench -> test': 6 });

    // Assert
    expect(problems).toEqual(['bench -> test: 2 import(s) now; lower its allowance from 6']);
  });

  it('finds an import circle through a type-only import', () => {
    // Prepare
    const edges = [
      { from: 'core/a.ts', to: 'core/b.ts' },
      { from: 'core/b.ts', to: 'core/c.ts' },
      { from: 'core/c.ts', to: 'core/a.ts' },
      { from: 'core/c.ts', to: 'core/d.ts' },
    ];

    // Act
    const circles = importCircles(edges);

    // Assert
    expect(circles).toEqual([['core/a.ts', 'core/b.ts', 'core/c.ts']]);
  });
});

describe('the README’s architecture section', () => {
  /** A Markdown table's cells, row by row, whatever its padding (Prettier pads the README's). */
  const cellsOf = (table: string): string[][] =>
    table
      .split('\n')
      .filter((line) => line.startsWith('|') && !/^\|[\s|:-]+\|$/.test(line))
      .map((line) =>
        line
          .split('|')
          .slice(1, -1)
          .map((cell) => cell.trim()),
      );

  it('lists the core’s rooms in the floor plan’s order, each with what it holds and may import', () => {
    // Prepare
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const section = /<!-- rooms: test\/support\/floor-plan\.ts -->\n([\s\S]*?)\n<!-- \/rooms -->/.exec(
      readme,
    );

    // Assert
    expect(cellsOf(section?.[1] ?? '')).toEqual(cellsOf(roomsSection()));
  });

  it('describes every room of the core the floor plan has, in its order', () => {
    // Act
    const coreRooms = Object.keys(FLOOR_PLAN).filter((room) => room.startsWith('core/'));

    // Assert
    expect(Object.keys(CORE_ROOM_PURPOSES)).toEqual(coreRooms);
  });
});
