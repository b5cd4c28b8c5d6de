import { z } from 'zod';

/**
 * The SageMaker Model Registry package version a run measures (`modelPackage` in the run input).
 * The Model Registry trigger fills it (core/operations/start-approved-model-run.ts); "Recommend" then
 * compares the run with the run of the group's last approved version that has a report
 * (core/report/registry-baseline.ts). Any run may carry it, e.g. a CI
 * job that benchmarks a version before approving it, or a local run (`npm start`).
 */

/** Model package group names: `EntityName` in the SageMaker API model (1–63 characters). */
export const MODEL_PACKAGE_GROUP_NAME = /^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$/;

/**
 * Model package ARNs: `ModelPackageArn` in the SageMaker API model (aws/api-models-aws,
 * sagemaker-2017-07-24.json), 1–2048 characters.
 */
export const MODEL_PACKAGE_ARN =
  /^arn:aws(-cn|-us-gov|-iso-f)?:sagemaker:[a-z0-9-]{9,16}:[0-9]{12}:model-package\/\S{1,2048}$/;

/**
 * The EventBridge event SageMaker sends when a model package version changes (SageMaker developer
 * guide, "Events that Amazon SageMaker AI sends to Amazon EventBridge"): its `detail-type`, and the
 * `ModelApprovalStatus` whose versions the Model Registry trigger benchmarks.
 */
export const MODEL_PACKAGE_STATE_CHANGE = 'SageMaker Model Package State Change';
export const APPROVED = 'Approved';

export const modelPackageSchema = z.strictObject({
  groupName: z.string().regex(MODEL_PACKAGE_GROUP_NAME, {
    message: 'a model package group name (1–63 letters, digits and single hyphens inside)',
  }),
  /** `ModelPackageVersion`: an integer from 1 (SageMaker API model). */
  version: z.int().min(1, { message: 'a model package version: an integer from 1' }),
  arn: z.string().max(2048).regex(MODEL_PACKAGE_ARN, {
    message: 'a model package ARN, arn:aws:sagemaker:<region>:<account>:model-package/<group>/<version>',
  }),
});

export type ModelPackageRef = z.output<typeof modelPackageSchema>;
