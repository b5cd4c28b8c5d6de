/**
 * The floor plan of the code, as one table: each room (a folder) and the rooms it may import,
 * value and type imports alike. `test/architecture.test.ts` holds every import to it, and the
 * README's architecture section is drawn from it (`roomsSection`), so the two cannot drift.
 */

const CORE_FLOOR = ['handlers/contracts'] as const;
const CORE_LIBRARIES = [...CORE_FLOOR, 'handlers/catalog', 'handlers/load-test', 'handlers/serving'] as const;
const CORE_HELPERS = [...CORE_LIBRARIES, 'handlers/ports', 'handlers/deployment'] as const;
const CORE_FEATURES = [...CORE_HELPERS, 'handlers/planning', 'handlers/report', 'handlers/async'] as const;
const CORE = [...CORE_FEATURES, 'handlers/run-status'] as const;
export const CORE_STEPS = ['handlers/steps/optimization', 'handlers/steps/async'] as const;
const CORE_WITH_STEPS = [...CORE, ...CORE_STEPS, 'handlers/operations'] as const;
const LOCAL_LEAVES = ['local/example-model', 'local/model-server', 'local/compiler', 'local/runner'] as const;

/** Room → the rooms it may import. Imports inside a room are free. */
export const FLOOR_PLAN: Readonly<Record<string, readonly string[]>> = {
  'handlers/contracts': [],
  'handlers/catalog': [...CORE_FLOOR],
  'handlers/load-test': [...CORE_FLOOR, 'handlers/catalog'],
  'handlers/serving': [...CORE_FLOOR, 'handlers/catalog', 'handlers/load-test'],
  // The output-quality guard's arithmetic: answers against the reference's, by the input's rule.
  'handlers/quality': [...CORE_FLOOR],
  'handlers/ports': [...CORE_LIBRARIES],
  'handlers/deployment': [...CORE_LIBRARIES, 'handlers/ports'],
  'handlers/planning': [...CORE_HELPERS],
  'handlers/report': [...CORE_HELPERS],
  'handlers/async': [...CORE_HELPERS, 'handlers/report'],
  'handlers/run-status': [...CORE_FEATURES],
  'handlers/steps/optimization': [...CORE],
  'handlers/steps/async': [...CORE],
  'handlers/operations': [...CORE],
  // An adapter implements the port its operation declares (the run summary's publisher, the
  // approval trigger's starter).
  'lambdas/adapters': [...CORE, 'handlers/operations'],
  lambdas: [...CORE_WITH_STEPS, 'lambdas/adapters'],
  workflows: [...CORE_FLOOR],
  'infra/nag': [],
  infra: [...CORE_FLOOR, 'infra/nag', 'infra/constructs', 'infra/stacks'],
  'infra/constructs': [...CORE_FLOOR, 'infra', 'infra/nag', 'workflows', 'lambdas'],
  'infra/stacks': [...CORE_FLOOR, 'infra', 'infra/nag', 'infra/constructs', 'workflows', 'lambdas'],
  'infra/bin': [...CORE_FLOOR, 'infra', 'infra/stacks'],
  'local/example-model': [...CORE],
  'local/model-server': [...CORE, 'local/example-model'],
  'local/compiler': [...CORE, 'local/model-server'],
  'local/runner': [...CORE],
  'local/platform': [...CORE, ...LOCAL_LEAVES],
  'local/adapters': [...CORE, ...LOCAL_LEAVES, 'local/platform'],
  'local/async': [...CORE_WITH_STEPS, ...LOCAL_LEAVES, 'local/platform'],
  'local/cli': [...CORE_WITH_STEPS, ...LOCAL_LEAVES, 'local/platform'],
  local: [
    ...CORE_WITH_STEPS,
    ...LOCAL_LEAVES,
    'local/platform',
    'local/adapters',
    'local/async',
    'local/cli',
    'workflows',
    'infra',
    'infra/stacks',
  ],
  client: [...CORE_FLOOR, 'handlers/run-status', 'handlers/report'],
  bench: [...CORE, 'lambdas/adapters', ...LOCAL_LEAVES, 'local/platform', 'local/adapters'],
};

/** What each room of the core holds, in the table's order: the README's architecture section. */
export const CORE_ROOM_PURPOSES: Readonly<Record<string, string>> = {
  'handlers/contracts':
    'the vocabulary: every document that crosses a state or a file, errors, names, tags, quotas',
  'handlers/catalog': 'facts: instance types, prices, serving images, Neo and container support',
  'handlers/load-test': 'the load generator: schedules, clocks, histograms, streamed tokens',
  'handlers/serving': 'sizing a target load, proving it, ramp tests, scaling policies',
  'handlers/quality': 'answers compared with the reference candidate’s, by the input’s rule',
  'handlers/ports': 'the interfaces the core calls; the adapters in lambdas/ and local/ implement them',
  'handlers/deployment': 'what gets deployed: SageMaker requests, archives, compilation jobs, clean-up lists',
  'handlers/planning': 'the first state’s checks, the planner, the history, state-size and run-time models',
  'handlers/report': 'the report: build, render (JSON, Markdown, HTML), charts, comparisons',
  'handlers/async': 'the async-inference workflow’s helpers: batches, notifications, estimates',
  'handlers/run-status': 'a run’s progress and results as the run API and the CLIs show them',
  'handlers/steps/optimization': 'one module per optimization step (never importing another)',
  'handlers/steps/async': 'one module per async-inference step',
  'handlers/operations': 'what runs beside the workflows: run API, triggers, janitor, failed-run clean-up',
};

/** The README's rooms table: each core room in the table's order, what it holds, what it may import. */
export function roomsSection(): string {
  const rows = Object.entries(CORE_ROOM_PURPOSES).map(([room, holds]) => {
    const imports = FLOOR_PLAN[room] ?? [];
    const below =
      imports.length === 0
        ? 'nothing in the core'
        : imports.map((r) => r.replace('handlers/', '')).join(', ');
    return `| \`${room.replace('handlers/', '')}/\` | ${holds} | ${below} |`;
  });
  return ['| room | holds | may import |', '| --- | --- | --- |', ...rows].join('\n');
}
