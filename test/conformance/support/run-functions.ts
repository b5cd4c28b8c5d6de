import { cleanUpFailedRun, type FailedRunCleanUp } from '../../../core/operations/clean-up-failed-run.js';
import { SUPPORT_FUNCTIONS } from '../../../core/contracts/functions.js';
import { describeRun, parseDescribeRunEvent } from '../../../core/operations/describe-run.js';
import {
  parseJanitorEvent,
  sweepStaleResources,
  type SweepSummary,
} from '../../../core/operations/janitor.js';
import { listRuns } from '../../../core/operations/list-runs.js';
import {
  notifyRunSummary,
  type RunSummaryNotification,
} from '../../../core/operations/notify-run-summary.js';
import { runEvents } from '../../../core/operations/run-events.js';
import type { ParsedEvent } from '../../../core/run-status/proxy-event.js';
import { RUN_ROUTES } from '../../../core/run-status/proxy-event.js';
import { type ApiReply, RUN_RESOURCES, type RunWorkflow } from '../../../core/contracts/run-api-contract.js';
import { parseRunRouteEvent } from '../../../core/run-status/run-routes.js';
import type { ApprovedModelRunTemplate } from '../../../core/contracts/approved-model-run-template.js';
import {
  type ApprovedModelRunOutcome,
  startApprovedModelRun,
} from '../../../core/operations/start-approved-model-run.js';
import { parseStartRunEvent, startRun } from '../../../core/operations/start-run.js';
import { stopRun } from '../../../core/operations/stop-run.js';
import { ApplicationAutoScalingRegistry } from '../../../lambdas/adapters/application-autoscaling-registry.js';
import { SageMakerCompiler } from '../../../lambdas/adapters/sagemaker-compiler.js';
import { SageMakerModelHost } from '../../../lambdas/adapters/sagemaker-model-host.js';
import { SageMakerOptimizer } from '../../../lambdas/adapters/sagemaker-optimizer.js';
import { SfnExecutionDescriber } from '../../../lambdas/adapters/sfn-execution-describer.js';
import { SfnExecutionReader } from '../../../lambdas/adapters/sfn-execution-reader.js';
import { SfnExecutionStarter } from '../../../lambdas/adapters/sfn-execution-starter.js';
import { SfnRunActivity } from '../../../lambdas/adapters/sfn-run-activity.js';
import { SfnRunEvents } from '../../../lambdas/adapters/sfn-run-events.js';
import { SfnRunLister } from '../../../lambdas/adapters/sfn-run-lister.js';
import { SfnRunStarter } from '../../../lambdas/adapters/sfn-run-starter.js';
import { SfnRunStopper } from '../../../lambdas/adapters/sfn-run-stopper.js';
import { SnsPublisher } from '../../../lambdas/adapters/sns-publisher.js';
import type { RunnerEvent, RunResult } from '../../../local/runner/index.js';
import type { SynthesizedWorkflows } from '../../../local/synthesis/synthesized-workflows.js';
import { silentLogger } from '../../support/memory-object-store.js';
import { gzipSync } from 'node:zlib';
import {
  ARTIFACTS_BUCKET,
  type AwsHarness,
  RUN_SUMMARY_TOPIC_ARN,
  STATE_MACHINE_ARNS,
} from '../aws-harness.js';
import { ACCOUNT_ID, REGION } from '../fake-aws/sagemaker-service.js';

/**
 * The project's support Lambdas (the run API, the janitor, the failed-run clean-up, the run
 * summary, the model-approval trigger) over the harness's fakes: each is its core function with
 * the adapters its entry (`lambdas/<name>.ts`) builds, over the harness's clients, and every call
 * it makes is recorded as its `STEP_NAME`'s, so the IAM evaluation judges it against that
 * function's role. The events are the ones API Gateway, EventBridge and Scheduler send.
 */

/**
 * A one-candidate optimization run for the support functions to start, follow and end. Its one
 * load step lasts a second, so a step Lambda that starts a few hundred milliseconds late on a busy
 * machine still measures requests, and its SLA cannot be missed by chance: whether the run is
 * recommended does not depend on the CPU.
 */
export const ONE_CANDIDATE_INPUT = {
  model: {
    artifactUri: `s3://${ARTIFACTS_BUCKET}/models/cnn/model.tar.gz`,
    framework: 'pytorch',
    frameworkVersion: '2.0',
    inputShape: { input0: [1, 3, 224, 224] },
  },
  payload: { uri: `s3://${ARTIFACTS_BUCKET}/models/cnn/payload.json`, contentType: 'application/json' },
  candidates: [{ id: 'cpu', instanceType: 'ml.c5.xlarge' }],
  loadPlan: { model: 'closed', steps: [1], warmupSeconds: 0, stepDurationSeconds: 1, stopAtPlateau: false },
  sla: { p95LatencyMs: 30_000 },
} as const;

/** The objects an input of the artifacts bucket names: a model archive gzipped, a JSON payload. */
export function seedObjectsOf(harness: AwsHarness, input: unknown): void {
  for (const [uri] of JSON.stringify(input).matchAll(new RegExp(`s3://${ARTIFACTS_BUCKET}/[^"]+`, 'g'))) {
    harness.s3.seed(uri, uri.endsWith('.tar.gz') ? gzipSync('model') : '{"inputs":[[0]]}');
  }
}

/** A proxy event of API Gateway's REST Lambda proxy integration (every key present). */
function proxyEvent(
  resource: string,
  overrides: Readonly<Record<string, unknown>> = {},
): Record<string, unknown> {
  return {
    resource,
    path: resource,
    httpMethod: 'GET',
    headers: null,
    multiValueHeaders: null,
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    requestContext: {
      requestId: 'c0ffee00-1111-2222-3333-444455556666',
      domainName: `abc123.execute-api.${REGION}.amazonaws.com`,
      stage: 'v1',
      identity: { userArn: `arn:aws:iam::${ACCOUNT_ID}:user/operator` },
    },
    body: null,
    isBase64Encoded: false,
    ...overrides,
  };
}

/** The route's answer, or the 400 the entry answers for an event API Gateway would not send. */
async function answer<Request, Body>(
  parsed: ParsedEvent<Request>,
  reply: (request: Request) => Promise<ApiReply<Body>>,
): Promise<ApiReply<Body>> {
  return 'refusal' in parsed ? parsed.refusal : await reply(parsed.request);
}

/** The "Step Functions Execution Status Change" event EventBridge delivers when an execution ends. */
export interface ExecutionStatusChange {
  readonly executionArn: string;
  readonly stateMachineArn: string;
  readonly name: string;
  readonly status: string;
}

export class ConformanceFunctions {
  private readonly executions: SfnExecutionReader;

  constructor(private readonly harness: AwsHarness) {
    this.executions = new SfnExecutionReader({
      client: harness.sfnClient,
      stateMachineArns: STATE_MACHINE_ARNS,
    });
  }

  private as<T>(step: string, work: () => Promise<T>): Promise<T> {
    return this.harness.recorder.as(step, work);
  }

  /** `POST /runs` or `POST /async-runs` with `body`. */
  startRun(workflow: RunWorkflow, body: unknown): Promise<ApiReply<unknown>> {
    const event = proxyEvent(`/${RUN_RESOURCES[workflow]}`, {
      httpMethod: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    const starter = new SfnRunStarter({
      client: this.harness.sfnClient,
      stateMachineArns: STATE_MACHINE_ARNS,
    });
    return this.as(SUPPORT_FUNCTIONS.startRun, () =>
      answer(parseStartRunEvent(event), (request) =>
        startRun(request, { starter, logger: silentLogger, servingRegion: REGION }),
      ),
    );
  }

  /** `GET /<r>/{id}`. */
  describeRun(workflow: RunWorkflow, runId: string): Promise<ApiReply<unknown>> {
    const event = proxyEvent(`/${RUN_RESOURCES[workflow]}/{id}`, { pathParameters: { id: runId } });
    return this.as(SUPPORT_FUNCTIONS.describeRun, () =>
      answer(parseDescribeRunEvent(event), (request) =>
        describeRun(request, { executions: this.executions, logger: silentLogger }),
      ),
    );
  }

  /** `GET /<r>?…`. */
  listRuns(workflow: RunWorkflow, query: Readonly<Record<string, string>> = {}): Promise<ApiReply<unknown>> {
    const event = proxyEvent(`/${RUN_RESOURCES[workflow]}`, {
      queryStringParameters: Object.keys(query).length === 0 ? null : query,
    });
    const lister = new SfnRunLister({ client: this.harness.sfnClient, stateMachineArns: STATE_MACHINE_ARNS });
    return this.as(SUPPORT_FUNCTIONS.listRuns, () =>
      answer(parseRunRouteEvent(event, RUN_ROUTES.list), (request) =>
        listRuns(request, { lister, logger: silentLogger }),
      ),
    );
  }

  /** `POST /<r>/{id}/stop`. */
  stopRun(workflow: RunWorkflow, runId: string): Promise<ApiReply<unknown>> {
    const event = proxyEvent(`/${RUN_RESOURCES[workflow]}/{id}/stop`, {
      httpMethod: 'POST',
      pathParameters: { id: runId },
    });
    const stopper = new SfnRunStopper({ client: this.harness.sfnClient, executions: this.executions });
    return this.as(SUPPORT_FUNCTIONS.stopRun, () =>
      answer(parseRunRouteEvent(event, RUN_ROUTES.stop), (request) =>
        stopRun(request, { executions: this.executions, stopper, logger: silentLogger }),
      ),
    );
  }

  /** `GET /<r>/{id}/events`. */
  runEvents(workflow: RunWorkflow, runId: string): Promise<ApiReply<unknown>> {
    const event = proxyEvent(`/${RUN_RESOURCES[workflow]}/{id}/events`, { pathParameters: { id: runId } });
    const events = new SfnRunEvents({ client: this.harness.sfnClient, executions: this.executions });
    return this.as(SUPPORT_FUNCTIONS.runEvents, () =>
      answer(parseRunRouteEvent(event, RUN_ROUTES.events), (request) =>
        runEvents(request, { events, logger: silentLogger }),
      ),
    );
  }

  /**
   * Runs a started execution's state machine (the runner, the harness's step handlers, planning
   * reading Service Quotas) with the input StartExecution stored, and ends the execution as the
   * run ended.
   */
  async runExecution(workflows: SynthesizedWorkflows, executionArn: string): Promise<RunResult> {
    const { name, input } = this.harness.executions.execution(executionArn);
    const events: RunnerEvent[] = [];
    const options = { workflows, input, runId: name, onEvent: (event: RunnerEvent) => events.push(event) };
    const result = executionArn.startsWith(
      STATE_MACHINE_ARNS.optimization.replace(':stateMachine:', ':execution:'),
    )
      ? await this.harness.runOptimization({ ...options, readQuotas: true })
      : await this.harness.runAsyncInference(options);
    this.harness.executions.complete(executionArn, result, events);
    return result;
  }

  /** The janitor, as its schedule invokes it (`{}`), at `nowEpochMs`. */
  janitor(nowEpochMs: number, event: unknown = {}): Promise<SweepSummary> {
    const host = new SageMakerModelHost({ client: this.harness.sagemakerClient });
    const scaling = this.scalingRegistry();
    const runs = new SfnRunActivity({ client: this.harness.sfnClient, stateMachineArns: STATE_MACHINE_ARNS });
    return this.as(SUPPORT_FUNCTIONS.janitor, () =>
      sweepStaleResources(
        // The stack's settings (infra/constructs/safety-net.ts deploys these values).
        { maxAgeHours: 49, graceMinutes: 15, nowEpochMs, ...parseJanitorEvent(event) },
        { host, scaling, runs, logger: silentLogger },
      ),
    );
  }

  /** The failed-run clean-up's step, with the status-change event of an execution that ended. */
  cleanUpFailedRun(change: ExecutionStatusChange): Promise<FailedRunCleanUp> {
    const client = this.harness.sagemakerClient;
    return this.as(SUPPORT_FUNCTIONS.cleanUpFailedRun, () =>
      cleanUpFailedRun(statusChangeEvent(change), {
        host: new SageMakerModelHost({ client }),
        compiler: new SageMakerCompiler({ client }),
        optimizer: new SageMakerOptimizer({ client }),
        scaling: this.scalingRegistry(),
        describer: new SfnExecutionDescriber({ client: this.harness.sfnClient }),
        logger: silentLogger,
      }),
    );
  }

  /** The run summary, with the status-change event of an execution that ended. */
  notifyRunSummary(change: ExecutionStatusChange): Promise<RunSummaryNotification> {
    return this.as(SUPPORT_FUNCTIONS.notifyRunSummary, () =>
      notifyRunSummary(statusChangeEvent(change), {
        describer: new SfnExecutionDescriber({ client: this.harness.sfnClient }),
        publisher: new SnsPublisher({ client: this.harness.snsClient, topicArn: RUN_SUMMARY_TOPIC_ARN }),
        logger: silentLogger,
        workflows: new Map<string, RunWorkflow>([
          [STATE_MACHINE_ARNS.optimization, 'optimization'],
          [STATE_MACHINE_ARNS['async-inference'], 'async-inference'],
        ]),
        region: REGION,
      }),
    );
  }

  /** The model-approval trigger, with the event of an approved model package version. */
  startApprovedModelRun(
    template: ApprovedModelRunTemplate,
    event: unknown,
  ): Promise<ApprovedModelRunOutcome> {
    const starter = new SfnExecutionStarter({
      client: this.harness.sfnClient,
      stateMachineArn: STATE_MACHINE_ARNS.optimization,
    });
    return this.as(SUPPORT_FUNCTIONS.startApprovedModelRun, () =>
      startApprovedModelRun(event, { template, starter, logger: silentLogger }),
    );
  }

  private scalingRegistry(): ApplicationAutoScalingRegistry {
    return new ApplicationAutoScalingRegistry({
      autoScaling: this.harness.autoScalingClient,
      cloudWatch: this.harness.cloudWatchClient,
    });
  }
}

/** As Step Functions sends it to EventBridge (Step Functions developer guide, "Execution status change"). */
function statusChangeEvent(change: ExecutionStatusChange): Record<string, unknown> {
  return {
    version: '0',
    id: '315c1398-40ff-a850-213b-158f73e60175',
    'detail-type': 'Step Functions Execution Status Change',
    source: 'aws.states',
    account: ACCOUNT_ID,
    time: '2026-01-01T00:00:00Z',
    region: REGION,
    resources: [change.executionArn],
    detail: {
      executionArn: change.executionArn,
      stateMachineArn: change.stateMachineArn,
      name: change.name,
      status: change.status,
      startDate: Date.UTC(2026, 0, 1),
      stopDate: change.status === 'RUNNING' ? null : Date.UTC(2026, 0, 1, 1),
      input: '{}',
      output: null,
    },
  };
}
