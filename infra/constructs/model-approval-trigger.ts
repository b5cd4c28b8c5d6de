import { Duration } from 'aws-cdk-lib';
import { Rule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import type {
  ApprovedModelRunTemplate,
  ApprovedModelRunTemplateDocument,
} from '../../core/contracts/index.js';
import { parseApprovedModelRunTemplate } from '../../core/planning/index.js';
import {
  APPROVED,
  MODEL_PACKAGE_GROUP_NAME,
  MODEL_PACKAGE_STATE_CHANGE,
  type InputIssue,
  InvalidRunInputError,
  SUPPORT_FUNCTIONS,
} from '../../core/contracts/index.js';
import { RunEventVariables } from '../../lambdas/index.js';
import type { StepLambdaFactory } from './step-lambda-factory.js';
import type { ProjectFunction } from './project-function.js';
import { throwOnLocalUris } from './run-schedules.js';
import { createDeadLetterQueue } from './schedule-settings.js';

/**
 * Lambda caps a function's environment at 4 KB, keys and values together (Lambda quotas); the
 * template travels in one variable, beside a dozen short ones.
 */
const MAX_TEMPLATE_JSON_LENGTH = 3000;

/** What a model package group name must be (MODEL_PACKAGE_GROUP_NAME), in words. */
export const MODEL_PACKAGE_GROUP_EXPECTED =
  'a model package group name: 1–63 letters, digits and dashes, starting and ending with a letter or digit';

/** Why a template's JSON must stay under MAX_TEMPLATE_JSON_LENGTH, and the fix. */
const TEMPLATE_LENGTH_EXPECTED =
  `at most ${MAX_TEMPLATE_JSON_LENGTH}: it travels in a Lambda environment variable (4 KB for all of them); ` +
  'leave out what has a default';

/**
 * Every issue of the trigger's template, as the construct checks it (the template's schema, no
 * local file, its JSON within the Lambda environment's room), with fields under `template`. The
 * config file check (infra/optimizer-config.ts) runs it before anything is built or bundled.
 */
export function modelApprovalTemplateIssues(document: unknown): InputIssue[] {
  let template: ApprovedModelRunTemplate;
  try {
    template = parseApprovedModelRunTemplate(document);
    throwOnLocalUris({ input: template.input });
  } catch (error) {
    if (!(error instanceof InvalidRunInputError)) throw error;
    return error.issues.map((issue) => ({ ...issue, field: `template.${issue.field}` }));
  }
  const length = JSON.stringify(template).length;
  if (length <= MAX_TEMPLATE_JSON_LENGTH) return [];
  return [{ field: 'template', given: `${length} characters of JSON`, expected: TEMPLATE_LENGTH_EXPECTED }];
}

export interface ModelApprovalTriggerProps {
  /** Creates the construct's Lambdas (the stack). */
  readonly lambdas: StepLambdaFactory;
  /** Model package groups whose approved versions are benchmarked (Model Registry group names). */
  readonly modelPackageGroups: readonly string[];
  /**
   * The run to start: `input` is an optimization run input without `model.artifactUri` (the
   * package's ModelDataUrl fills it); `fromPackage` lists what else the package's first container
   * fills (`image`, `framework` with its version), which `input` must then leave out. Checked at
   * synth: a template that cannot make a valid run fails `cdk synth`, naming the field.
   */
  readonly template: ApprovedModelRunTemplateDocument;
  /** The optimization state machine: the only one the trigger may start. */
  readonly stateMachine: IStateMachine;
  /**
   * Where events land that could not be delivered, or whose run could not be started after the
   * retries (e.g. the safety net's queue).
   * @default - a new SSE, TLS-only queue
   */
  readonly deadLetterQueue?: IQueue;
}

/**
 * The Model Registry trigger: an EventBridge rule on "SageMaker Model Package State
 * Change" events of the configured groups whose `ModelApprovalStatus` is `Approved` invokes the
 * `start-approved-model-run` Lambda, which starts an optimization run of that version named
 * `approved-<group>-v<version>` (see core/operations/start-approved-model-run.ts).
 *
 * The model data URL must be in the artifacts bucket: a package whose
 * model lives elsewhere starts a run that fails in its first state with the fix. Grants are not
 * widened here.
 */
export class ModelApprovalTrigger extends Construct {
  readonly startApprovedModelRun: ProjectFunction;
  readonly rule: Rule;
  readonly deadLetterQueue: IQueue;
  readonly template: ApprovedModelRunTemplate;

  constructor(scope: Construct, id: string, props: ModelApprovalTriggerProps) {
    super(scope, id);
    checkGroups(props.modelPackageGroups);
    this.template = parseTemplate(props.template);
    const templateJson = JSON.stringify(this.template);
    if (templateJson.length > MAX_TEMPLATE_JSON_LENGTH) {
      throw new Error(
        `ModelApprovalTrigger template: got ${templateJson.length} characters of JSON, expected ${TEMPLATE_LENGTH_EXPECTED}`,
      );
    }
    this.deadLetterQueue =
      props.deadLetterQueue ??
      createDeadLetterQueue(
        this,
        'DeadLetters',
        'model approval events that could not be delivered or could not start a run',
      );

    this.startApprovedModelRun = props.lambdas.createStepLambda(SUPPORT_FUNCTIONS.startApprovedModelRun, {
      description: 'Starts an optimization run of each approved model package version',
      environment: {
        [RunEventVariables.optimizationStateMachineArn]: props.stateMachine.stateMachineArn,
        [RunEventVariables.approvedModelRunTemplate]: templateJson,
      },
    });
    props.stateMachine.grantStartExecution(this.startApprovedModelRun);
    // EventBridge invokes asynchronously: Lambda retries a failed invocation twice, then the event
    // (with the error) goes to the queue, for replay once the cause is fixed.
    this.startApprovedModelRun.configureAsyncInvoke({
      retryAttempts: 2,
      onFailure: new SqsDestination(this.deadLetterQueue),
    });

    this.rule = new Rule(this, 'ApprovedVersionRule', {
      description: 'Approved versions of the configured model package groups → benchmark the version',
      eventPattern: {
        source: ['aws.sagemaker'],
        detailType: [MODEL_PACKAGE_STATE_CHANGE],
        detail: {
          ModelPackageGroupName: [...props.modelPackageGroups],
          ModelApprovalStatus: [APPROVED],
        },
      },
      targets: [
        new LambdaFunction(this.startApprovedModelRun, {
          deadLetterQueue: this.deadLetterQueue,
          // Delivery retries (throttling, Lambda unavailable): an approval is rare and worth a run.
          retryAttempts: 8,
          maxEventAge: Duration.hours(6),
        }),
      ],
    });
  }
}

function checkGroups(groups: readonly string[]): void {
  if (groups.length === 0) {
    throw new Error(
      'ModelApprovalTrigger modelPackageGroups: got none, expected at least one model package group name',
    );
  }
  groups.forEach((group, index) => {
    if (!MODEL_PACKAGE_GROUP_NAME.test(group)) {
      throw new Error(
        `ModelApprovalTrigger modelPackageGroups[${index}]: got ${JSON.stringify(group)}, expected ${MODEL_PACKAGE_GROUP_EXPECTED}`,
      );
    }
  });
}

function parseTemplate(document: ApprovedModelRunTemplateDocument): ApprovedModelRunTemplate {
  try {
    const template = parseApprovedModelRunTemplate(document);
    throwOnLocalUris({ input: template.input });
    return template;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`ModelApprovalTrigger template: ${message}`, { cause: error });
  }
}
