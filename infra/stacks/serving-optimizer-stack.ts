import { StepVariables } from '../../lambdas/index.js';
import { AspectPriority, Aspects, CfnOutput, Stack } from 'aws-cdk-lib';
import type { StackProps } from 'aws-cdk-lib';
import type { Role } from 'aws-cdk-lib/aws-iam';
import type { Key } from 'aws-cdk-lib/aws-kms';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import type { Construct, IConstruct } from 'constructs';
import type {
  ArtifactsStoreProps,
  StepLambdaFactory,
  StepLambdaOptions,
  JanitorSettings,
} from '../constructs/index.js';
import {
  ArtifactsStore,
  ProjectFunction,
  SageMakerExecutionRole,
  createOptimizationSteps,
  RESOURCE_CREATING_STEPS,
  SafetyNet,
  AsyncInference,
  type AsyncInferenceSettings,
  ModelApprovalTrigger,
  type ModelApprovalTriggerProps,
  OperationsDashboard,
  type ApiLogging,
  RunApi,
  type RunApiThrottling,
  ScopeServiceInvocationsToAccount,
  RunNotifications,
  type RunScheduleSettings,
  RunSchedules,
} from '../constructs/index.js';
import { OptimizationWorkflow } from '../../workflows/index.js';
import { acknowledgeGuardRule, acknowledgeWildcardResource } from '../nag/index.js';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';

export interface ServingOptimizerStackProps extends StackProps {
  /** Removal policy and lifecycle of the artifacts store. @default - see ArtifactsStoreProps */
  readonly artifacts?: ArtifactsStoreProps;
  /**
   * Directory of the step Lambdas' entry files (tests point it at fixtures).
   * @default the repository's `lambdas/`
   */
  readonly lambdaEntryDirectory?: string;
  /**
   * Whether to add the workflows (tests of the foundation alone, with fixture entries, turn it off).
   * @default true
   */
  readonly includeWorkflows?: boolean;
  /**
   * The janitor of the safety net (deployed with the workflows): its maximum age, schedule, time
   * zone and whether it runs.
   * @default - every 6 hours, sweeping resources older than the longer execution timeout plus one hour (49 h)
   */
  readonly janitor?: JanitorSettings;
  /**
   * The async-inference workflow's waits and heartbeats (deployed with the workflows).
   * @default - waits of 7 h 15 min, heartbeats every 5 minutes with a 15-minute heartbeat timeout
   */
  readonly asyncInference?: AsyncInferenceSettings;
  /**
   * EventBridge Scheduler schedules that start runs, each with its input (checked at synth).
   * @default - none
   */
  readonly schedules?: readonly RunScheduleSettings[];
  /**
   * Benchmark each model version approved in these Model Registry groups, with a run template.
   * @default - no trigger
   */
  readonly modelApproval?: Omit<ModelApprovalTriggerProps, 'lambdas' | 'stateMachine' | 'deadLetterQueue'>;
  /** Email addresses subscribed to the run-summary and alarm topic (each confirms by mail). @default - none */
  readonly notificationEmails?: readonly string[];
  /**
   * The run API's CloudWatch logging, which depends on API Gateway's account-wide CloudWatch Logs
   * role (docs/deploying.md; CDK context `apiLogging`).
   * @default ApiLoggingModes.off
   */
  readonly apiLogging?: ApiLogging;
  /** The run API stage's throttling. @default DEFAULT_RUN_API_THROTTLING (10 requests/s, bursts of 20) */
  readonly apiThrottling?: RunApiThrottling;
}

/**
 * The AWS side of the optimizer: the artifacts store, the role SageMaker assumes, and a factory for
 * the step Lambdas that the optimization state machine invokes.
 */
export class ServingOptimizerStack extends Stack implements StepLambdaFactory {
  readonly artifacts: ArtifactsStore;
  readonly artifactsBucket: Bucket;
  readonly encryptionKey: Key;
  readonly sagemakerExecutionRole: Role;
  /** The optimization state machine, unless `includeWorkflows` is false. */
  readonly optimization?: OptimizationWorkflow;
  /** The async-inference state machine with its topics and token table, unless `includeWorkflows` is false. */
  readonly asyncInference?: AsyncInference;
  /** Clean-up of failed runs and the janitor, unless `includeWorkflows` is false. */
  readonly safetyNet?: SafetyNet;
  /** Run summaries and alarms (one SNS topic), unless `includeWorkflows` is false. */
  readonly runNotifications?: RunNotifications;
  readonly runSchedules?: RunSchedules;
  readonly modelApprovalTrigger?: ModelApprovalTrigger;
  readonly operationsDashboard?: OperationsDashboard;
  /** The IAM-authenticated REST API that starts and follows runs, unless `includeWorkflows` is false. */
  readonly runApi?: RunApi;
  private readonly lambdaEntryDirectory: string | undefined;

  constructor(scope: Construct, id: string, props: ServingOptimizerStackProps = {}) {
    super(scope, id, {
      ...props,
      description:
        props.description ??
        'Model serving optimizer: benchmarks SageMaker serving configurations under a latency SLA',
    });
    this.lambdaEntryDirectory = props.lambdaEntryDirectory;
    // Mutating: it edits the Lambda permissions other constructs wrote, before validation reads them.
    Aspects.of(this).add(new ScopeServiceInvocationsToAccount(), { priority: AspectPriority.MUTATING });

    this.artifacts = new ArtifactsStore(this, 'Artifacts', props.artifacts);
    this.artifactsBucket = this.artifacts.bucket;
    this.encryptionKey = this.artifacts.encryptionKey;
    this.sagemakerExecutionRole = new SageMakerExecutionRole(this, 'SageMakerExecution', {
      artifacts: this.artifacts,
    }).role;

    new CfnOutput(this, 'ArtifactsBucketName', {
      description: 'Upload models under models/; each run writes under runs/<runId>/',
      value: this.artifactsBucket.bucketName,
    });
    new CfnOutput(this, 'SageMakerExecutionRoleArn', { value: this.sagemakerExecutionRole.roleArn });

    if (props.includeWorkflows !== false) {
      const workflows = this.addWorkflows(props);
      this.optimization = workflows.optimization;
      this.asyncInference = workflows.asyncInference;
      this.safetyNet = workflows.safetyNet;
      this.runApi = new RunApi(this, 'RunApi', {
        lambdas: this,
        optimization: workflows.optimization.stateMachine,
        asyncInference: workflows.asyncInference.workflow.stateMachine,
        asyncPlanning: workflows.asyncInference.planning,
        ...(props.apiLogging === undefined ? {} : { logging: props.apiLogging }),
        ...(props.apiThrottling === undefined ? {} : { throttling: props.apiThrottling }),
      });
      const operations = this.addOperations(props, workflows);
      this.runNotifications = operations.runNotifications;
      this.runSchedules = operations.runSchedules;
      this.modelApprovalTrigger = operations.modelApprovalTrigger;
      this.operationsDashboard = operations.operationsDashboard;
    }
  }

  /** The two state machines, their Lambdas and the second layer of clean-up. */
  private addWorkflows(props: ServingOptimizerStackProps) {
    const steps = createOptimizationSteps(this, {
      lambdas: this,
      sagemakerExecutionRole: this.sagemakerExecutionRole,
    });
    const optimization = new OptimizationWorkflow(this, 'Optimization', { steps });
    acknowledgeStateMachineGrants(optimization.stateMachine, Object.values(steps));
    acknowledgeExecutionLogRetention(optimization);
    const asyncInference = new AsyncInference(this, 'AsyncInference', {
      lambdas: this,
      encryptionKey: this.encryptionKey,
      sagemakerExecutionRole: this.sagemakerExecutionRole,
      ...(props.asyncInference === undefined ? {} : { settings: props.asyncInference }),
    });
    acknowledgeStateMachineGrants(asyncInference.workflow.stateMachine, asyncInference.steps);
    acknowledgeExecutionLogRetention(asyncInference.workflow);
    const safetyNet = new SafetyNet(this, 'SafetyNet', {
      lambdas: this,
      stateMachine: optimization.stateMachine,
      asyncStateMachine: asyncInference.workflow.stateMachine,
      executionTimeout: optimization.timeout,
      asyncExecutionTimeout: asyncInference.workflow.timeout,
      janitor: props.janitor,
      resourceCreatingSteps: this.node.children.filter(
        (child): child is ProjectFunction =>
          child instanceof ProjectFunction &&
          (RESOURCE_CREATING_STEPS as readonly string[]).includes(child.stepName),
      ),
    });
    new CfnOutput(this, 'OptimizationStateMachineArn', {
      description: 'Start a run with an input from examples/ (the execution name is the run id)',
      value: optimization.stateMachine.stateMachineArn,
    });
    new CfnOutput(this, 'AsyncInferenceStateMachineArn', {
      description: 'Start an async run with examples/async-batch.json (the execution name is the run id)',
      value: asyncInference.workflow.stateMachine.stateMachineArn,
    });
    new CfnOutput(this, 'AsyncSuccessTopicArn', {
      description: 'SuccessTopic of a reused async endpoint’s NotificationConfig must be this topic',
      value: asyncInference.successTopic.topicArn,
    });
    new CfnOutput(this, 'AsyncErrorTopicArn', {
      description: 'ErrorTopic of a reused async endpoint’s NotificationConfig must be this topic',
      value: asyncInference.errorTopic.topicArn,
    });
    new CfnOutput(this, 'AsyncTopicsKeyArn', {
      description:
        'A reused async endpoint’s role needs kms:GenerateDataKey and kms:Decrypt on this key, via SNS',
      value: this.encryptionKey.keyArn,
    });
    return { optimization, asyncInference, safetyNet };
  }

  /** Triggers (schedules, Model Registry approvals), run summaries, the dashboard and its alarms. */
  private addOperations(
    props: ServingOptimizerStackProps,
    workflows: { optimization: OptimizationWorkflow; asyncInference: AsyncInference; safetyNet: SafetyNet },
  ) {
    const optimization = workflows.optimization.stateMachine;
    const asyncInference = workflows.asyncInference.workflow.stateMachine;
    // One dead-letter queue for every rule and schedule target: one alarm watches it.
    const deadLetterQueue = workflows.safetyNet.deadLetterQueue;
    const runNotifications = new RunNotifications(this, 'RunNotifications', {
      lambdas: this,
      optimization,
      asyncInference,
      deadLetterQueue,
      ...(props.notificationEmails === undefined ? {} : { emailSubscriptions: props.notificationEmails }),
    });
    const runSchedules =
      props.schedules === undefined || props.schedules.length === 0
        ? undefined
        : new RunSchedules(this, 'RunSchedules', {
            schedules: props.schedules,
            optimization,
            asyncInference,
            deadLetterQueue,
            artifactsBucketName: this.artifactsBucket.bucketName,
          });
    const modelApprovalTrigger =
      props.modelApproval === undefined
        ? undefined
        : new ModelApprovalTrigger(this, 'ModelApproval', {
            ...props.modelApproval,
            lambdas: this,
            stateMachine: optimization,
            deadLetterQueue,
          });
    const operationsDashboard = new OperationsDashboard(this, 'Operations', {
      stateMachines: [
        { label: 'Optimization', stateMachine: optimization },
        { label: 'AsyncInference', stateMachine: asyncInference },
        {
          label: 'FailedRunCleanUp',
          stateMachine: workflows.safetyNet.failedRunCleanUp.stateMachine,
          failedAlarmDescription:
            'FailedRunCleanUp: the clean-up of a failed run gave up after about two hours of retries. The ' +
            'execution’s cause lists what is left, why, and the commands that delete it.',
        },
      ],
      functions: this.node.children.filter(
        (child): child is ProjectFunction => child instanceof ProjectFunction,
      ),
      asyncNotificationFunction: workflows.asyncInference.notificationHandler,
      ...(modelApprovalTrigger === undefined
        ? {}
        : { approvalTriggerFunction: modelApprovalTrigger.startApprovedModelRun }),
      deadLetterQueues: [deadLetterQueue, workflows.asyncInference.deadLetterQueue],
      alarmTopic: runNotifications.topic,
    });
    // The janitor's alarm goes where every other alarm goes.
    workflows.safetyNet.janitorAlarm.addAlarmAction(new SnsAction(runNotifications.topic));
    new CfnOutput(this, 'RunNotificationsTopicArn', {
      description: 'Run summaries (attributes status, workflow) and alarms: subscribe here',
      value: runNotifications.topic.topicArn,
    });
    return { runNotifications, runSchedules, modelApprovalTrigger, operationsDashboard };
  }

  /**
   * One Lambda per registered name (core/contracts/functions.ts), e.g.
   * `createStepLambda('deploy-candidate', { readsArtifacts: ['runs/'] })`: entry
   * `lambdas/deploy-candidate.ts`, construct id `DeployCandidate`, the bucket name in
   * `ARTIFACTS_BUCKET`, and only the artifact grants asked for. Constructs reach it through the
   * StepLambdaFactory interface, never through this class.
   */
  createStepLambda(stepName: string, options: StepLambdaOptions = {}): ProjectFunction {
    const { readsArtifacts, writesArtifacts, environment, ...functionProps } = options;
    const fn = new ProjectFunction(this, pascalCase(stepName), {
      ...functionProps,
      stepName,
      entryDirectory: this.lambdaEntryDirectory,
      environment: { ...environment, [StepVariables.artifactsBucket]: this.artifactsBucket.bucketName },
    });
    if (readsArtifacts !== undefined && readsArtifacts.length > 0) {
      this.artifacts.grantRead(fn, ...readsArtifacts);
    }
    if (writesArtifacts !== undefined && writesArtifacts.length > 0) {
      this.artifacts.grantWrite(fn, ...writesArtifacts);
    }
    return fn;
  }
}

/** The wildcards CDK itself writes into a state machine's role; each with why it is acceptable. */
function acknowledgeStateMachineGrants(
  stateMachine: StateMachine,
  stepFunctions: readonly IFunction[],
): void {
  for (const fn of stepFunctions) {
    acknowledgeWildcardResource(
      stateMachine.role,
      `${fn.functionArn}:*`,
      'CDK grants invoke on the step Lambda and its versions/aliases; these are the workflow’s own functions',
    );
  }
  acknowledgeWildcardResource(
    stateMachine.role,
    '*',
    'X-Ray PutTraceSegments/GetSampling* and CloudWatch Logs delivery actions support no resource-level scoping',
  );
}

/**
 * The retention of a workflow's execution logs (workflows/lambda-step.ts writes the log group beside
 * the state machine, as `ExecutionLogs`).
 */
function acknowledgeExecutionLogRetention(workflow: IConstruct): void {
  const logs = workflow.node.tryFindChild('ExecutionLogs');
  if (logs === undefined) return;
  acknowledgeGuardRule(
    logs,
    'cloudwatch_log_group_retention_period_check',
    'Execution logs (errors, without execution data) serve debugging of recent runs; each run’s report ' +
      'in S3 and the API access logs are the lasting record.',
  );
}

/** `deploy-candidate` → `DeployCandidate`. */
function pascalCase(kebab: string): string {
  return kebab
    .split('-')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
}
