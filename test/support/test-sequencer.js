// jest's order of the suites (jest.config.js `testSequencer`): jest's own when it has timings from an
// earlier run, the slowest first; on a fresh clone it has none and orders by file size, which put the
// whole-app synths and the end-to-end runs last, and the parallel pass took about 15 s longer waiting
// for them at the end. Without timings, the suites below go first.
import { relative } from 'node:path';
import TestSequencerModule from '@jest/test-sequencer';

const TestSequencer = TestSequencerModule.default;

/**
 * The suites above 5 s in a full `npm test` on three workers, in seconds. Only their
 * order matters; a suite renamed or gone is simply not found.
 */
const EXPECTED_SECONDS = {
  'test/workflows/optimization-proof.test.ts': 23,
  'test/e2e/local-run-outcomes.test.ts': 22,
  'test/conformance/workflow-conformance.test.ts': 21,
  'test/local/async/local-async-run.test.ts': 18,
  'test/workflows/optimization-workflow.test.ts': 16,
  'test/infra/optimizer-config.test.ts': 15,
  'test/workflows/optimization-ramp.test.ts': 14,
  'test/infra/serving-optimizer-app-context.test.ts': 13,
  'test/local/platform/local-model-host.test.ts': 12,
  'test/infra/serving-optimizer-app.test.ts': 11,
  'test/workflows/optimization-history.test.ts': 11,
  'test/local/async/async-robustness.test.ts': 9,
  'test/e2e/signals-through-npm.test.ts': 8,
  'test/infra/constructs/safety-net.test.ts': 7,
  'test/workflows/optimization-clean-up.test.ts': 7,
  'test/workflows/optimization-late-workers.test.ts': 7,
  'test/workflows/optimization-registry.test.ts': 7,
  'test/local/runner/run-state-machine.test.ts': 6,
  'test/local/platform/local-model-host-realtime-scaling.test.ts': 6,
  'test/core/report/render-deploy.test.ts': 5,
  'test/infra/constructs/async-inference.test.ts': 5,
  'test/infra/config-problems.test.ts': 5,
};

export default class SlowestFirstSequencer extends TestSequencer {
  sort(tests) {
    // jest's order: failed first, then by the last run's durations, or by file size without any.
    const ordered = super.sort(tests);
    if (ordered.some((test) => test.duration != null)) return ordered;
    const expected = (test) => EXPECTED_SECONDS[relative(test.context.config.rootDir, test.path)] ?? 0;
    // A stable sort: the suites not listed keep jest's order among themselves, after the listed ones.
    return [...ordered].sort((a, b) => expected(b) - expected(a));
  }
}
