import { z } from 'zod';
import { recordOf } from './records.js';

/**
 * The Model Registry trigger's run template: an optimization run input without the model data,
 * and what else each approved package version fills (core/operations/start-approved-model-run.ts
 * starts the run). The stack checks it at synth and the trigger at cold start, with the same
 * check (core/planning/approved-model-template-check.ts).
 */

/**
 * Fields of the run's `model` that the package's first container can fill, besides its model data.
 * Its `Image` becomes `model.image`, which serves the uncompiled candidates only: compiled ones run
 * on the image their compilation job names (core/catalog/images.ts).
 */
export const PACKAGE_FIELDS = ['image', 'framework'] as const;
export type PackageField = (typeof PACKAGE_FIELDS)[number];

export const approvedModelRunTemplateSchema = z.strictObject({
  /** The optimization run input, without `model.artifactUri`. */
  input: z.record(z.string(), z.unknown(), { message: 'a run input object' }),
  /** What the package provides besides its model data; the template must then leave it out. */
  fromPackage: z.array(z.enum(PACKAGE_FIELDS)).default([]),
});

/** The template as configured (a CDK prop, then a Lambda environment variable). */
export type ApprovedModelRunTemplateDocument = z.input<typeof approvedModelRunTemplateSchema>;

export interface ApprovedModelRunTemplate {
  readonly input: Readonly<Record<string, unknown>>;
  readonly fromPackage: readonly PackageField[];
}

/** What the package gives the run's `model`; only the fields the template takes from it are used. */
export interface PackageModel {
  readonly artifactUri: string;
  readonly image?: string;
  readonly framework?: string;
  readonly frameworkVersion?: string;
}

export function withModel(
  template: ApprovedModelRunTemplate,
  fromPackage: PackageModel,
): Record<string, unknown> {
  const model: Record<string, unknown> = { ...recordOf(template.input.model) };
  model.artifactUri = fromPackage.artifactUri;
  if (template.fromPackage.includes('image') && fromPackage.image !== undefined) {
    model.image = fromPackage.image;
  }
  if (template.fromPackage.includes('framework')) {
    if (fromPackage.framework !== undefined) model.framework = fromPackage.framework;
    if (fromPackage.frameworkVersion !== undefined) model.frameworkVersion = fromPackage.frameworkVersion;
  }
  return { ...template.input, model };
}
