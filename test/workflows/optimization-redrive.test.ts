import { beforeAll, describe, expect, it } from '@jest/globals';
import { ErrorNames } from '../../core/contracts/errors.js';
import { resourceName } from '../../core/contracts/names.js';
import type { DeploymentState } from '../../core/contracts/optimization-state.js';
import type { JsonValue, RunnerEvent } from '../../local/runner/index.js';
import { synthesizedWorkflows, type SynthesizedWorkflows } from '../support/synthesized-workflows.js';
import { FakeSageMaker } from '../support/fake-sagemaker.js';
import { optimizationInput, runOptimization } from './run-optimization.js';

/**
 * A redriven optimization run (core/steps/optimization/redrive.ts), on the synthesized
 * definition run locally. The local engine cannot redrive, so each test stands for one: at the
 * point where the first attempt stopped, the failed-run clean-up deletes the candidate's resources
 * and `$$.Execution.RedriveCount` becomes 1, and the run goes on from there as a redriven iteration
 * would, with the state it had.
 */

let workflows: SynthesizedWorkflows;

beforeAll(() => {
  workflows = synthesizedWorkflows();
}, 120_000);

const NOTHING_LEFT = { endpoints: [], endpointConfigs: [], models: [] };

/** One candidate, one short step: the run's path, not its figures, is under test. */
const ONE_CANDIDATE = {
  compilation: { targets: [] },
  candidates: [{ id: 'cpu', instanceType: 'ml.c5.xlarge' }],
  loadPlan: { model: 'closed', steps: [1], warmupSeconds: 0, stepDurationSeconds: 0.1, stopAtPlateau: false },
};

/** The state a run had when it entered `stateName` (the first time). */
function stateEntering(events: readonly RunnerEvent[], stateName: string): JsonValue {
  const entered = events.find((event) => event.type === 'StateEntered' && event.stateName === stateName);
  if (entered?.type !== 'StateEntered') throw new Error(`The run never entered "${stateName}"`);
  return entered.input;
}

/** The stop, the failed-run clean-up and the redrive, at once: the candidate's resources go, the count rises. */
class Redrive {
  count = 0;
  constructor(
    private readonly sagemaker: FakeSageMaker,
    private readonly runId: string,
  ) {}

  happen(candidateId: string): void {
    void this.sagemaker.deleteEndpoint(resourceName(this.runId, 'endpoint', candidateId));
    void this.sagemaker.deleteEndpointConfig(resourceName(this.runId, 'endpoint-config', candidateId));
    void this.sagemaker.deleteModel(resourceName(this.runId, 'model', candidateId));
    this.count = 1;
  }
}

describe('optimization workflow: a redriven run (synthesized definition, run locally)', () => {
  it('fails a redrive that resumes "Run load workers" on a deleted endpoint, saying to start a new run, instead of judging the candidate', async () => {
    // Prepare: the first attempt stopped once the endpoint was in service, before the workers ran.
    const sagemaker = new FakeSageMaker();
    const redrive = new Redrive(sagemaker, 'redrive-workers');

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker,
      input: optimizationInput(ONE_CANDIDATE),
      runId: 'redrive-workers',
      redriveCount: () => redrive.count,
      wrap: (real) => ({
        'check-endpoint': async (payload, signal) => {
          const deployment = (await real['check-endpoint'](payload, signal)) as DeploymentState;
          if (deployment.status === 'IN_SERVICE') redrive.happen('cpu');
          return deployment;
        },
      }),
    });

    // Assert
    expect(run.result).toMatchObject({ status: 'FAILED', error: ErrorNames.runRedriven });
    const cause = run.result.status === 'FAILED' ? run.result.cause : '';
    expect(cause).toContain('Run load worker\\" was resumed by a redrive (redrive 1)');
    expect(cause).toContain('Start a new run with the same input');
    expect(run.statesEntered).toEqual(expect.arrayContaining(['Stop redriven candidate', 'Run failed']));
    expect(run.statesEntered).not.toContain('Aggregate load test');
    expect(run.statesEntered).not.toContain('Recommend');
    expect([...run.store.objects.keys()].filter((uri) => uri.endsWith('report.json'))).toEqual([]);
    expect(sagemaker.leftovers()).toEqual(NOTHING_LEFT);
  }, 60_000);

  it('fails a redrive that resumes "Wait for endpoint" on a deleted endpoint, without recording the candidate as failed', async () => {
    // Prepare: a first attempt, whose candidate state at "Wait for endpoint" the redrive resumes
    // with; its resources are gone by then, as the failed-run clean-up leaves a stopped run.
    const first = await runOptimization({
      workflows,
      sagemaker: new FakeSageMaker(),
      input: optimizationInput(ONE_CANDIDATE),
      runId: 'redrive-wait',
    });
    const sagemaker = new FakeSageMaker();

    // Act: the candidate's iteration, redriven from "Wait for endpoint".
    const run = await runOptimization({
      workflows,
      sagemaker,
      input: stateEntering(first.events, 'Wait for endpoint'),
      runId: 'redrive-wait',
      redriveCount: () => 1,
      resume: { within: 'Benchmark each candidate', at: 'Wait for endpoint' },
    });

    // Assert
    expect(run.result).toMatchObject({ status: 'FAILED', error: ErrorNames.runRedriven });
    expect(run.result.status === 'FAILED' ? run.result.cause : '').toContain(
      'Check endpoint\\" was resumed by a redrive (redrive 1)',
    );
    expect(run.statesEntered).toEqual(['Wait for endpoint', 'Check endpoint', 'Stop redriven candidate']);
    expect(sagemaker.calls).toEqual([]);
  }, 60_000);

  it('fails a redrive that resumes the run at "Prove the target?" after "Recommend", creating nothing more', async () => {
    // Prepare: a first attempt with a target to prove; the redrive resumes its run branch where
    // the proof starts, the candidates measured and ranked, their endpoints gone.
    const input = optimizationInput({
      ...ONE_CANDIDATE,
      loadPlan: {
        ...ONE_CANDIDATE.loadPlan,
        warmupSeconds: 0.5,
        stepDurationSeconds: 1,
        repeats: 1,
        kneeProbes: 0,
      },
      sla: { p95LatencyMs: 200, targetTps: 80 },
    });
    const first = await runOptimization({
      workflows,
      sagemaker: new FakeSageMaker(),
      input,
      runId: 'redrive-proof',
    });
    const sagemaker = new FakeSageMaker();

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker,
      input: stateEntering(first.events, 'Prove the target?'),
      runId: 'redrive-proof',
      redriveCount: () => 1,
      resume: { within: 'Optimize', at: 'Prove the target?' },
    });

    // Assert
    expect(run.result).toMatchObject({ status: 'FAILED', error: ErrorNames.runRedriven });
    expect(run.statesEntered).toEqual(
      expect.arrayContaining(['Deploy proof endpoint', 'Stop redriven proof']),
    );
    expect(run.statesEntered).not.toContain('Record failed proof');
    expect(sagemaker.calls).toEqual([]);
  }, 60_000);
});
