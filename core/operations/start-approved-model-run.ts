import { createHash } from 'node:crypto';
import { z } from 'zod';
import {
  type ApprovedModelRunTemplate,
  withModel,
  describeIssues,
  APPROVED,
  MODEL_PACKAGE_GROUP_NAME,
  MODEL_PACKAGE_STATE_CHANGE,
  toInputIssues,
} from '../contracts/index.js';
import { parseRunInput } from '../planning/index.js';
import type { Logger } from '../ports/index.js';

/**
 * The Model Registry trigger: an EventBridge rule sends the "SageMaker Model Package State Change"
 * event of every approved version of the configured model package groups here, and an
 * optimization run of that version starts, built from a configured template.
 *
 * The event (SageMaker developer guide, "Events that Amazon SageMaker AI sends to Amazon
 * EventBridge", model package state change): `source` "aws.sagemaker", `detail-type` "SageMaker
 * Model Package State Change", and a `detail` with the DescribeModelPackage fields:
 * `ModelPackageGroupName`, `ModelPackageVersion`, `ModelPackageArn`, `ModelApprovalStatus`
 * (Approved | Rejected | PendingManualApproval), `ModelPackageStatus` (Pending | InProgress |
 * Completed | Failed | Deleting) and `InferenceSpecification.Containers[]` with `Image`,
 * `ModelDataUrl`, `Framework`, `FrameworkVersion`. SageMaker may send several events for one
 * change (same guide), and EventBridge delivers at least once: the execution name is derived from
 * the package version, so a second delivery finds the run already started.
 *
 * The run input names the package version (`modelPackage`: group, version, ARN), so that
 * "Recommend" compares the run with the group's last approved one (report/registry-baseline.ts).
 *
 * The model data URL is used as it is. The run's first state reads it with the step Lambdas'
 * grants, which cover the artifacts bucket only: a package whose model data
 * lives elsewhere starts a run that fails in "Validate and plan", naming the field, the cause and
 * the fix (copy the model under `models/` of the artifacts bucket, or widen the grants).
 */

/** Step Functions execution names: 1–80 characters (StartExecution API reference). */
const MAX_EXECUTION_NAME = 80;

const containerSchema = z.looseObject({
  Image: z.string().optional(),
  ModelDataUrl: z.string().optional(),
  Framework: z.string().optional(),
  FrameworkVersion: z.string().optional(),
});

/** Only what this step reads; the rest of the event passes through unchecked. */
const modelPackageStateChangeSchema = z.object({
  source: z.literal('aws.sagemaker'),
  'detail-type': z.literal(MODEL_PACKAGE_STATE_CHANGE),
  detail: z.object({
    ModelPackageGroupName: z
      .string()
      .regex(MODEL_PACKAGE_GROUP_NAME, { message: 'a model package group name' }),
    // A number in SageMaker's events; a digit string is accepted from hand-written test events.
    ModelPackageVersion: z.union([
      z.int().positive(),
      z
        .string()
        .regex(/^[1-9]\d*$/)
        .transform(Number),
    ]),
    ModelPackageArn: z.string().min(1),
    ModelApprovalStatus: z.string().min(1),
    ModelPackageStatus: z.string().optional(),
    InferenceSpecification: z.looseObject({ Containers: z.array(containerSchema).default([]) }).optional(),
  }),
});

type ModelPackageStateChange = z.output<typeof modelPackageStateChangeSchema>;

/** The event's fields this step needs, or a TypeError naming each bad field, what it got and expected. */
export function parseModelPackageStateChange(event: unknown): ModelPackageStateChange {
  const parsed = modelPackageStateChangeSchema.safeParse(event, { reportInput: true });
  if (!parsed.success) {
    const issues = describeIssues(toInputIssues(parsed.error));
    throw new TypeError(
      `Not a SageMaker model package state change event: ${issues}. The EventBridge rule must match ` +
        `source "aws.sagemaker" and detail-type "${MODEL_PACKAGE_STATE_CHANGE}"`,
    );
  }
  return parsed.data;
}

/**
 * `approved-<group>-v<version>`: the same package version always gets the same execution name.
 * A group name too long for the 80-character limit is cut and followed by a hash of the whole
 * name, so two long groups sharing a prefix never collide.
 */
export function approvedRunName(groupName: string, version: number): string {
  const suffix = `-v${version}`;
  const full = `approved-${groupName}${suffix}`;
  if (full.length <= MAX_EXECUTION_NAME) return full;
  const hash = createHash('sha256').update(groupName).digest('hex').slice(0, 8);
  const room = MAX_EXECUTION_NAME - 'approved-'.length - suffix.length - hash.length - 1;
  return `approved-${groupName.slice(0, room).replace(/-+$/, '')}-${hash}${suffix}`;
}

/** Starts executions of one state machine (Step Functions StartExecution). */
export interface ExecutionStarter {
  /**
   * Starts an execution named `name`. An execution of that name that already exists is reported
   * as such, not thrown: a Standard execution name is taken for 90 days, and a second start with
   * the same name is a redelivery of the same event (StartExecution API reference).
   */
  start(request: {
    readonly name: string;
    readonly input: Readonly<Record<string, unknown>>;
  }): Promise<
    { readonly status: 'started'; readonly executionArn: string } | { readonly status: 'already-started' }
  >;
}

export interface StartApprovedModelRunDeps {
  readonly template: ApprovedModelRunTemplate;
  readonly starter: ExecutionStarter;
  readonly logger: Logger;
}

export type ApprovedModelRunOutcome =
  | { readonly outcome: 'ignored'; readonly modelPackageArn: string; readonly reason: string }
  | {
      readonly outcome: 'started';
      readonly modelPackageArn: string;
      readonly runId: string;
      readonly executionArn: string;
    }
  | { readonly outcome: 'already-started'; readonly modelPackageArn: string; readonly runId: string };

type PackageContainer = z.output<typeof containerSchema> & { readonly ModelDataUrl: string };

/** The container to benchmark, or why this event starts nothing. */
function containerToBenchmark(
  detail: ModelPackageStateChange['detail'],
): { readonly container: PackageContainer } | { readonly reason: string } {
  if (detail.ModelApprovalStatus !== APPROVED) {
    return {
      reason: `approval status is "${detail.ModelApprovalStatus}", expected "${APPROVED}": only approved versions are benchmarked`,
    };
  }
  // Absent in some events; when present, anything but Completed is a package not ready (or failed).
  if (detail.ModelPackageStatus !== undefined && detail.ModelPackageStatus !== 'Completed') {
    return {
      reason: `package status is "${detail.ModelPackageStatus}", expected "Completed": a later event reports the completed package`,
    };
  }
  const container = detail.InferenceSpecification?.Containers[0];
  if (container?.ModelDataUrl === undefined) {
    return {
      reason:
        'the first container of InferenceSpecification has no ModelDataUrl (a package without ' +
        'inference containers, or one whose model is an uncompressed ModelDataSource prefix): the ' +
        'optimizer needs a model file or model.tar.gz to benchmark',
    };
  }
  return { container: { ...container, ModelDataUrl: container.ModelDataUrl } };
}

/**
 * Starts the optimization run of an approved model package version, or explains (in the log and
 * the result) why the event starts nothing. A run input the package makes invalid (e.g. a
 * framework the optimizer does not know) throws `InvalidRunInputError`: the failed invocation ends
 * in the trigger's dead-letter queue, with the event, for replay once the template is fixed.
 */
export async function startApprovedModelRun(
  event: unknown,
  deps: StartApprovedModelRunDeps,
): Promise<ApprovedModelRunOutcome> {
  const { detail } = parseModelPackageStateChange(event);
  const modelPackageArn = detail.ModelPackageArn;
  const found = containerToBenchmark(detail);
  if ('reason' in found) {
    deps.logger.info('Model package event ignored', { modelPackageArn, reason: found.reason });
    return { outcome: 'ignored', modelPackageArn, reason: found.reason };
  }
  const { container } = found;

  const runId = approvedRunName(detail.ModelPackageGroupName, detail.ModelPackageVersion);
  const document = withModel(deps.template, {
    artifactUri: container.ModelDataUrl,
    ...(container.Image === undefined ? {} : { image: container.Image }),
    ...(container.Framework === undefined ? {} : { framework: container.Framework.toLowerCase() }),
    ...(container.FrameworkVersion === undefined ? {} : { frameworkVersion: container.FrameworkVersion }),
  });
  // What the run measures: "Recommend" compares it with the group's last approved version.
  document.modelPackage = {
    groupName: detail.ModelPackageGroupName,
    version: detail.ModelPackageVersion,
    arn: modelPackageArn,
  };
  if (document.name === undefined) {
    document.name = `Model package ${detail.ModelPackageGroupName} v${detail.ModelPackageVersion} (approved)`;
  }
  try {
    parseRunInput(document);
  } catch (error) {
    deps.logger.error('The approved package makes an invalid run input', { modelPackageArn, runId });
    throw error;
  }

  const started = await deps.starter.start({ name: runId, input: document });
  if (started.status === 'already-started') {
    deps.logger.info('Run of this package version already started', { modelPackageArn, runId });
    return { outcome: 'already-started', modelPackageArn, runId };
  }
  deps.logger.info('Run of the approved package version started', {
    modelPackageArn,
    runId,
    executionArn: started.executionArn,
  });
  return { outcome: 'started', modelPackageArn, runId, executionArn: started.executionArn };
}
