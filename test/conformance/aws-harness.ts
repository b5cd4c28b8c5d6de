import { ApplicationAutoScalingClient } from '@aws-sdk/client-application-auto-scaling';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EC2Client } from '@aws-sdk/client-ec2';
import { PricingClient } from '@aws-sdk/client-pricing';
import { IAMClient } from '@aws-sdk/client-iam';
import { S3Client } from '@aws-sdk/client-s3';
import { SageMakerClient } from '@aws-sdk/client-sagemaker';
import { SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import { ServiceQuotasClient } from '@aws-sdk/client-service-quotas';
import { SFNClient } from '@aws-sdk/client-sfn';
import { SNSClient } from '@aws-sdk/client-sns';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  handleAsyncNotifications,
  throwIfRetryNeeded,
} from '../../core/operations/handle-async-notification.js';
import { ApplicationAutoScalingRegistry } from '../../lambdas/adapters/application-autoscaling-registry.js';
import { AwsAsyncEndpointObserver } from '../../lambdas/adapters/async-endpoint-observer.js';
import { CloudWatchEndpointMetrics } from '../../lambdas/adapters/cloudwatch-endpoint-metrics.js';
import { DynamoDbTokenStore } from '../../lambdas/adapters/dynamodb-token-store.js';
import { Ec2InstanceFactsReader } from '../../lambdas/adapters/ec2-instance-facts.js';
import {
  PricingHostingPrices,
  SAGEMAKER_PRICE_LIST_SERVICE_CODE,
} from '../../lambdas/adapters/pricing-hosting-prices.js';
import { IamPolicySimulator } from '../../lambdas/adapters/iam-policy-simulator.js';
import { createSageMakerEndpointAnswerer } from '../../lambdas/adapters/sagemaker-endpoint-answerer.js';
import { S3ObjectStore } from '../../lambdas/adapters/s3-object-store.js';
import { SageMakerAsyncInvoker } from '../../lambdas/adapters/sagemaker-async-invoker.js';
import { SageMakerCompiler } from '../../lambdas/adapters/sagemaker-compiler.js';
import { SageMakerEndpointRoleReader } from '../../lambdas/adapters/sagemaker-endpoint-role.js';
import { SageMakerModelHost } from '../../lambdas/adapters/sagemaker-model-host.js';
import { SageMakerOptimizer } from '../../lambdas/adapters/sagemaker-optimizer.js';
import { ServiceQuotasInstanceReader } from '../../lambdas/adapters/service-quotas-reader.js';
import { SfnTaskResumer } from '../../lambdas/adapters/sfn-task-resumer.js';
import { createAsyncStepHandlers } from '../../local/environment/async-step-handlers.js';
import {
  type JsonValue,
  type RunnerEvent,
  type RunResult,
  runStateMachine,
  TaskTokenBroker,
} from '../../local/runner/index.js';
import {
  createStepHandlers,
  type StepDependencies,
  type StepHandler,
  stepTaskResolver,
} from '../../local/environment/step-handlers.js';
import type { SynthesizedWorkflows } from '../../local/synthesis/synthesized-workflows.js';
import {
  createRuntimeStreamTransportFactory,
  createRuntimeTransportFactory,
} from '../../lambdas/adapters/transport-factory.js';
import type { Clock } from '../../core/load-test/index.js';
import { silentLogger } from '../support/memory-object-store.js';
import { loadWorkerOnSimulatedTime } from '../support/simulated-load.js';
import { FakeAsyncRuntime } from './fake-aws/async-runtime-service.js';
import { FakeEc2InstanceTypes } from './fake-aws/ec2-service.js';
import { FakePriceList, sageMakerInstanceProducts } from './fake-aws/pricing-service.js';
import { FakeRealtimeRuntime } from './fake-aws/realtime-runtime-service.js';
import { FakeIamService } from './fake-aws/iam-service.js';
import { AwsRecorder } from './fake-aws/recorder.js';
import { FakeS3Service } from './fake-aws/s3-service.js';
import { ACCOUNT_ID, FakeSageMakerService, REGION } from './fake-aws/sagemaker-service.js';
import { FakeScalingServices } from './fake-aws/scaling-services.js';
import { FakeServiceQuotas, sageMakerEndpointQuotas } from './fake-aws/service-quotas-service.js';
import { FakeSnsService } from './fake-aws/sns-service.js';
import { FakeStepFunctionsExecutions } from './fake-aws/step-functions-executions.js';
import { FakeTokenTable, installFakeStepFunctions } from './fake-aws/token-services.js';
import type { StreamFormat } from '../../core/contracts/stream-format.js';

/**
 * The workflows as they run on AWS, minus AWS: the synthesized state machines on the local runner,
 * each step's core function over the REAL SDK adapters of `lambdas/adapters/`, whose clients talk
 * to stateful fakes that validate every request against the service's declaration; the load test's
 * data plane goes through the real runtime transports down to the HTTP handler.
 */

/** The bucket the examples name: the project keeps models and inputs in the artifacts bucket. */
export const ARTIFACTS_BUCKET = 'your-artifacts-bucket';
/** The task-token table, as the async Lambdas' TASK_TOKEN_TABLE names it. */
export const TOKEN_TABLE = 'mso-task-tokens';
export const SAGEMAKER_ROLE_ARN = `arn:aws:iam::${ACCOUNT_ID}:role/mso-sagemaker-execution`;
export const NOTIFICATION_TOPICS = {
  successTopicArn: `arn:aws:sns:${REGION}:${ACCOUNT_ID}:mso-async-success`,
  errorTopicArn: `arn:aws:sns:${REGION}:${ACCOUNT_ID}:mso-async-errors`,
} as const;

/** The key that encrypts the notification topics, as the async Lambdas' ASYNC_TOPICS_KEY_ARN names it. */
export const TOPICS_KEY_ARN = `arn:aws:kms:${REGION}:${ACCOUNT_ID}:key/mso-artifacts-key`;
/** The topic the run summaries go to (RUN_SUMMARY_TOPIC_ARN). */
export const RUN_SUMMARY_TOPIC_ARN = `arn:aws:sns:${REGION}:${ACCOUNT_ID}:mso-run-summaries`;
/**
 * The deployed state machines, as the run API's, the janitor's and the triggers' variables name
 * them. The async one is named by the stack, `<stack>-AsyncInference` (infra/constructs/async-inference.ts),
 * and the synthesized stack is `ServingOptimizer` (local/synthesis/synthesized-workflows.ts): the grants that
 * name it by that name must match.
 */
export const STATE_MACHINE_ARNS = {
  optimization: `arn:aws:states:${REGION}:${ACCOUNT_ID}:stateMachine:mso-optimization`,
  'async-inference': `arn:aws:states:${REGION}:${ACCOUNT_ID}:stateMachine:ServingOptimizer-AsyncInference`,
} as const;

/** The Lambda SNS delivers SageMaker's async notifications to (its `STEP_NAME`). */
const NOTIFICATION_STEP = 'handle-async-notification';

/**
 * How long the fake data plane takes to answer, in the load worker's simulated time. A closed-model
 * step sends connections × window ÷ latency requests, each through the SDK's whole middleware (real
 * CPU): at 1 ms a short example ran some 30,000 of them; at 50 ms (an ordinary model's answer) a
 * few per connection and step, which exercise every request shape as well.
 */
const SIMULATED_LATENCY_MS = 50;

/** Clients that never reach the network: every `send` is answered by a fake. */
const CLIENT_CONFIG = {
  region: REGION,
  credentials: { accessKeyId: 'AKIDCONFORMANCE', secretAccessKey: 'conformance' },
} as const;

export class AwsHarness {
  readonly recorder = new AwsRecorder();
  readonly scaling = new FakeScalingServices();
  readonly sagemaker = new FakeSageMakerService({}, (endpointName, variantName) => {
    const target = this.scaling.targets.get(
      `endpoint/${endpointName}/variant/${variantName}|sagemaker:variant:DesiredInstanceCount`,
    );
    return target === undefined ? undefined : Number(target.MinCapacity);
  });
  readonly s3 = new FakeS3Service();
  readonly tokenTable = new FakeTokenTable();
  readonly taskTokens = new TaskTokenBroker();
  readonly runtime: FakeAsyncRuntime;
  readonly executions = new FakeStepFunctionsExecutions();
  readonly quotas = new FakeServiceQuotas();
  readonly iam = new FakeIamService();
  readonly sns = new FakeSnsService();
  readonly priceList = new FakePriceList();
  readonly ec2 = new FakeEc2InstanceTypes();

  readonly sagemakerClient = new SageMakerClient(CLIENT_CONFIG);
  readonly s3Client = new S3Client(CLIENT_CONFIG);
  readonly autoScalingClient = new ApplicationAutoScalingClient(CLIENT_CONFIG);
  readonly cloudWatchClient = new CloudWatchClient(CLIENT_CONFIG);
  readonly documentClient = DynamoDBDocumentClient.from(new DynamoDBClient(CLIENT_CONFIG));
  readonly sfnClient = new SFNClient(CLIENT_CONFIG);
  readonly runtimeClient = new SageMakerRuntimeClient(CLIENT_CONFIG);
  readonly quotasClient = new ServiceQuotasClient(CLIENT_CONFIG);
  readonly iamClient = new IAMClient(CLIENT_CONFIG);
  readonly snsClient = new SNSClient(CLIENT_CONFIG);
  readonly pricingClient = new PricingClient(CLIENT_CONFIG);
  readonly ec2Client = new EC2Client(CLIENT_CONFIG);

  readonly store = new S3ObjectStore(this.s3Client);
  readonly host = new SageMakerModelHost({
    client: this.sagemakerClient,
    executionRoleArn: SAGEMAKER_ROLE_ARN,
  });
  readonly compiler = new SageMakerCompiler({
    client: this.sagemakerClient,
    executionRoleArn: SAGEMAKER_ROLE_ARN,
  });
  readonly optimizer = new SageMakerOptimizer({
    client: this.sagemakerClient,
    executionRoleArn: SAGEMAKER_ROLE_ARN,
  });
  readonly tokens = new DynamoDbTokenStore({ client: this.documentClient, tableName: TOKEN_TABLE });
  readonly resumer = new SfnTaskResumer({ client: this.sfnClient });

  constructor() {
    this.sagemaker.install(this.sagemakerClient, this.recorder);
    this.s3.install(this.s3Client, this.recorder);
    this.scaling.install(
      { autoScaling: this.autoScalingClient, cloudWatch: this.cloudWatchClient },
      this.recorder,
    );
    this.tokenTable.install(this.documentClient, this.recorder);
    installFakeStepFunctions(this.sfnClient, this.taskTokens, this.recorder, (command, input) =>
      this.executions.handle(command, input),
    );
    for (const arn of Object.values(STATE_MACHINE_ARNS)) this.executions.addStateMachine(arn);
    this.quotas.setQuotas('sagemaker', sageMakerEndpointQuotas());
    this.quotas.install(this.quotasClient, this.recorder);
    this.iam.install(this.iamClient, this.recorder);
    this.sns.addTopic(RUN_SUMMARY_TOPIC_ARN);
    this.priceList.setProducts(SAGEMAKER_PRICE_LIST_SERVICE_CODE, sageMakerInstanceProducts(REGION));
    this.priceList.install(this.pricingClient, this.recorder);
    this.ec2.install(this.ec2Client, this.recorder);
    this.sns.install(this.snsClient, this.recorder);
    // SNS delivers to the notification Lambda: the same core, over the same real adapters.
    this.runtime = new FakeAsyncRuntime(this.sagemaker, this.s3, (_topicArn, messageId, message) =>
      this.recorder.as(NOTIFICATION_STEP, async () => {
        const summary = await handleAsyncNotifications([{ messageId, message }], {
          store: this.tokens,
          resumer: this.resumer,
          logger: silentLogger,
          nowEpochMs: Date.now,
        });
        throwIfRetryNeeded(summary);
      }),
    );
    this.runtime.install(this.runtimeClient, this.recorder);
  }

  /**
   * Runs the optimization state machine. The load test goes through the real runtime transports
   * (`lambdas/adapters/transport-factory.ts`), whose clients' HTTP handler is the fake data plane:
   * each endpoint answers in `latencyMs` of the load worker's simulated time (@default 50), streams in `streamFormat`.
   */
  async runOptimization(options: {
    readonly workflows: SynthesizedWorkflows;
    readonly input: unknown;
    readonly runId: string;
    readonly latencyMs?: number;
    /** The format the endpoints stream, for plans whose answers stream. @default 'tgi' */
    readonly streamFormat?: StreamFormat;
    /** Each execution event, in order (an execution's history). */
    readonly onEvent?: (event: RunnerEvent) => void;
    /**
     * Planning reads the account's instance quotas from Service Quotas, as validate-and-plan's
     * Lambda does (lambdas/wiring.ts). @default false: no quota is read
     */
    readonly readQuotas?: boolean;
  }): Promise<RunResult> {
    const answer = {
      latencyMs: options.latencyMs ?? SIMULATED_LATENCY_MS,
      streamFormat: options.streamFormat ?? 'tgi',
    } as const;
    // As createLoadTestRuntimeClient builds them (one attempt), with the fake account's credentials,
    // over a data plane that answers on the load worker's clock.
    const runtimeTransports = (clock?: Clock) => {
      const dataPlane = new FakeRealtimeRuntime(this.sagemaker, {
        ...answer,
        ...(clock === undefined ? {} : { clock }),
      });
      const createClient = (): SageMakerRuntimeClient => {
        const client = new SageMakerRuntimeClient({
          ...CLIENT_CONFIG,
          maxAttempts: 1,
          requestHandler: dataPlane.httpHandler,
        });
        dataPlane.install(client, this.recorder);
        return client;
      };
      return {
        openTransport: createRuntimeTransportFactory({ createClient }),
        openStreamTransport: createRuntimeStreamTransportFactory({ createClient }),
      };
    };
    // The quality guard's answers, as the quality-pass Lambda asks them (the SDK's default client).
    const answers = new FakeRealtimeRuntime(this.sagemaker, answer);
    const answerClient = new SageMakerRuntimeClient({
      ...CLIENT_CONFIG,
      requestHandler: answers.httpHandler,
    });
    answers.install(answerClient, this.recorder);
    const deps: StepDependencies = {
      store: this.store,
      host: this.host,
      compiler: this.compiler,
      optimizer: this.optimizer,
      ...runtimeTransports(),
      answerer: createSageMakerEndpointAnswerer(answerClient),
      logger: silentLogger,
      artifactsBucket: ARTIFACTS_BUCKET,
      region: REGION,
      allowFileUris: false,
      measuredLocally: false,
      pollSeconds: 30,
      maxPollSeconds: 120,
      loadStartDelaySeconds: 0,
      metrics: new CloudWatchEndpointMetrics({ client: this.cloudWatchClient }),
      ...(options.readQuotas === true
        ? { instanceQuotas: new ServiceQuotasInstanceReader(this.quotasClient) }
        : {}),
      // Prices and instance facts read live for the region, as validate-and-plan's Lambda reads
      // them (lambdas/wiring.ts); the retries' pauses are skipped.
      market: {
        region: REGION,
        prices: new PricingHostingPrices(this.pricingClient),
        facts: new Ec2InstanceFactsReader(this.ec2Client),
        retry: { attempts: 3, firstDelayMs: 1 },
      },
    };
    // The load windows run on simulated time (test/support/simulated-load.ts): the requests under
    // test do not depend on durations, and no path may depend on how busy the machine is.
    const handlers = {
      ...createStepHandlers(deps),
      'run-load-worker': loadWorkerOnSimulatedTime(deps, runtimeTransports),
    };
    const { optimization } = options.workflows;
    return runStateMachine({
      definition: optimization.definition,
      resources: optimization.resources,
      input: JSON.parse(JSON.stringify(options.input)) as JsonValue,
      executionName: options.runId,
      resolveTask: stepTaskResolver(this.attributed(handlers)),
      waitTimeOverrideMs: 1,
      retryIntervalOverrideMs: 1,
      ...(options.onEvent === undefined ? {} : { onEvent: options.onEvent }),
    });
  }

  /** The handlers, each recording the calls it makes as its step's (the Lambda's `STEP_NAME`). */
  private attributed(handlers: Readonly<Record<string, StepHandler>>): Record<string, StepHandler> {
    return Object.fromEntries(
      Object.entries(handlers).map(([step, handler]) => [
        step,
        (payload: unknown, signal: AbortSignal) => this.recorder.as(step, () => handler(payload, signal)),
      ]),
    );
  }

  /** Runs the async-inference state machine; notifications resume its waits through DynamoDB and SFN fakes. */
  async runAsyncInference(options: {
    readonly workflows: SynthesizedWorkflows;
    readonly input: unknown;
    readonly runId: string;
    /** Each execution event, in order (an execution's history). */
    readonly onEvent?: (event: RunnerEvent) => void;
  }): Promise<RunResult> {
    const handlers = createAsyncStepHandlers({
      store: this.store,
      host: this.host,
      scaling: new ApplicationAutoScalingRegistry({
        autoScaling: this.autoScalingClient,
        cloudWatch: this.cloudWatchClient,
      }),
      tokens: this.tokens,
      resumer: this.resumer,
      invoker: new SageMakerAsyncInvoker({ client: this.runtimeClient }),
      observer: new AwsAsyncEndpointObserver({
        autoScaling: this.autoScalingClient,
        cloudWatch: this.cloudWatchClient,
      }),
      logger: silentLogger,
      artifactsBucket: ARTIFACTS_BUCKET,
      region: REGION,
      allowFileUris: false,
      notificationTopics: NOTIFICATION_TOPICS,
      // A reused endpoint's role is checked as validate-async-run's Lambda checks it (async-wiring.ts).
      reusedEndpointRole: {
        roles: new SageMakerEndpointRoleReader(this.sagemakerClient),
        simulator: new IamPolicySimulator(this.iamClient),
        topicsKeyArn: TOPICS_KEY_ARN,
      },
      waitTimeoutSeconds: options.workflows.asyncWaitTimeoutSeconds,
      pollSeconds: 30,
      maxPollSeconds: 120,
    });
    const { asyncInference } = options.workflows;
    const result = await runStateMachine({
      definition: asyncInference.definition,
      resources: asyncInference.resources,
      stateMachineName: asyncInference.name,
      input: JSON.parse(JSON.stringify(options.input)) as JsonValue,
      executionName: options.runId,
      taskTokens: this.taskTokens,
      resolveTask: stepTaskResolver(this.attributed(handlers)),
      waitTimeOverrideMs: 1,
      retryIntervalOverrideMs: 1,
      ...(options.onEvent === undefined ? {} : { onEvent: options.onEvent }),
    });
    await this.runtime.idle();
    return result;
  }
}

/**
 * An example's input with a load plan short enough for a test (warm-up 0, steps of 0.1 s, the shortest the schema takes): the
 * AWS requests do not depend on durations, only the run time does.
 */
export function withShortLoadPlan(input: Record<string, unknown>): Record<string, unknown> {
  const plan = input.loadPlan as Record<string, unknown> | undefined;
  if (plan === undefined) return input;
  return { ...input, loadPlan: { ...plan, warmupSeconds: 0, stepDurationSeconds: 0.1 } };
}

/** Far above any latency the fake data plane and a busy CPU make, below SageMaker's 60 s invocation limit. */
const UNMISSABLE_SLA_MS = 30_000;

/**
 * An input whose latency SLAs no run can miss by chance: the requests under test do not depend on
 * how fast a busy machine runs the SDK's middleware, but whether a candidate is recommended does
 * (its endpoint is then kept and tagged, the others deleted). Error-rate limits stay as given.
 */
export function withUnmissableSla(input: Record<string, unknown>): Record<string, unknown> {
  const sla = input.sla as Record<string, unknown> | undefined;
  if (sla === undefined) return input;
  return {
    ...input,
    sla: Object.fromEntries(
      Object.entries(sla).map(([key, value]) => [key, key.endsWith('Ms') ? UNMISSABLE_SLA_MS : value]),
    ),
  };
}
