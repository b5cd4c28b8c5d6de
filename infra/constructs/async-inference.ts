import { ArnFormat, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, PolicyStatement, Role } from 'aws-cdk-lib/aws-iam';
import type { IGrantable, IRole } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { Schedule, ScheduleTargetInput, TimeWindow } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { LambdaSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { StepVariables } from '../../lambdas/index.js';
import {
  TOKEN_TABLE_KEYS,
  ASYNC_INFERENCE_STEPS,
  type AsyncInferenceStepKey,
  SUPPORT_FUNCTIONS,
  RUN_INPUT_PREFIXES,
} from '../../core/contracts/index.js';
import {
  AsyncInferenceWorkflow,
  type AsyncInferenceSteps,
  DEFAULT_ASYNC_HEARTBEAT_TIMEOUT,
  DEFAULT_ASYNC_WAIT_TIMEOUT,
} from '../../workflows/index.js';
import { acknowledgeWildcardAction, acknowledgeWildcardResource } from '../nag/index.js';
import {
  createRegisteredLambdas,
  type RegisteredLambdaSettings,
  type StepLambdaFactory,
} from './step-lambda-factory.js';
import { ArtifactPrefix } from './artifacts-store.js';
import type { ProjectFunction } from './project-function.js';
import { SageMakerGrants } from './sagemaker-grants.js';
import { createDeadLetterQueue, resolveScheduleExpression, schedulerPrincipal } from './schedule-settings.js';

export interface AsyncInferenceSettings {
  /** Each wait's TimeoutSeconds. @default 7 h 15 min (SageMaker's 6 h queue TTL plus processing) */
  readonly waitTimeout?: Duration;
  /** Each wait's HeartbeatSeconds: three heartbeat rounds. @default 15 minutes */
  readonly heartbeatTimeout?: Duration;
  /** How often the heartbeat sender runs; must be under a third of the heartbeat timeout. @default 5 minutes */
  readonly heartbeatInterval?: Duration;
  /** Upper bound of a whole run. @default 48 hours */
  readonly executionTimeout?: Duration;
}

/** What the async workflow's Lambdas and SageMaker share: the topics' key and the SageMaker role. */
export interface AsyncInferenceProps {
  /** Creates the construct's Lambdas (the stack). */
  readonly lambdas: StepLambdaFactory;
  readonly settings?: AsyncInferenceSettings;
  /** The key that encrypts the topics and the token table (the artifacts key). */
  readonly encryptionKey: IKey;
  /** The role SageMaker assumes: it publishes the notifications. */
  readonly sagemakerExecutionRole: IRole;
}

/**
 * The async-inference workflow with everything it needs on AWS:
 *
 * - the SNS success and error topics SageMaker publishes each result to (KMS-encrypted, TLS only,
 *   the SageMaker execution role allowed to publish);
 * - the task-token table (DynamoDB, keyed by InferenceId, with a TTL);
 * - the notification Lambda subscribed to both topics, which resumes the waiting tasks;
 * - the heartbeat sender on a schedule, which keeps alive the waits of live endpoints and fails at
 *   once those whose endpoint is gone;
 * - the step Lambdas, each with only the actions it calls, and the state machine.
 */
export class AsyncInference extends Construct {
  readonly workflow: AsyncInferenceWorkflow;
  readonly successTopic: Topic;
  readonly errorTopic: Topic;
  readonly tokenTable: Table;
  readonly notificationHandler: ProjectFunction;
  readonly heartbeatSender: ProjectFunction;
  readonly heartbeatSchedule: Schedule;
  /** Notifications the handler could not process after Lambda's retries. */
  readonly deadLetterQueue: Queue;
  readonly steps: readonly ProjectFunction[];
  /**
   * What the planning half of "Validate async run" reads with, and nothing it writes: its artifact
   * reads, its environment and its SageMaker and IAM read grants. One source for the state's Lambda
   * (which adds the manifest's write) and the run API's plan route (infra/constructs/run-api.ts).
   */
  readonly planning: Required<RegisteredLambdaSettings>;

  constructor(scope: Construct, id: string, props: AsyncInferenceProps) {
    super(scope, id);
    const stack = Stack.of(scope);
    const settings = props.settings ?? {};
    const waitTimeout = settings.waitTimeout ?? DEFAULT_ASYNC_WAIT_TIMEOUT;
    const heartbeatTimeout = settings.heartbeatTimeout ?? DEFAULT_ASYNC_HEARTBEAT_TIMEOUT;
    const heartbeatInterval = resolveHeartbeatInterval(
      settings.heartbeatInterval,
      heartbeatTimeout,
      waitTimeout,
    );

    // The state machine's name is fixed so its ARN can be granted before it exists: the Lambdas it
    // invokes need SendTask* on it, and a reference to the resource would make a dependency cycle.
    const stateMachineName = `${stack.stackName}-AsyncInference`;
    const stateMachineArn = stack.formatArn({
      service: 'states',
      resource: 'stateMachine',
      resourceName: stateMachineName,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });

    this.successTopic = this.topic('SuccessTopic', 'SageMaker async inference results', props.encryptionKey);
    this.errorTopic = this.topic('ErrorTopic', 'SageMaker async inference failures', props.encryptionKey);
    this.allowPublish(props.sagemakerExecutionRole, props.encryptionKey);

    this.tokenTable = new Table(this, 'TaskTokens', {
      partitionKey: { name: TOKEN_TABLE_KEYS.partitionKey, type: AttributeType.STRING },
      timeToLiveAttribute: TOKEN_TABLE_KEYS.ttl,
      billingMode: BillingMode.PAY_PER_REQUEST,
      encryption: TableEncryption.CUSTOMER_MANAGED,
      encryptionKey: props.encryptionKey,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      // Tokens live hours at most; nothing in the table is worth keeping past the stack.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const tokenEnvironment = { [StepVariables.taskTokenTable]: this.tokenTable.tableName };
    const topicEnvironment = {
      [StepVariables.asyncSuccessTopicArn]: this.successTopic.topicArn,
      [StepVariables.asyncErrorTopicArn]: this.errorTopic.topicArn,
    };
    const grantTaskResponse = (fn: IGrantable): void => {
      fn.grantPrincipal.addToPrincipalPolicy(
        new PolicyStatement({
          effect: Effect.ALLOW,
          actions: ['states:SendTaskSuccess', 'states:SendTaskFailure', 'states:SendTaskHeartbeat'],
          resources: [stateMachineArn],
        }),
      );
    };
    const sagemaker = new SageMakerGrants(stack);

    this.deadLetterQueue = createDeadLetterQueue(
      this,
      'NotificationDeadLetters',
      'the SageMaker notifications the notification Lambda could not process after its retries',
    );
    this.notificationHandler = props.lambdas.createStepLambda(SUPPORT_FUNCTIONS.handleAsyncNotification, {
      description: 'Resumes the async workflow’s waiting task when SageMaker notifies a result or failure',
      timeout: Duration.minutes(1),
      environment: tokenEnvironment,
      // Failure reasons too long for the workflow's state: runs/<runId>/async/failure-reasons/.
      writesArtifacts: [ArtifactPrefix.runs],
    });
    // SNS invokes asynchronously: Lambda retries twice, then parks the event here.
    this.notificationHandler.configureAsyncInvoke({
      onFailure: new SqsDestination(this.deadLetterQueue),
      retryAttempts: 2,
      maxEventAge: Duration.hours(6),
    });
    this.allowTokenItems(this.notificationHandler, props.encryptionKey, [
      'dynamodb:GetItem',
      'dynamodb:UpdateItem',
    ]);
    grantTaskResponse(this.notificationHandler);
    for (const topic of [this.successTopic, this.errorTopic]) {
      topic.addSubscription(new LambdaSubscription(this.notificationHandler));
    }

    this.heartbeatSender = props.lambdas.createStepLambda(SUPPORT_FUNCTIONS.sendAsyncHeartbeats, {
      description:
        'Heartbeats the async workflow’s waits whose endpoint lives; fails those whose endpoint is gone',
      timeout: Duration.minutes(2),
      environment: tokenEnvironment,
      // HeadObject on the outputs of late tasks: runs/<runId>/async/ (a lost notification).
      readsArtifacts: [ArtifactPrefix.runs],
    });
    this.allowTokenItems(this.heartbeatSender, props.encryptionKey, ['dynamodb:Scan', 'dynamodb:UpdateItem']);
    grantTaskResponse(this.heartbeatSender);
    sagemaker.allowDescribeAnyEndpoint(this.heartbeatSender);
    this.heartbeatSchedule = this.scheduleHeartbeats(heartbeatInterval);

    const planningEnvironment = {
      ...topicEnvironment,
      // No ASYNC_OUTPUT_KMS_KEY_ID: results land in the artifacts bucket, whose default encryption
      // is the artifacts key; naming the key in OutputConfig would make SageMaker use it directly
      // (kms:Encrypt), a grant the execution role does not need otherwise.
      [StepVariables.asyncWaitTimeoutSeconds]: String(waitTimeout.toSeconds()),
      // "Validate async run" checks that a reused endpoint's role may use the topics' key.
      [StepVariables.asyncTopicsKeyArn]: props.encryptionKey.keyArn,
    };
    this.planning = {
      lambda: {
        // What the run's input may name, as "Validate async run" checks it.
        readsArtifacts: RUN_INPUT_PREFIXES.async,
        environment: planningEnvironment,
      },
      grant: (fn) => {
        sagemaker.allowDescribeAnyEndpoint(fn);
        this.allowRoleCheck(fn);
      },
    };
    const steps = this.createSteps(props, sagemaker, grantTaskResponse, {
      ...planningEnvironment,
      ...tokenEnvironment,
    });
    this.steps = Object.values(steps);

    this.workflow = new AsyncInferenceWorkflow(this, 'Workflow', {
      steps,
      stateMachineName,
      waitTimeout,
      heartbeatTimeout,
      ...(settings.executionTimeout === undefined ? {} : { timeout: settings.executionTimeout }),
    });
  }

  private topic(id: string, displayName: string, key: IKey): Topic {
    return new Topic(this, id, { displayName, masterKey: key, enforceSSL: true });
  }

  /**
   * SageMaker publishes each notification as the endpoint's execution role (SageMaker developer
   * guide, "Check prediction results": the role needs sns:Publish). A publisher to a KMS-encrypted
   * topic also needs kms:GenerateDataKey* and kms:Decrypt on the topic's key (Amazon SNS developer
   * guide, "Encryption at rest"): only through SNS, since the key is the artifacts key.
   * (`Topic.grantPublish` would allow that key's use from anywhere.)
   */
  private allowPublish(role: IRole, key: IKey): void {
    role.addToPrincipalPolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['sns:Publish'],
        resources: [this.successTopic.topicArn, this.errorTopic.topicArn],
      }),
    );
    allowKeyUseThrough(role, key, 'sns', ['kms:Decrypt', 'kms:GenerateDataKey*']);
    acknowledgeWildcardAction(
      role,
      'kms:GenerateDataKey*',
      'SNS encrypts each published message with a data key of the topic key; usable only through SNS (kms:ViaService)',
    );
  }

  /**
   * A reused endpoint's execution role is checked before the run: DescribeModel gives the role, IAM's
   * simulator what it may do. `iam:SimulatePrincipalPolicy` applies to role, user and group ARNs
   * (Service Authorization Reference, "Actions defined by AWS Identity and Access Management"): roles
   * only here, any name, since the user's endpoint may run as any role.
   */
  private allowRoleCheck(fn: ProjectFunction): void {
    const stack = Stack.of(this);
    const grants: [string, string][] = [
      [
        'sagemaker:DescribeModel',
        stack.formatArn({ service: 'sagemaker', resource: 'model', resourceName: '*' }),
      ],
      [
        'iam:SimulatePrincipalPolicy',
        stack.formatArn({ service: 'iam', region: '', resource: 'role', resourceName: '*' }),
      ],
    ];
    for (const [action, resource] of grants) {
      fn.addToRolePolicy(
        new PolicyStatement({ effect: Effect.ALLOW, actions: [action], resources: [resource] }),
      );
      acknowledgeWildcardResource(
        fn.serviceRole,
        resource,
        'Read-only check of a reused endpoint: its model and its role may have any name the user chose',
      );
    }
  }

  /**
   * Only the item operations `fn` calls (lambdas/adapters/dynamodb-token-store.ts), on this table,
   * rather than `grantReadWriteData`'s every read and write. The table's key is usable only through
   * DynamoDB; its actions are those `Table.grantReadWriteData` gives for a customer-managed key.
   */
  private allowTokenItems(fn: ProjectFunction, key: IKey, actions: readonly TokenTableAction[]): void {
    fn.addToRolePolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: [...actions],
        resources: [this.tokenTable.tableArn],
      }),
    );
    allowKeyUseThrough(fn.serviceRole, key, 'dynamodb', [
      'kms:Decrypt',
      'kms:DescribeKey',
      'kms:Encrypt',
      'kms:ReEncrypt*',
      'kms:GenerateDataKey*',
    ]);
    for (const action of ['kms:ReEncrypt*', 'kms:GenerateDataKey*']) {
      acknowledgeWildcardAction(
        fn.serviceRole,
        action,
        'DynamoDB encrypts the token table with table keys of this one key; usable only through DynamoDB (kms:ViaService)',
      );
    }
  }

  private scheduleHeartbeats(interval: Duration): Schedule {
    const role = new Role(this, 'HeartbeatScheduleRole', {
      assumedBy: schedulerPrincipal(this),
      description: 'Lets the heartbeat schedule invoke the heartbeat sender',
    });
    this.heartbeatSender.grantInvoke(role);
    acknowledgeWildcardResource(
      role,
      `${this.heartbeatSender.functionArn}:*`,
      'CDK grants invoke on the heartbeat sender and its versions/aliases; it is the project’s own function',
    );
    const minutes = interval.toMinutes();
    return new Schedule(this, 'HeartbeatSchedule', {
      description: 'Heartbeats of the async workflow’s waiting tasks',
      schedule: resolveScheduleExpression(
        'AsyncInference heartbeat',
        `rate(${minutes} ${minutes === 1 ? 'minute' : 'minutes'})`,
        undefined,
      ),
      timeWindow: TimeWindow.off(),
      target: new LambdaInvoke(this.heartbeatSender, {
        role,
        input: ScheduleTargetInput.fromObject({}),
        // A missed round is made up by the next; three rounds fit in a heartbeat timeout.
        retryAttempts: 0,
        maxEventAge: Duration.minutes(minutes),
      }),
    });
  }

  /**
   * One Lambda per entry of ASYNC_INFERENCE_STEPS, each with only the actions it calls: its
   * settings are typed by the registry, so a step added there without its settings here fails the
   * type-check.
   */
  private createSteps(
    props: AsyncInferenceProps,
    sagemaker: SageMakerGrants,
    grantTaskResponse: (fn: IGrantable) => void,
    environment: Readonly<Record<string, string>>,
  ): AsyncInferenceSteps & Readonly<Record<AsyncInferenceStepKey, ProjectFunction>> {
    const sagemakerRole = props.sagemakerExecutionRole;
    const settings: Readonly<Record<AsyncInferenceStepKey, RegisteredLambdaSettings>> = {
      // The planning's reads, and the manifest it writes under runs/<runId>/async/.
      validateAsyncRun: {
        lambda: { ...this.planning.lambda, writesArtifacts: [ArtifactPrefix.runs] },
        grant: this.planning.grant,
      },
      deployAsyncEndpoint: {
        grant: (fn) => {
          sagemaker.allowCreateEndpoint(fn);
          sagemakerRole.grantPassRole(fn.grantPrincipal);
        },
      },
      checkAsyncEndpoint: {
        grant: (fn) => {
          sagemaker.allowDescribeAnyEndpoint(fn);
          sagemaker.allowApplyScaling(fn);
        },
      },
      loadBatch: { lambda: { readsArtifacts: [ArtifactPrefix.runs] } },
      invokeAsyncInference: {
        grant: (fn) => {
          sagemaker.allowInvokeAsync(fn);
          grantTaskResponse(fn);
          this.allowTokenItems(fn, props.encryptionKey, [
            'dynamodb:PutItem',
            'dynamodb:GetItem',
            'dynamodb:DeleteItem',
            // The invocation's output and failure locations, once InvokeEndpointAsync returned.
            'dynamodb:UpdateItem',
          ]);
        },
      },
      recordBatchResults: {
        lambda: {
          // Reads back the whole failure reasons the notification Lambda kept there.
          readsArtifacts: [ArtifactPrefix.runs],
          writesArtifacts: [ArtifactPrefix.runs],
        },
      },
      summarizeAsyncRun: {
        lambda: {
          readsArtifacts: [ArtifactPrefix.runs],
          writesArtifacts: [ArtifactPrefix.runs],
          memorySize: 1024,
          timeout: Duration.minutes(5),
        },
        grant: (fn) => {
          sagemaker.allowObserveAsync(fn);
        },
      },
      cleanUpAsyncRun: {
        // After a failure, it reads the batches' recorded results back, to name them in the run's error.
        lambda: { timeout: Duration.minutes(10), readsArtifacts: [ArtifactPrefix.runs] },
        grant: (fn) => {
          sagemaker.allowCleanUp(fn);
          sagemaker.allowDeregisterScaling(fn);
        },
      },
    };
    return createRegisteredLambdas(ASYNC_INFERENCE_STEPS, settings, (name, options) =>
      props.lambdas.createStepLambda(name, {
        ...options,
        environment: {
          ...environment,
          [StepVariables.sagemakerExecutionRoleArn]: sagemakerRole.roleArn,
          ...options.environment,
        },
      }),
    );
  }
}

/** What the Lambdas call on the token table (lambdas/adapters/dynamodb-token-store.ts). */
type TokenTableAction =
  'dynamodb:GetItem' | 'dynamodb:PutItem' | 'dynamodb:UpdateItem' | 'dynamodb:DeleteItem' | 'dynamodb:Scan';

/** `actions` on `key`, only in requests `service` makes on the principal's behalf (kms:ViaService). */
function allowKeyUseThrough(
  principal: IGrantable,
  key: IKey,
  service: 'sns' | 'dynamodb',
  actions: readonly string[],
): void {
  principal.grantPrincipal.addToPrincipalPolicy(
    new PolicyStatement({
      effect: Effect.ALLOW,
      actions: [...actions],
      resources: [key.keyArn],
      conditions: { StringEquals: { 'kms:ViaService': `${service}.${Stack.of(key).region}.amazonaws.com` } },
    }),
  );
}

/** At least three heartbeat rounds per heartbeat timeout, and the heartbeat under the wait timeout. */
export function resolveHeartbeatInterval(
  interval: Duration | undefined,
  heartbeatTimeout: Duration,
  waitTimeout: Duration,
): Duration {
  const value = interval ?? Duration.minutes(5);
  const minutes = value.toMinutes({ integral: false });
  if (!Number.isInteger(minutes) || minutes < 1) {
    throw new Error(
      `AsyncInference heartbeatInterval: got ${value.toHumanString()}, expected whole minutes, at least 1`,
    );
  }
  if (value.toSeconds() * 3 > heartbeatTimeout.toSeconds()) {
    throw new Error(
      `AsyncInference heartbeatInterval: got ${value.toHumanString()}, expected at most a third of heartbeatTimeout (${heartbeatTimeout.toHumanString()}), so one missed round does not fail the waits`,
    );
  }
  if (heartbeatTimeout.toSeconds() >= waitTimeout.toSeconds()) {
    throw new Error(
      `AsyncInference heartbeatTimeout: got ${heartbeatTimeout.toHumanString()}, expected less than waitTimeout (${waitTimeout.toHumanString()})`,
    );
  }
  return value;
}
