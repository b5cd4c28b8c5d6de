import { z } from 'zod';
import { type InputIssue, InvalidRunInputError } from './errors.js';
import { recordOf } from './records.js';
import { runInputSchema } from './run-input.js';
import { describeGiven, toInputIssues } from './validation.js';

/**
 * The Model Registry trigger's run template: an optimization run input without the model data,
 * and what else each approved package version fills (core/operations/start-approved-model-run.ts
 * starts the run). The stack checks it at synth and the trigger at cold start, with the same
 * parse.
 */

/**
 * Fields of the run's `model` that the package's first container can fill, besides its model data.
 * Its `Image` becomes `model.image`, which serves the uncompiled candidates only: compiled ones run
 * on the image their compilation job names (core/catalog/images.ts).
 */
export const PACKAGE_FIELDS = ['image', 'framework'] as const;
export type PackageField = (typeof PACKAGE_FIELDS)[number];

/**
 * Stand-ins for what only the package knows, used to check a template before any package exists
 * (at synth and at cold start): a model in the artifacts bucket's `models/`, an ECR image and the
 * ONNX framework. The run itself always gets the package's own values.
 */
const TEMPLATE_CHECK_MODEL = {
  artifactUri: 's3://artifacts-bucket/models/approved-model/model.tar.gz',
  image: '123456789012.dkr.ecr.us-east-1.amazonaws.com/serving:1',
  framework: 'onnx',
} as const;

const templateSchema = z.strictObject({
  /** The optimization run input, without `model.artifactUri`. */
  input: z.record(z.string(), z.unknown(), { message: 'a run input object' }),
  /** What the package provides besides its model data; the template must then leave it out. */
  fromPackage: z.array(z.enum(PACKAGE_FIELDS)).default([]),
});

/** The template as configured (a CDK prop, then a Lambda environment variable). */
export type ApprovedModelRunTemplateDocument = z.input<typeof templateSchema>;

export interface ApprovedModelRunTemplate {
  readonly input: Readonly<Record<string, unknown>>;
  readonly fromPackage: readonly PackageField[];
}

function issuesOf(error: z.ZodError, prefix = ''): InputIssue[] {
  return toInputIssues(error).map((issue) => ({ ...issue, field: `${prefix}${issue.field}` }));
}

/**
 * Checks a template: its shape, that it leaves out what the package fills, and that it makes a
 * valid run input once the package's values are in (checked with stand-ins). Throws
 * `InvalidRunInputError` naming each field of the template (`input.…`, `fromPackage…`), what it
 * got and what it expected.
 */
export function parseApprovedModelRunTemplate(document: unknown): ApprovedModelRunTemplate {
  const parsed = templateSchema.safeParse(document, { reportInput: true });
  if (!parsed.success) throw new InvalidRunInputError(issuesOf(parsed.error));
  const template: ApprovedModelRunTemplate = parsed.data;
  const model = recordOf(template.input.model) ?? {};
  const filled: readonly (readonly [string, boolean])[] = [
    ['artifactUri', true],
    ['image', template.fromPackage.includes('image')],
    ['framework', template.fromPackage.includes('framework')],
    ['frameworkVersion', template.fromPackage.includes('framework')],
  ];
  const conflicts: InputIssue[] = filled
    .filter(([field, fromPackage]) => fromPackage && model[field] !== undefined)
    .map(([field]) => ({
      field: `input.model.${field}`,
      given: describeGiven(model[field]),
      expected: `nothing: the approved package's ${field === 'artifactUri' ? 'ModelDataUrl' : `container ${field}`} fills it`,
    }));
  if (template.input.modelPackage !== undefined) {
    conflicts.push({
      field: 'input.modelPackage',
      given: describeGiven(template.input.modelPackage),
      expected: 'nothing: the approved package fills it with its group, version and ARN',
    });
  }
  if (conflicts.length > 0) throw new InvalidRunInputError(conflicts);
  const check = runInputSchema.safeParse(withModel(template, TEMPLATE_CHECK_MODEL), { reportInput: true });
  if (!check.success) throw new InvalidRunInputError(issuesOf(check.error, 'input.'));
  return template;
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
