import type { z } from 'zod';
import {
  type ApprovedModelRunTemplate,
  approvedModelRunTemplateSchema,
  withModel,
  type InputIssue,
  InvalidRunInputError,
  recordOf,
  describeGiven,
  toInputIssues,
} from '../contracts/index.js';
import { checkedRunInputSchema } from './run-input-check.js';

/**
 * The check of the Model Registry trigger's run template (core/contracts/approved-model-run-template.ts),
 * made at synth by the stack and at cold start by the trigger: the run input it makes must meet
 * every rule the first state's parse applies, those that consult the catalog included.
 */

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
  const parsed = approvedModelRunTemplateSchema.safeParse(document, { reportInput: true });
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
  const check = checkedRunInputSchema.safeParse(withModel(template, TEMPLATE_CHECK_MODEL), {
    reportInput: true,
  });
  if (!check.success) throw new InvalidRunInputError(issuesOf(check.error, 'input.'));
  return template;
}
