import { Arn, ArnFormat, Duration, Stack } from 'aws-cdk-lib';
import { Rule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { EXECUTION_STATUS_CHANGE, RUN_END_STATUSES, SUPPORT_FUNCTIONS } from '../../core/contracts/index.js';
import { RunEventVariables } from '../../lambdas/index.js';
import {
  acknowledgeGuardRule,
  acknowledgeWildcardAction,
  acknowledgeWildcardResource,
  KMS_CREATE_GRANT_RULE,
  KMS_CREATE_GRANT_REASON,
} from '../nag/index.js';
import type { StepLambdaFactory } from './step-lambda-factory.js';
import type { ProjectFunction } from './project-function.js';
import { createDeadLetterQueue } from './schedule-settings.js';

export interface RunNotificationsProps {
  /** Creates the construct's Lambdas (the stack). */
  readonly lambdas: StepLambdaFactory;
  readonly optimization: IStateMachine;
  /** @default - only the optimization workflow's runs are summarised */
  readonly asyncInference?: IStateMachine;
  /**
   * Email addresses subscribed to the topic; each receives a confirmation mail first.
   * @default - none (subscribe later, or filter on the `status` and `workflow` attributes)
   */
  readonly emailSubscriptions?: readonly string[];
  /**
   * Where events land that could not be delivered, or whose summary could not be published after
   * the retries (e.g. the safety net's queue).
   * @default - a new SSE, TLS-only queue
   */
  readonly deadLetterQueue?: IQueue;
}

/**
 * Run summaries: an SNS topic that receives a short, readable summary of every execution of the
 * project's state machines that ends, SUCCEEDED, FAILED, TIMED_OUT or ABORTED: an EventBridge rule
 * on "Step Functions Execution Status Change" sends those to the `notify-run-summary` Lambda, which
 * describes the execution and publishes (see core/operations/notify-run-summary.ts). Messages
 * carry the `status` and `workflow` attributes, for subscription filter policies.
 *
 * The topic has its own customer-managed key rather than the artifacts key: CloudWatch alarms
 * publish to it too (operations-dashboard.ts), which needs the CloudWatch service in the key
 * policy, and the artifacts key's policy stays as narrow as the bucket's grants. TLS is required
 * of every publisher (AwsSolutions-SNS3).
 */
export class RunNotifications extends Construct {
  readonly topic: Topic;
  readonly topicKey: Key;
  readonly notifyRunSummary: ProjectFunction;
  readonly rule: Rule;
  readonly deadLetterQueue: IQueue;

  constructor(scope: Construct, id: string, props: RunNotificationsProps) {
    super(scope, id);
    const stateMachines = [
      props.optimization,
      ...(props.asyncInference === undefined ? [] : [props.asyncInference]),
    ];

    this.topicKey = new Key(this, 'TopicKey', {
      description: 'Encrypts the run-summary topic: run summaries and operations alarms',
      enableKeyRotation: true,
    });
    acknowledgeGuardRule(this.topicKey, KMS_CREATE_GRANT_RULE, KMS_CREATE_GRANT_REASON);
    // CloudWatch alarm actions publish to an encrypted topic only if the key lets the CloudWatch
    // service use it (Amazon SNS developer guide, "Configure KMS permissions for AWS services").
    this.topicKey.addToResourcePolicy(
      new PolicyStatement({
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
      }),
    );
    this.topic = new Topic(this, 'Topic', {
      displayName: 'Model serving optimizer runs',
      masterKey: this.topicKey,
      enforceSSL: true,
    });
    for (const address of props.emailSubscriptions ?? []) {
      this.topic.addSubscription(new EmailSubscription(address));
    }

    this.deadLetterQueue =
      props.deadLetterQueue ??
      createDeadLetterQueue(
        this,
        'DeadLetters',
        'run-end events that could not be delivered or whose summary could not be published',
      );

    this.notifyRunSummary = props.lambdas.createStepLambda(SUPPORT_FUNCTIONS.notifyRunSummary, {
      description: 'Publishes the summary of each run that ends to the run-summary topic',
      environment: {
        [RunEventVariables.runSummaryTopicArn]: this.topic.topicArn,
        [RunEventVariables.optimizationStateMachineArn]: props.optimization.stateMachineArn,
        ...(props.asyncInference === undefined
          ? {}
          : { [RunEventVariables.asyncInferenceStateMachineArn]: props.asyncInference.stateMachineArn }),
      },
    });
    this.topic.grantPublish(this.notifyRunSummary);
    acknowledgeWildcardAction(
      this.notifyRunSummary.serviceRole,
      'kms:GenerateDataKey*',
      'SNS encrypts each published message with a data key of the topic key: the grant is on that one key',
    );
    for (const stateMachine of stateMachines) {
      const executions = executionsOf(stateMachine);
      this.notifyRunSummary.addToRolePolicy(
        new PolicyStatement({ actions: ['states:DescribeExecution'], resources: [executions] }),
      );
      acknowledgeWildcardResource(
        this.notifyRunSummary.serviceRole,
        executions,
        'Execution ARNs are known only when a run ends: the grant covers the executions of one project state machine',
      );
    }
    // EventBridge invokes asynchronously: Lambda retries a failed invocation twice, then the event
    // goes to the queue with the error.
    this.notifyRunSummary.configureAsyncInvoke({
      retryAttempts: 2,
      onFailure: new SqsDestination(this.deadLetterQueue),
    });

    this.rule = new Rule(this, 'RunEndedRule', {
      description: 'Executions of the project state machines that end → publish their summary',
      eventPattern: {
        source: ['aws.states'],
        detailType: [EXECUTION_STATUS_CHANGE],
        detail: {
          status: [...RUN_END_STATUSES],
          stateMachineArn: stateMachines.map((stateMachine) => stateMachine.stateMachineArn),
        },
      },
      targets: [
        new LambdaFunction(this.notifyRunSummary, {
          deadLetterQueue: this.deadLetterQueue,
          retryAttempts: 8,
          maxEventAge: Duration.hours(6),
        }),
      ],
    });
  }
}

/** `arn:aws:states:<region>:<account>:execution:<state machine name>:*`: every execution of it. */
export function executionsOf(stateMachine: IStateMachine): string {
  const stack = Stack.of(stateMachine);
  const name = Arn.split(stateMachine.stateMachineArn, ArnFormat.COLON_RESOURCE_NAME).resourceName;
  return stack.formatArn({
    service: 'states',
    resource: 'execution',
    resourceName: `${name}:*`,
    arnFormat: ArnFormat.COLON_RESOURCE_NAME,
  });
}
