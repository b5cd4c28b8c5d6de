/**
 * The floor plan of the code, as one table: each room (a folder) and the rooms it may import,
 * value and type imports alike. `test/architecture.test.ts` holds every import to it, and the
 * README's architecture section is drawn from it (`roomsSection`), so the two cannot drift.
 */

const CORE_FLOOR = ['core/contracts'] as const;
const CORE_LIBRARIES = [...CORE_FLOOR, 'core/catalog', 'core/load-test', 'core/serving'] as const;
const CORE_HELPERS = [...CORE_LIBRARIES, 'core/ports', 'core/deployment'] as const;
const CORE_FEATURES = [...CORE_HELPERS, 'core/planning', 'core/report', 'core/async'] as const;
const CORE = [...CORE_FEATURES, 'core/run-status'] as const;
export const CORE_STEPS = ['core/steps/optimization', 'core/steps/async'] as const;
const CORE_WITH_STEPS = [...CORE, ...CORE_STEPS, 'core/operations'] as const;
const LOCAL_LEAVES = ['local/example-model', 'local/model-server', 'local/compiler', 'local/runner'] as const;

/** Room → the rooms it may import. Imports inside a room are free. */
export const FLOOR_PLAN: Readonly<Record<string, readonly string[]>> = {
  'core/contracts': [],
  'core/catalog': [...CORE_FLOOR],
  'core/load-test': [...CORE_FLOOR, 'core/catalog'],
  'core/serving': [...CORE_FLOOR, 'core/catalog', 'core/load-test'],
  // The output-quality guard's arithmetic: answers against the reference's, by the input's rule.
  'core/quality': [...CORE_FLOOR],
  'core/ports': [...CORE_LIBRARIES],
  'core/deployment': [...CORE_LIBRARIES, 'core/ports'],
  'core/planning': [...CORE_HELPERS],
  'core/report': [...CORE_HELPERS],
  'core/async': [...CORE_HELPERS, 'core/report'],
  'core/run-status': [...CORE_FEATURES],
  // "Record candidate answers" and "Judge output quality" read answers and judge them by the rule.
  'core/steps/optimization': [...CORE, 'core/quality'],
  'core/steps/async': [...CORE],
  'core/operations': [...CORE],
  // An adapter implements the port its operation declares (the run summary's publisher, the
  // approval trigger's starter).
  'lambdas/adapters': [...CORE, 'core/operations'],
  lambdas: [...CORE_WITH_STEPS, 'lambdas/adapters'],
  workflows: [...CORE_FLOOR],
  'infra/nag': [],
  infra: [...CORE_FLOOR, 'infra/nag', 'infra/constructs', 'infra/stacks'],
  // The schedules' and the approval template's run inputs are checked at synth with the first
  // state's parse, whose rules consult the catalog (core/planning: no AWS SDK, no I/O of its own).
  'infra/constructs': [...CORE_FLOOR, 'core/planning', 'infra/nag', 'workflows', 'lambdas'],
  'infra/stacks': [...CORE_FLOOR, 'infra/nag', 'infra/constructs', 'workflows', 'lambdas'],
  // The CDK entry point finds the repository's CLI from the paths the constructs bundle against.
  'infra/bin': [...CORE_FLOOR, 'infra', 'infra/constructs', 'infra/stacks'],
  'local/example-model': [...CORE],
  'local/model-server': [...CORE, 'local/example-model'],
  'local/compiler': [...CORE, 'local/model-server'],
  'local/runner': [...CORE],
  'local/platform': [...CORE, ...LOCAL_LEAVES],
  'local/adapters': [...CORE, ...LOCAL_LEAVES, 'local/platform'],
  'local/async': [...CORE, ...LOCAL_LEAVES, 'local/platform'],
  // The synthesized definitions and their cache: the stack `cdk synth` deploys, run by the runner.
  'local/synthesis': [...CORE_FLOOR, 'local/platform', 'local/runner', 'infra', 'infra/stacks'],
  // The composition roots: the step handlers over the local adapters, and the runs over them.
  'local/environment': [
    ...CORE_WITH_STEPS,
    ...LOCAL_LEAVES,
    'local/platform',
    'local/adapters',
    'local/async',
  ],
  'local/cli': [
    ...CORE_WITH_STEPS,
    ...LOCAL_LEAVES,
    'local/platform',
    'local/environment',
    'local/synthesis',
  ],
  // Only the entry points the npm scripts and the test set-up run.
  local: [...CORE, 'local/cli', 'local/synthesis'],
  // The client refuses an input before sending it with the first state's parse (core/planning).
  client: [...CORE_FLOOR, 'core/planning', 'core/run-status', 'core/report'],
  bench: [...CORE, 'lambdas/adapters', ...LOCAL_LEAVES, 'local/platform', 'local/adapters'],
};

/** What each room of the core holds, in the table's order: the README's architecture section. */
export const CORE_ROOM_PURPOSES: Readonly<Record<string, string>> = {
  'core/contracts':
    'the vocabulary: every document that crosses a state or a file, errors, names, tags, quotas',
  'core/catalog': 'facts: instance types, prices, serving images, Neo and container support',
  'core/load-test': 'the load generator: schedules, clocks, histograms, streamed tokens',
  'core/serving': 'sizing a target load, proving it, ramp tests, scaling policies',
  'core/quality': 'answers compared with the reference candidate’s, by the input’s rule',
  'core/ports': 'the interfaces the core calls; the adapters in lambdas/ and local/ implement them',
  'core/deployment': 'what gets deployed: SageMaker requests, archives, compilation jobs, clean-up lists',
  'core/planning': 'the first state’s checks, the planner, the history, state-size and run-time models',
  'core/report': 'the report: build, render (JSON, Markdown, HTML), charts, comparisons',
  'core/async': 'the async-inference workflow’s helpers: batches, notifications, estimates',
  'core/run-status': 'a run’s progress and results as the run API and the CLIs show them',
  'core/steps/optimization': 'one module per optimization step (never importing another)',
  'core/steps/async': 'one module per async-inference step',
  'core/operations': 'what runs beside the workflows: run API, triggers, janitor, failed-run clean-up',
};

/** The README's rooms table: each core room in the table's order, what it holds, what it may import. */
export function roomsSection(): string {
  const rows = Object.entries(CORE_ROOM_PURPOSES).map(([room, holds]) => {
    const imports = FLOOR_PLAN[room] ?? [];
    const below =
      imports.length === 0 ? 'nothing in the core' : imports.map((r) => r.replace('core/', '')).join(', ');
    return `| \`${room.replace('core/', '')}/\` | ${holds} | ${below} |`;
  });
  return ['| room | holds | may import |', '| --- | --- | --- |', ...rows].join('\n');
}
