import { Duration } from 'aws-cdk-lib';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';
import {
  ErrorNames,
  COMPILATION_CONCURRENCY,
  LOAD_WORKER_TIMEOUT_SECONDS,
  OPTIMIZATION_RUN_TIMEOUT_HOURS,
  CandidateStatuses,
  CompilationOutcomes,
  NO_RECOMMENDATION_OUTCOMES,
  type NoRecommendationCause,
  type OptimizationStepEvents,
  type OptimizationStepKey,
  OptimizationStates,
  type RecordProofEvent,
  type RecordRampEvent,
  type RunPlan,
} from '../core/contracts/index.js';
import {
  lambdaStep,
  type LambdaStepOptions,
  retryWhileBusy,
  retryWhileQuotaReached,
  standardStateMachine,
} from './lambda-step.js';
import type { StepFunction, StepFunctions } from './task-parameters.js';
import { successPathCleanUp } from './clean-up-loop.js';
import { guardedRun } from './guarded-run.js';
import { pollLoop } from './poll-loop.js';

/**
 * The step Lambdas, one per entry of OPTIMIZATION_STEPS (core/contracts/optimization-state.ts),
 * each typed with its event (OptimizationStepEvents), which its Task's payload is checked against:
 * a step missing here, one the registry does not list, or one without its event fails the type-check.
 */
export type OptimizationSteps = StepFunctions<OptimizationStepKey, OptimizationStepEvents>;

export interface OptimizationWorkflowProps {
  readonly steps: OptimizationSteps;
  /**
   * Upper bound of a whole run. The run input's time bounds (compilation.maxRuntimeSeconds) derive
   * from the default, so a shorter timeout can end a run while it compiles.
   * @default OPTIMIZATION_RUN_TIMEOUT_HOURS (24 hours)
   */
  readonly timeout?: Duration;
  /** @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
}

/**
 * The context object's redrive count, for the steps that refuse a redriven run
 * (core/steps/optimization/redrive.ts; "Accessing execution data from the Context object",
 * https://docs.aws.amazon.com/step-functions/latest/dg/input-output-contextobject.html).
 */
const REDRIVE_COUNT = { 'redriveCount.$': '$$.Execution.RedriveCount' } as const;

/** The clean-up policy that keeps the recommended endpoint after the run. */
const KEEP_RECOMMENDED: RunPlan['cleanupPolicy'] = 'keep-recommended';

/** Lambda timeout of the load worker (the Lambda maximum); the state's timeout sits just above. */
export const LOAD_WORKER_TIMEOUT = Duration.seconds(LOAD_WORKER_TIMEOUT_SECONDS);

/**
 * The optimization workflow (Standard): validate and plan → package the model → compile for each
 * target → benchmark each candidate (deploy, wait until in service, load test, delete) →
 * recommend → prove the target (with `sla.targetTps`: the chosen count deployed and load tested at
 * the target, then deleted) → clean up. Every path after planning ends in clean-up, with the error
 * kept.
 *
 * History budget: Standard executions stop at 25,000 events. Polls back off to 2 minutes, so an
 * endpoint that takes the full 45-minute deadline costs 24 Wait → Check → Choice rounds (9 events
 * each), and each load worker 7 more, in each segment of a load test longer than one worker
 * invocation; "Validate and plan" counts a plan's worst case from this shape
 * (core/contracts/execution-limits.ts, checked against a local run) and refuses it past the
 * budget, or past the execution timeout; it allows a late worker's load test re-run only when
 * re-running every candidate would still fit.
 */
export class OptimizationWorkflow extends Construct {
  readonly stateMachine: sfn.StateMachine;
  /** The execution timeout: the janitor never sweeps by age what a run this long may still use. */
  readonly timeout: Duration;
  private readonly steps: OptimizationSteps;

  constructor(scope: Construct, id: string, props: OptimizationWorkflowProps) {
    super(scope, id);
    this.steps = props.steps;
    this.timeout = props.timeout ?? Duration.hours(OPTIMIZATION_RUN_TIMEOUT_HOURS);

    const validate = this.invoke(OptimizationStates.validateAndPlan, this.steps.validateAndPlan, {
      payload: { 'runId.$': '$$.Execution.Name', 'input.$': '$' },
      // No ResultPath: the result ({ plan }) replaces the raw input, which the plan supersedes.
      resultSelector: { 'plan.$': '$' },
      timeout: Duration.minutes(2),
    });
    const definition = guardedRun(this, {
      states: OptimizationStates,
      validate,
      refusedErrors: [ErrorNames.invalidRunInput, ErrorNames.budgetExceeded],
      refusedComment: 'Invalid input or over budget: nothing was created',
      runName: OptimizationStates.optimize,
      run: this.packageModel()
        .next(this.compileTargets())
        .next(this.benchmarkCandidates())
        .next(this.interleavedRepeats())
        .next(this.judgeQuality())
        .next(this.finish()),
      cleanUp: this.steps.cleanUp,
      unsuccessful: {
        choiceName: OptimizationStates.recommendationMade,
        when: sfn.Condition.or(
          ...NO_RECOMMENDATION_OUTCOMES.map((outcome) =>
            sfn.Condition.stringEquals('$.summary.outcome', outcome),
          ),
        ),
        then: this.noRecommendation(),
      },
    });

    this.stateMachine = standardStateMachine(this, {
      comment: 'Benchmarks serving configurations of a model and recommends the cheapest under the SLA',
      definition,
      timeout: this.timeout,
      ...(props.logRetention === undefined ? {} : { logRetention: props.logRetention }),
    });
  }

  /** "Package model": the model.tar.gz every candidate and compilation job starts from. */
  private packageModel(): sfn.IChainable & sfn.INextable {
    return this.invoke(OptimizationStates.packageModel, this.steps.packageModel, {
      payload: { 'plan.$': '$.plan' },
      resultPath: '$.packagedModel',
      timeout: Duration.minutes(16),
    });
  }

  /**
   * "Compile model for each target": Neo/Neuron compilation jobs and SageMaker optimization jobs
   * (a plan item with `optimization`: the Start and Check steps call CreateOptimizationJob and
   * DescribeOptimizationJob for it); a failed target is an outcome, not a failure.
   */
  private compileTargets(): sfn.IChainable & sfn.INextable {
    const start = this.invoke(OptimizationStates.startCompilation, this.steps.startCompilation, {
      payload: { 'plan.$': '$.plan', 'compilation.$': '$.compilation', 'packagedModel.$': '$.packagedModel' },
      resultPath: '$.job',
      timeout: Duration.minutes(2),
    });
    const check = this.invoke(OptimizationStates.checkCompilation, this.steps.checkCompilation, {
      payload: '$.job',
      resultPath: '$.job',
      timeout: Duration.minutes(2),
    });
    const failed = new sfn.Pass(this, OptimizationStates.recordCompilationFailure, {
      parameters: {
        'target.$': '$.compilation.target',
        'jobName.$': '$.compilation.jobName',
        status: CompilationOutcomes.failed,
        'error.$': '$.error',
      },
    });
    for (const task of [start, check])
      task.addCatch(failed, { errors: ['States.ALL'], resultPath: '$.error' });

    const poll = pollLoop(this, {
      waitName: 'Wait for compilation',
      waitSecondsPath: '$.job.waitSeconds',
      check,
      choiceName: 'Compilation finished?',
      exit: {
        whilst: sfn.Condition.stringEquals('$.job.status', CompilationOutcomes.inProgress),
        then: new sfn.Pass(this, 'Compilation ended', { outputPath: '$.job' }),
      },
    });

    return new sfn.Map(this, OptimizationStates.compileEachTarget, {
      itemsPath: '$.plan.compilations',
      itemSelector: {
        'plan.$': '$.plan',
        'compilation.$': '$$.Map.Item.Value',
        'packagedModel.$': '$.packagedModel',
      },
      maxConcurrency: COMPILATION_CONCURRENCY,
      resultPath: '$.compilations',
    }).itemProcessor(start.next(poll.wait));
  }

  /** "Benchmark each candidate": deploy, wait until in service, load test, delete; failures recorded. */
  private benchmarkCandidates(): sfn.IChainable & sfn.INextable {
    const aggregate = this.invoke(OptimizationStates.aggregateLoadTest, this.steps.aggregateLoadTest, {
      payload: {
        'plan.$': '$.plan',
        'candidateId.$': '$.candidate.id',
        'workers.$': '$.workers',
        'deployment.$': '$.deployment',
      },
      resultPath: '$.outcome',
      timeout: Duration.minutes(5),
    });
    const deleteEndpoint = this.deleteCandidateTask(OptimizationStates.deleteCandidateEndpoint);
    const measured = new sfn.Pass(this, 'Candidate measured', { outputPath: '$.outcome' });
    const recordFailed = new sfn.Pass(this, OptimizationStates.recordFailedCandidate, {
      parameters: {
        'candidateId.$': '$.candidate.id',
        status: CandidateStatuses.failed,
        'error.$': '$.error',
      },
    });
    deleteEndpoint.addCatch(measured, { errors: ['States.ALL'], resultPath: '$.deleteError' });
    const skipped = new sfn.Pass(this, 'Record skipped candidate', {
      parameters: {
        'candidateId.$': '$.candidate.id',
        status: CandidateStatuses.skipped,
        'skipReason.$': '$.deployment.skipReason',
      },
    });
    // A late load worker (throttled, retried) makes a step's load smaller than it states: the load
    // test runs once more from a new shared start ("Check endpoint" sets it); "Aggregate load
    // test" reports a second late run as a measurement problem, never as an SLA miss.
    const rerun = new sfn.Pass(this, 'Re-run load test', {
      result: sfn.Result.fromBoolean(true),
      resultPath: '$.deployment.loadTestRerun',
    });
    // A load test longer than one worker invocation runs in segments: "Aggregate load test" gives
    // the next segment's index and shared start, and the workers run again from there.
    const nextSegment = new sfn.Pass(this, OptimizationStates.runNextLoadSegment, {
      inputPath: '$.outcome.nextSegment',
      resultPath: '$.deployment.loadSegment',
    });
    // After the stepped schedule, knee probes and repeats run as rounds (core/load-test/
    // rounds.ts): "Aggregate load test" gives the round's load and shared start, and the same
    // workers run it as one step.
    const nextRound = new sfn.Pass(this, OptimizationStates.runNextLoadRound, {
      inputPath: '$.outcome.nextRound',
      resultPath: '$.deployment.loadRound',
    });
    // Interleaved repeats: the endpoint stays up for "Repeat each candidate", which deletes it.
    const endOfTest = new sfn.Choice(this, OptimizationStates.endpointKeptForRepeats)
      .when(sfn.Condition.stringEquals('$.outcome.status', CandidateStatuses.repeatsPending), measured)
      .otherwise(deleteEndpoint);
    const deploy = this.measureEndpoint({
      names: {
        deploy: OptimizationStates.deployCandidate,
        wait: 'Wait for endpoint',
        check: OptimizationStates.checkEndpoint,
        inService: 'Endpoint in service?',
        loadWorkers: OptimizationStates.runLoadWorkers,
        loadWorker: OptimizationStates.runLoadWorker,
        deleteFailed: OptimizationStates.deleteFailedCandidateEndpoint,
        stopRedriven: OptimizationStates.stopRedrivenCandidate,
      },
      // A deployment the plan cannot serve is recorded as skipped, with nothing to wait for.
      afterDeploy: (wait) =>
        new sfn.Choice(this, 'Candidate skipped?')
          .when(sfn.Condition.stringEquals('$.deployment.status', CandidateStatuses.skipped), skipped)
          .otherwise(wait),
      judge: ({ check, loadTest }) => ({
        start: aggregate.next(
          new sfn.Choice(this, 'Load test measurable?')
            .when(sfn.Condition.stringEquals('$.outcome.status', CandidateStatuses.rerun), rerun.next(check))
            .when(
              sfn.Condition.stringEquals('$.outcome.status', CandidateStatuses.nextSegment),
              nextSegment.next(loadTest),
            )
            .when(
              sfn.Condition.stringEquals('$.outcome.status', CandidateStatuses.nextRound),
              nextRound.next(loadTest),
            )
            .otherwise(this.recordAnswers(endOfTest)),
        ),
        failing: [aggregate],
      }),
      recordFailed,
    });
    deleteEndpoint.next(measured);

    return new sfn.Map(this, OptimizationStates.benchmarkEachCandidate, {
      itemsPath: '$.plan.candidates',
      itemSelector: {
        'plan.$': '$.plan',
        'candidate.$': '$$.Map.Item.Value',
        'packagedModel.$': '$.packagedModel',
        'compilations.$': '$.compilations',
      },
      maxConcurrencyPath: '$.plan.maxConcurrentCandidates',
      resultPath: '$.candidates',
    }).itemProcessor(deploy);
  }

  /**
   * "Measure an endpoint", the workflow's central idea, as each candidate, the proof and the ramp
   * run it: deploy (waiting for quota, as other endpoints are deleted) → wait until in service →
   * `prepare` (the ramp's scaling policy) → the load workers → `judge` (the phase's own steps, to
   * their end). A redriven run stops at the deploy, the check, `prepare` and the workers (their
   * endpoint is gone); any other failure of those or of the judge's `failing` steps goes to
   * `failureTeardown` (if any), then deletes the endpoint ("Delete failed …", busy endpoints
   * waited out) and ends in `recordFailed`, also when that delete fails (run clean-up finds the
   * endpoint by the run's tag). Returns the deploy, the measurement's first state.
   */
  private measureEndpoint(props: {
    readonly names: {
      readonly deploy: string;
      readonly wait: string;
      readonly check: string;
      readonly inService: string;
      readonly loadWorkers: string;
      readonly loadWorker: string;
      readonly deleteFailed: string;
      readonly stopRedriven: string;
    };
    /** What follows the deploy before the wait (default: the wait). */
    readonly afterDeploy?: (wait: sfn.Wait) => sfn.IChainable;
    readonly prepare?: tasks.LambdaInvoke;
    readonly judge: (measurement: { readonly check: tasks.LambdaInvoke; readonly loadTest: sfn.Map }) => {
      readonly start: sfn.IChainable;
      readonly failing: readonly sfn.TaskStateBase[];
    };
    /** The steps before "Delete failed …" on the failure path, given that delete (default: none). */
    readonly failureTeardown?: (deleteFailed: tasks.LambdaInvoke) => sfn.Chain;
    readonly recordFailed: sfn.IChainable;
  }): tasks.LambdaInvoke {
    const { names } = props;
    const deploy = this.deployTask(names.deploy);
    // Endpoints beyond the account's quota of the type wait here for capacity.
    retryWhileQuotaReached(deploy);
    const check = this.checkTask(names.check);
    const loadTest = this.loadTest(names.loadWorkers, names.loadWorker);
    const judged = props.judge({ check, loadTest });
    loadTest.next(judged.start);

    const deleteFailed = this.deleteCandidateTask(names.deleteFailed);
    // A delete that still fails after its retries is left to run clean-up, which retries again.
    deleteFailed.addCatch(props.recordFailed, { errors: ['States.ALL'], resultPath: '$.deleteError' });
    deleteFailed.next(props.recordFailed);
    const failed = props.failureTeardown === undefined ? deleteFailed : props.failureTeardown(deleteFailed);
    const measuring = [deploy, check, ...(props.prepare === undefined ? [] : [props.prepare]), loadTest];
    this.failWhenRedriven(measuring, names.stopRedriven);
    for (const task of [...measuring, ...judged.failing]) {
      task.addCatch(failed, { errors: ['States.ALL'], resultPath: '$.error' });
    }

    const poll = pollLoop(this, {
      waitName: names.wait,
      waitSecondsPath: '$.deployment.waitSeconds',
      check,
      choiceName: names.inService,
      exit: {
        until: sfn.Condition.stringEquals('$.deployment.status', CandidateStatuses.inService),
        then: props.prepare === undefined ? loadTest : props.prepare.next(loadTest),
      },
    });
    deploy.next(props.afterDeploy === undefined ? poll.wait : props.afterDeploy(poll.wait));
    return deploy;
  }

  /**
   * "Quality guarded?": with the run input's `quality`, "Record candidate answers" sends the payload
   * set to the candidate's endpoint once its load test is over (the shared start of the workers is
   * past, so nothing is made late) and stores the answers under the run's prefix; then `next`. A
   * redrive stops the run here as at every step on the candidate's endpoint; any other failure is
   * kept in the outcome as `answersError` and the candidate goes on unjudged ("unknown"): its load
   * test stands, and its endpoint is deleted as usual.
   */
  private recordAnswers(next: sfn.IChainable): sfn.Choice {
    const record = this.invoke(OptimizationStates.recordCandidateAnswers, this.steps.qualityPass, {
      payload: {
        action: 'record',
        'plan.$': '$.plan',
        'candidateId.$': '$.candidate.id',
        'deployment.$': '$.deployment',
        ...REDRIVE_COUNT,
      },
      resultPath: sfn.JsonPath.DISCARD,
      timeout: Duration.minutes(16),
    });
    this.failWhenRedriven([record], OptimizationStates.stopRedrivenAnswers);
    record.addCatch(next, { errors: ['States.ALL'], resultPath: '$.outcome.answersError' });
    record.next(next);
    return new sfn.Choice(this, OptimizationStates.qualityGuarded)
      .when(sfn.Condition.isPresent('$.plan.quality'), record)
      .otherwise(next);
  }

  /**
   * "Output quality guarded?": with the run input's `quality`, once every candidate is measured,
   * "Judge output quality" compares each candidate's recorded answers with the reference's and puts
   * each verdict in its outcome (core/steps/optimization/quality-pass.ts); the reference's answers
   * are then recorded whichever candidate finished first. A judge that fails leaves the outcomes
   * without verdicts, which "Recommend" reads as unjudged.
   */
  private judgeQuality(): sfn.IChainable & sfn.INextable {
    const judged = new sfn.Pass(this, 'Quality judged');
    const judge = this.invoke(OptimizationStates.judgeOutputQuality, this.steps.qualityPass, {
      payload: { action: 'judge', 'plan.$': '$.plan', 'candidates.$': '$.candidates' },
      resultPath: '$.candidates',
      timeout: Duration.minutes(16),
    });
    judge.addCatch(judged, { errors: ['States.ALL'], resultPath: '$.qualityError' });
    judge.next(judged);
    return new sfn.Choice(this, OptimizationStates.outputQualityGuarded)
      .when(sfn.Condition.isPresent('$.plan.quality'), judge)
      .otherwise(judged)
      .afterwards();
  }

  /**
   * Interleaved repeats (core/load-test/rounds.ts `interleavesRepeats`): after "Benchmark each
   * candidate", rounds over every candidate ("Repeat each candidate", the candidates in turn as
   * `maxConcurrentCandidates` allows), each measuring once more the sustainable load of those whose
   * outcome is REPEATS_PENDING, on the endpoint kept for it: "Check endpoint before repeat" (still
   * in service; the workers' shared start), the workers, "Aggregate repeat" (the figures settled
   * again, and whether another repeat is due). The round count is the plan's `repeats` − 1; a
   * candidate whose repeats are over (MEASURED), or whose repeat failed ("Record failed repeat":
   * MEASURED, the figures so far kept, `repeatError`), has its endpoint deleted in that round. A
   * delete that still fails is left to "Clean up run resources", which finds the endpoint by the
   * run's tag, as any candidate's.
   */
  private interleavedRepeats(): sfn.IChainable & sfn.INextable {
    const done = new sfn.Pass(this, 'Repeats done');
    const counted = new sfn.Pass(this, 'Count repeat round', {
      parameters: { 'count.$': 'States.MathAdd($.repeatRound.count, 1)' },
      resultPath: '$.repeatRound',
    });
    const roundDue = new sfn.Choice(this, OptimizationStates.repeatRoundDue)
      .when(
        sfn.Condition.numberLessThanJsonPath('$.repeatRound.count', '$.plan.loadPlan.repeats'),
        this.repeatEachCandidate().next(counted),
      )
      .otherwise(done);
    counted.next(roundDue);
    const start = new sfn.Pass(this, 'Start repeat rounds', {
      result: sfn.Result.fromObject({ count: 1 }),
      resultPath: '$.repeatRound',
    });
    return new sfn.Choice(this, OptimizationStates.repeatsInterleaved)
      .when(
        sfn.Condition.and(
          sfn.Condition.isPresent('$.plan.loadPlan.interleaveRepeats'),
          sfn.Condition.booleanEquals('$.plan.loadPlan.interleaveRepeats', true),
        ),
        start.next(roundDue),
      )
      .otherwise(done)
      .afterwards();
  }

  /** One interleaved round: each candidate with a repeat due measured once more (see `interleavedRepeats`). */
  private repeatEachCandidate(): sfn.Map {
    const notDue = new sfn.Pass(this, 'Repeat not due', { outputPath: '$.outcome' });
    // The planned candidate (its resource names, for the delete) is the outcome's namesake in the plan.
    const prepare = new sfn.Pass(this, 'Prepare repeat', {
      parameters: {
        'plan.$': '$.plan',
        'outcome.$': '$.outcome',
        'candidate.$': 'States.ArrayGetItem($.plan.candidates, $.index)',
        'deployment.$': '$.outcome.keptDeployment',
      },
    });
    const check = this.checkTask(OptimizationStates.checkRepeatEndpoint);
    const setRound = new sfn.Pass(this, 'Set repeat round', {
      parameters: {
        'index.$': '$.outcome.pendingRepeat.index',
        'kind.$': '$.outcome.pendingRepeat.kind',
        'load.$': '$.outcome.pendingRepeat.load',
        'startEpochMs.$': '$.deployment.loadStartEpochMs',
      },
      resultPath: '$.deployment.loadRound',
    });
    const loadTest = this.loadTest(
      OptimizationStates.runRepeatLoadWorkers,
      OptimizationStates.runRepeatLoadWorker,
    );
    const aggregate = this.invoke(OptimizationStates.aggregateRepeat, this.steps.aggregateLoadTest, {
      payload: {
        'plan.$': '$.plan',
        'candidateId.$': '$.candidate.id',
        'workers.$': '$.workers',
        'deployment.$': '$.deployment',
      },
      resultPath: '$.outcome',
      timeout: Duration.minutes(5),
    });
    const deleteEndpoint = this.deleteCandidateTask(OptimizationStates.deleteRepeatedEndpoint);
    const repeated = new sfn.Pass(this, 'Candidate repeated', { outputPath: '$.outcome' });
    deleteEndpoint.addCatch(repeated, { errors: ['States.ALL'], resultPath: '$.deleteError' });
    deleteEndpoint.next(repeated);

    // A failed repeat ends the candidate's repeats: MEASURED with the figures so far and the error.
    const describeFailure = new sfn.Pass(this, 'Describe failed repeat', {
      parameters: { status: CandidateStatuses.measured, 'repeatError.$': '$.error' },
      resultPath: '$.repeatFailure',
    });
    // The delete after it reads `plan` and `candidate`; "Candidate repeated" the merged outcome.
    const recordFailed = new sfn.Pass(this, OptimizationStates.recordFailedRepeat, {
      parameters: {
        'plan.$': '$.plan',
        'candidate.$': '$.candidate',
        'outcome.$': 'States.JsonMerge($.outcome, $.repeatFailure, false)',
      },
    });
    describeFailure.next(recordFailed).next(deleteEndpoint);
    this.failWhenRedriven([check, loadTest], OptimizationStates.stopRedrivenRepeat);
    for (const task of [check, loadTest, aggregate]) {
      task.addCatch(describeFailure, { errors: ['States.ALL'], resultPath: '$.error' });
    }
    const leftService = new sfn.Pass(this, 'Endpoint left service', {
      parameters: {
        Error: 'EndpointNotInService',
        'Cause.$':
          "States.Format('Endpoint {} was {} before its repeat, not InService', $.deployment.endpointName, $.deployment.status)",
      },
      resultPath: '$.error',
    });
    leftService.next(describeFailure);
    const inService = new sfn.Choice(this, 'Endpoint still in service?')
      .when(
        sfn.Condition.stringEquals('$.deployment.status', CandidateStatuses.inService),
        setRound
          .next(loadTest)
          .next(aggregate)
          .next(
            new sfn.Choice(this, 'Repeats over?')
              .when(
                sfn.Condition.stringEquals('$.outcome.status', CandidateStatuses.repeatsPending),
                repeated,
              )
              .otherwise(deleteEndpoint),
          ),
      )
      .otherwise(leftService);
    const due = new sfn.Choice(this, 'Repeat due?')
      .when(
        sfn.Condition.stringEquals('$.outcome.status', CandidateStatuses.repeatsPending),
        prepare.next(check).next(inService),
      )
      .otherwise(notDue);

    return new sfn.Map(this, OptimizationStates.repeatEachCandidate, {
      itemsPath: '$.candidates',
      itemSelector: {
        'plan.$': '$.plan',
        'outcome.$': '$$.Map.Item.Value',
        'index.$': '$$.Map.Item.Index',
      },
      maxConcurrencyPath: '$.plan.maxConcurrentCandidates',
      resultPath: '$.candidates',
    }).itemProcessor(due);
  }

  /**
   * "Run load workers": every worker at once, from the shared start the endpoint check set (or,
   * for a later segment of a long load test, "Aggregate load test").
   */
  private loadTest(mapName: string, workerName: string): sfn.Map {
    const worker = this.invoke(workerName, this.steps.runLoadWorker, {
      payload: {
        'plan.$': '$.plan',
        'candidateId.$': '$.candidateId',
        'deployment.$': '$.deployment',
        'workerIndex.$': '$.workerIndex',
        ...REDRIVE_COUNT,
      },
      timeout: LOAD_WORKER_TIMEOUT.plus(Duration.minutes(1)),
      // A retried worker would start after the shared start and measure a different schedule.
      retryTransient: false,
    });
    return new sfn.Map(this, mapName, {
      itemsPath: '$.deployment.workerIndexes',
      itemSelector: {
        'plan.$': '$.plan',
        'candidateId.$': '$.candidate.id',
        'deployment.$': '$.deployment',
        'workerIndex.$': '$$.Map.Item.Value',
      },
      maxConcurrency: 0,
      resultPath: '$.workers',
    }).itemProcessor(worker);
  }

  /**
   * "Recommend" (the reports are written), then "Clean up run resources" (keeping the recommended
   * endpoint if asked), its account in the output's `cleanUp`. The run's result is made before
   * clean-up starts: a clean-up that fails is caught here, recorded, and the run still succeeds, so
   * it never reaches "Clean up after failure", which would delete a kept endpoint and lose the result.
   */
  private finish(): sfn.IChainable {
    const recommendStep = this.invoke(OptimizationStates.recommend, this.steps.recommend, {
      // The packaged model and compilations too: the report shows what each candidate was deployed with.
      payload: {
        'plan.$': '$.plan',
        'candidates.$': '$.candidates',
        'packagedModel.$': '$.packagedModel',
        'compilations.$': '$.compilations',
      },
      resultPath: '$.summary',
      timeout: Duration.minutes(5),
    });
    const cleanUp = successPathCleanUp(this, {
      name: OptimizationStates.cleanUpRunResources,
      doneName: 'Run resources cleaned up?',
      waitName: 'Wait to clean up run resources',
      fn: this.steps.cleanUp,
      payload: { 'plan.$': '$.plan', 'summary.$': '$.summary' },
      recordFailureName: 'Record failed run clean-up',
    });
    return recommendStep.next(this.deleteCandidatesNotKept(this.proveTarget(this.rampTest(cleanUp))));
  }

  /**
   * "Candidates kept?": with `keep-recommended`, every candidate's endpoint lived until the ranking
   * ("Delete candidate endpoint" leaves them); as soon as "Recommend" has chosen, "Delete candidates
   * not kept" deletes every endpoint of the run but the recommended one (the run clean-up's step,
   * over the summary's `keep`), so the losers stop billing and stop holding instances of the quota
   * before the proof and the ramp deploy. A delete that fails (or an endpoint still changing) is left
   * to "Clean up run resources", which deletes the same way at the end.
   */
  private deleteCandidatesNotKept(next: sfn.IChainable): sfn.Choice {
    const deleteNotKept = this.invoke(OptimizationStates.deleteCandidatesNotKept, this.steps.cleanUp, {
      payload: { 'plan.$': '$.plan', 'summary.$': '$.summary' },
      resultPath: sfn.JsonPath.DISCARD,
      timeout: Duration.minutes(10),
    });
    deleteNotKept.addCatch(next, { errors: ['States.ALL'], resultPath: '$.deleteNotKeptError' });
    deleteNotKept.next(next);
    return new sfn.Choice(this, OptimizationStates.candidatesKept)
      .when(sfn.Condition.stringEquals('$.plan.cleanupPolicy', KEEP_RECOMMENDED), deleteNotKept)
      .otherwise(next);
  }

  /**
   * "Prove the target?": when "Recommend" asked for a proof (`summary.proofRequest`, with a target
   * and the proof on: core/serving/prove-target.ts), the candidate that serves the target is
   * deployed again with the computed count under its own run-derived names (`<winner>-prove`),
   * with the same deploy, check, load worker and delete steps as every candidate; its workers run
   * one open-model step at the target rate ("Plan proof load" puts it in the plan, which nothing
   * after the proof reads), and "Record proof" judges it and rewrites the report. The endpoint is
   * deleted on every path: after the verdict, and before "Record failed proof" when a step failed;
   * a verdict of "not held" may ask for one more proof with a corrected count ("Correct the count?");
   * a delete that still fails is left to "Clean up run resources", which finds the endpoint by the
   * run's name prefix and tag. Then `next` (the success path's clean-up), whatever the proof came to.
   */
  private proveTarget(next: sfn.IChainable): sfn.Choice {
    const request = '$.summary.proofRequest';
    const planLoad = this.planPhaseLoad(
      { plan: 'Plan proof load', select: 'Select proof candidate' },
      request,
    );
    const record = this.invoke(OptimizationStates.recordProof, this.steps.recordProof, {
      payload: {
        'plan.$': '$.plan',
        'summary.$': '$.summary',
        'deployment.$': '$.deployment',
        'workers.$': '$.workers',
      },
      resultPath: '$.summary.proof',
      timeout: Duration.minutes(5),
    });
    const deleteEndpoint = this.deleteCandidateTask(OptimizationStates.deleteProofEndpoint);
    deleteEndpoint.addCatch(next, { errors: ['States.ALL'], resultPath: '$.deleteError' });
    // A proof that did not hold runs once more with a corrected count when the plan allows it
    // ("Record proof" gives the request, core/serving/prove-target.ts `correctedRequest`).
    const correct = new sfn.Pass(this, OptimizationStates.planCorrectedProof, {
      inputPath: '$.summary.proof.correction',
      resultPath: request,
    });
    deleteEndpoint.next(
      new sfn.Choice(this, OptimizationStates.correctTheCount)
        .when(sfn.Condition.isPresent('$.summary.proof.correction'), correct)
        .otherwise(next),
    );

    // The report then keeps "not proven"; the run's result stands.
    const recordFailed = this.recordFailedPhase(
      OptimizationStates.recordFailedProof,
      this.steps.recordProof,
      {
        resultPath: '$.summary.proof',
        errorPath: '$.proofError',
        next,
      },
    );
    // The measurement's quota Retry matters here: the candidates' endpoints were deleted just
    // before (with keep-recommended, by "Delete candidates not kept"), and SageMaker counts an
    // endpoint's instances until it is gone.
    const deploy = this.measureEndpoint({
      names: {
        deploy: OptimizationStates.deployProofEndpoint,
        wait: 'Wait for proof endpoint',
        check: OptimizationStates.checkProofEndpoint,
        inService: 'Proof endpoint in service?',
        loadWorkers: OptimizationStates.runProofLoadWorkers,
        loadWorker: OptimizationStates.runProofLoadWorker,
        deleteFailed: OptimizationStates.deleteFailedProofEndpoint,
        stopRedriven: OptimizationStates.stopRedrivenProof,
      },
      judge: () => ({ start: record.next(deleteEndpoint), failing: [record] }),
      recordFailed,
    });
    planLoad.next(deploy);
    correct.next(planLoad);
    return new sfn.Choice(this, OptimizationStates.proveTarget)
      .when(sfn.Condition.isPresent(request), planLoad)
      .otherwise(next);
  }

  /**
   * "Ramp test?": when "Recommend" asked for a ramp (`summary.rampRequest`: a target, the policy
   * and `rampTest.enabled`, core/serving/ramp-test.ts), the candidate that serves the target is
   * deployed again at the policy's minimum (`<winner>-ramp`), the report's two scaling requests
   * are applied to it ("Apply ramp scaling policy", which also sets the workers' shared start), and
   * the workers run one open-model ramp from what the minimum carries at the policy's target to the
   * peak ("Plan ramp load" puts it in the plan), in one worker invocation ("Validate and plan"
   * refuses a longer ramp); "Aggregate ramp load test" merges the workers' figures and timeline.
   * "Record ramp" judges the timeline against the instance counts and rewrites the report. The
   * scaling is deregistered and the endpoint deleted on every path: after the verdict, and before
   * "Record failed ramp" when a step failed. An endpoint whose deregistration or deletion still
   * fails is left to "Clean up run resources", which finds it by the run's name prefix and tag and
   * deregisters its variant before deleting it. A ramp that broke the SLA may run once more at the
   * headroom (or minimum) its arithmetic advised ("Re-test the ramp?", when the plan allows one,
   * as `<winner>-ramp-2`). Then `next`, whatever the ramp came to.
   */
  private rampTest(next: sfn.IChainable): sfn.Choice {
    const request = '$.summary.rampRequest';
    const planLoad = this.planPhaseLoad({ plan: 'Plan ramp load', select: 'Select ramp candidate' }, request);
    const apply = this.invoke(OptimizationStates.applyRampScaling, this.steps.rampScaling, {
      payload: {
        action: 'apply',
        'scaling.$': `${request}.scaling`,
        'deployment.$': '$.deployment',
        ...REDRIVE_COUNT,
      },
      resultPath: '$.deployment',
      timeout: Duration.minutes(2),
    });
    const aggregate = this.invoke(OptimizationStates.aggregateRamp, this.steps.aggregateLoadTest, {
      payload: {
        'plan.$': '$.plan',
        'candidateId.$': '$.candidate.id',
        'workers.$': '$.workers',
        'deployment.$': '$.deployment',
      },
      resultPath: '$.outcome',
      timeout: Duration.minutes(5),
    });
    const nextSegment = new sfn.Pass(this, OptimizationStates.runNextRampSegment, {
      inputPath: '$.outcome.nextSegment',
      resultPath: '$.deployment.loadSegment',
    });
    const record = this.invoke(OptimizationStates.recordRamp, this.steps.recordRamp, {
      payload: { 'plan.$': '$.plan', 'summary.$': '$.summary', 'outcome.$': '$.outcome' },
      resultPath: '$.summary.ramp',
      timeout: Duration.minutes(5),
    });
    const deregister = this.deregisterRampTask(OptimizationStates.deregisterRampScaling);
    const deleteEndpoint = this.deleteCandidateTask(OptimizationStates.deleteRampEndpoint);
    // A ramp that broke the SLA runs once more at the advised headroom when the plan allows it
    // ("Record ramp" gives the request, core/serving/ramp-test.ts `retestRequest`), whether or
    // not the first ramp's endpoint could be deleted: the re-test has names of its own, and the
    // report already says it follows.
    const retest = new sfn.Pass(this, OptimizationStates.planRampRetest, {
      inputPath: '$.summary.ramp.retest',
      resultPath: request,
    });
    const retestDue = new sfn.Choice(this, OptimizationStates.retestTheRamp)
      .when(sfn.Condition.isPresent('$.summary.ramp.retest'), retest)
      .otherwise(next);
    // An endpoint whose scaling is still registered is left to "Clean up run resources", which
    // deregisters before it deletes: SageMaker deregisters on DeleteEndpoint only when the caller
    // may call DeregisterScalableTarget ("Delete endpoints configured for auto scaling").
    deregister.addCatch(retestDue, { errors: ['States.ALL'], resultPath: '$.deregisterError' });
    deleteEndpoint.addCatch(retestDue, { errors: ['States.ALL'], resultPath: '$.deleteError' });
    deregister.next(deleteEndpoint).next(retestDue);

    // The report then keeps the ramp as failed; the run's result stands.
    const recordFailed = this.recordFailedPhase(OptimizationStates.recordFailedRamp, this.steps.recordRamp, {
      resultPath: '$.summary.ramp',
      errorPath: '$.rampError',
      next,
    });
    record.next(deregister);
    // The measurement's quota Retry matters here too: the proof's endpoint (or the first ramp's,
    // scaled out) may still be deleting when this one is created. Nothing is billed while it waits.
    const deploy = this.measureEndpoint({
      names: {
        deploy: OptimizationStates.deployRampEndpoint,
        wait: 'Wait for ramp endpoint',
        check: OptimizationStates.checkRampEndpoint,
        inService: 'Ramp endpoint in service?',
        loadWorkers: OptimizationStates.runRampLoadWorkers,
        loadWorker: OptimizationStates.runRampLoadWorker,
        deleteFailed: OptimizationStates.deleteFailedRampEndpoint,
        stopRedriven: OptimizationStates.stopRedrivenRamp,
      },
      prepare: apply,
      judge: ({ loadTest }) => ({
        start: aggregate.next(
          new sfn.Choice(this, 'Ramp load test over?')
            .when(
              sfn.Condition.stringEquals('$.outcome.status', CandidateStatuses.nextSegment),
              nextSegment.next(loadTest),
            )
            .otherwise(record),
        ),
        failing: [aggregate, record],
      }),
      // The scaling is deregistered before the endpoint is deleted, on the failure path too.
      failureTeardown: (deleteFailed) => {
        const deregisterFailed = this.deregisterRampTask(OptimizationStates.deregisterFailedRampScaling);
        deregisterFailed.addCatch(recordFailed, { errors: ['States.ALL'], resultPath: '$.deregisterError' });
        return deregisterFailed.next(deleteFailed);
      },
      recordFailed,
    });
    planLoad.next(deploy);
    retest.next(planLoad);
    return new sfn.Choice(this, OptimizationStates.rampTest)
      .when(sfn.Condition.isPresent(request), planLoad)
      .otherwise(next);
  }

  /**
   * A phase after "Recommend" (the proof, the ramp) takes its load and its candidate from its
   * request: "Plan … load" replaces the plan's load plan for the rest of the execution (only the
   * phases and clean-up follow, which read the run id), so the workers and the endpoint check run
   * unchanged; "Select … candidate" puts the candidate where the deploy and delete read it.
   */
  private planPhaseLoad(
    names: { readonly plan: string; readonly select: string },
    request: string,
  ): sfn.Chain {
    const planLoad = new sfn.Pass(this, names.plan, {
      inputPath: `${request}.loadPlan`,
      resultPath: '$.plan.loadPlan',
    });
    const select = new sfn.Pass(this, names.select, {
      inputPath: `${request}.candidate`,
      resultPath: '$.candidate',
    });
    return sfn.Chain.start(planLoad).next(select);
  }

  /** "Record failed …": the phase's recorder with the caught error, then `next` whatever it comes to. */
  private recordFailedPhase(
    name: string,
    fn: StepFunction<RecordProofEvent & RecordRampEvent>,
    options: { readonly resultPath: string; readonly errorPath: string; readonly next: sfn.IChainable },
  ): tasks.LambdaInvoke {
    const recordFailed = this.invoke(name, fn, {
      payload: { 'plan.$': '$.plan', 'summary.$': '$.summary', 'error.$': '$.error' },
      resultPath: options.resultPath,
      timeout: Duration.minutes(5),
    });
    recordFailed.addCatch(options.next, { errors: ['States.ALL'], resultPath: options.errorPath });
    recordFailed.next(options.next);
    return recordFailed;
  }

  /** "Deregister ramp scaling" (or the failed ramp's): the ramp endpoint's variant, never registered or not. */
  private deregisterRampTask(name: string): tasks.LambdaInvoke {
    return this.invoke(name, this.steps.rampScaling, {
      payload: { action: 'deregister', 'endpointName.$': '$.candidate.endpointName' },
      resultPath: sfn.JsonPath.DISCARD,
      timeout: Duration.minutes(2),
    });
  }

  /**
   * "No recommendation": the run measured what it could, wrote its report and cleaned up, but has
   * nothing to recommend (no candidate met the SLA, or every candidate failed). It ends FAILED with
   * `NoRecommendationError`, so that the execution's status, the run summary's `status` attribute
   * and every exit code say so; the cause (JSON, `NoRecommendationCause`) names the outcome, the
   * counts, the report and the clean-up's message. Two Pass states build it: the Fail state's
   * `CausePath` takes a path (intrinsic functions there are not run by the local engine).
   */
  private noRecommendation(): sfn.IChainable {
    const cause: Record<keyof NoRecommendationCause, string> = {
      errorMessage: "States.Format('{} Report: {}', $.summary.outcomeText, $.summary.report.html)",
      outcome: '$.summary.outcome',
      counts: '$.summary.counts',
      report: '$.summary.report',
      cleanUp: '$.summary.cleanUp.message',
      comparison: '$.summary.comparison',
    };
    const explain = new sfn.Pass(this, OptimizationStates.explainNoRecommendation, {
      parameters: Object.fromEntries(Object.entries(cause).map(([key, path]) => [`${key}.$`, path])),
      resultPath: '$.noRecommendation',
    });
    const write = new sfn.Pass(this, 'Write no-recommendation cause', {
      parameters: { 'cause.$': 'States.JsonToString($.noRecommendation)' },
      resultPath: '$.noRecommendation',
    });
    const fail = new sfn.Fail(this, OptimizationStates.noRecommendation, {
      comment: 'Report written and run cleaned up; the cause names the outcome and the report',
      error: ErrorNames.noRecommendation,
      causePath: '$.noRecommendation.cause',
    });
    return explain.next(write).next(fail);
  }

  /** "Deploy candidate" (or the proof's): the candidate at `$.candidate`, its deployment at `$.deployment`. */
  private deployTask(name: string): tasks.LambdaInvoke {
    return this.invoke(name, this.steps.deployCandidate, {
      payload: {
        'plan.$': '$.plan',
        'candidate.$': '$.candidate',
        'packagedModel.$': '$.packagedModel',
        'compilations.$': '$.compilations',
        ...REDRIVE_COUNT,
      },
      resultPath: '$.deployment',
      timeout: Duration.minutes(2),
    });
  }

  /** "Check endpoint" (or the proof's): one DescribeEndpoint, the deployment updated. */
  private checkTask(name: string): tasks.LambdaInvoke {
    return this.invoke(name, this.steps.checkEndpoint, {
      payload: { 'plan.$': '$.plan', 'deployment.$': '$.deployment', ...REDRIVE_COUNT },
      resultPath: '$.deployment',
      timeout: Duration.minutes(2),
    });
  }

  /**
   * A redriven run resumes these steps on endpoints that are gone
   * (core/steps/optimization/redrive.ts): its `RunRedrivenError` ends the whole run (this Fail,
   * then "Clean up after failure" and "Run failed"), ahead of the Catch that would record one
   * candidate or phase as failed. Call before adding that Catch: States.ALL must come last.
   */
  private failWhenRedriven(steps: readonly (sfn.TaskStateBase | sfn.Map)[], failName: string): void {
    const stop = new sfn.Fail(this, failName, {
      comment: 'A redrive resumed a step on the run’s deleted endpoints: start a new run',
      errorPath: '$.error.Error',
      causePath: '$.error.Cause',
    });
    for (const step of steps) {
      step.addCatch(stop, { errors: [ErrorNames.runRedriven], resultPath: '$.error' });
    }
  }

  private deleteCandidateTask(name: string): tasks.LambdaInvoke {
    const task = this.invoke(name, this.steps.deleteCandidate, {
      payload: { 'plan.$': '$.plan', 'candidate.$': '$.candidate' },
      resultPath: sfn.JsonPath.DISCARD,
      timeout: Duration.minutes(2),
    });
    retryWhileBusy(task);
    return task;
  }

  private invoke<Event, const Given extends object>(
    name: string,
    fn: StepFunction<Event>,
    options: LambdaStepOptions<Event, Given>,
  ): tasks.LambdaInvoke {
    return lambdaStep(this, name, fn, options);
  }
}
