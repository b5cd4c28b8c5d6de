import {
  baseFrameworkOf,
  huggingfaceVersionProblem,
  familyOf,
  NEO_TARGET_FAMILIES_NOT_PLANNED,
  findInstance,
  neoTargetOf,
} from '../catalog/index.js';
import {
  COMPILATION_TARGETS,
  COMPILATION_TARGET_EXPECTED,
  type FieldIssue,
  type FrameworkFields,
  type RunInput,
  type RunInputFields,
  runInputSchemaWith,
  parseOrThrow,
} from '../contracts/index.js';
import { llmInputIssues } from './llm-input.js';

/**
 * The run input's rules that consult the catalog: which instance types SageMaker hosting takes,
 * which Neo target each runs, which Hugging Face DLCs the image table has, what each LLM container
 * reads. The floor's schema (core/contracts/run-input.ts) holds the input's shape and the rules that
 * need nothing else; `checkedRunInputSchema` is that schema with these rules, so one parse reports
 * every issue of both. The first state, the run API, the approval trigger, the schedules' synth check,
 * the CLIs and the client all parse with it, so each refuses an input with the same issues.
 */

/**
 * A Hugging Face model's versions against the image table: a transformers version with a DLC, over
 * a PyTorch or TensorFlow version that DLC is built on. An explicit `image` names the image itself.
 * Paths are relative to the model's object (`model` or `endpoint`).
 */
export function huggingfaceVersionIssues(model: FrameworkFields): FieldIssue[] {
  const base = baseFrameworkOf(model);
  if (model.image !== undefined || model.frameworkVersion === undefined || base === undefined) return [];
  const problem = huggingfaceVersionProblem(model.frameworkVersion, base);
  if (problem === undefined) return [];
  return [{ path: [problem.field], message: problem.expected, given: model[problem.field] }];
}

type ListedInput = Omit<RunInputFields, 'candidates'> & { readonly candidates: RunInput['candidates'] };

/** Each listed candidate's instance type against the catalog, and its compiled artifact against both. */
function candidateIssues(input: ListedInput): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const issue = (path: PropertyKey[], message: string, given: unknown): void => {
    issues.push({ path, message, given });
  };
  input.candidates.forEach((candidate, index) => {
    if (!('instanceType' in candidate)) return;
    const known = findInstance(candidate.instanceType);
    // A type SageMaker hosting accepts is priced at planning (the input, the live Price List on
    // AWS, the recorded table), which refuses it only when none prices it. A type the catalog
    // does not know has neither facts nor a recorded row: the input must price it.
    if (known === undefined && input.pricing.usdPerHour[candidate.instanceType] === undefined) {
      issue(
        ['candidates', index, 'instanceType'],
        `a SageMaker hosting instance type (ProductionVariantInstanceType), or a price in pricing.usdPerHour["${candidate.instanceType}"]`,
        candidate.instanceType,
      );
    }
    if (candidate.compiledFor === undefined) return;
    if (known !== undefined && known.neoTarget === undefined) {
      const family = familyOf(candidate.instanceType);
      issue(
        ['candidates', index, 'compiledFor'],
        NEO_TARGET_FAMILIES_NOT_PLANNED.includes(family)
          ? `no compiledFor: the planner's Neo support table does not describe ml_${family} yet: serve ` +
              `${candidate.instanceType} uncompiled, or use an instance of a compiled family (e.g. ml_g4dn on ml.g4dn)`
          : `no compiledFor: SageMaker Neo has no target for ${candidate.instanceType} (its TargetDevice list has none ` +
              'for this family): serve it uncompiled, or use an instance of a compiled family (e.g. ml_g4dn on ml.g4dn)',
        candidate.compiledFor,
      );
      return;
    }
    if (!COMPILATION_TARGETS.includes(candidate.compiledFor)) {
      issue(['candidates', index, 'compiledFor'], COMPILATION_TARGET_EXPECTED, candidate.compiledFor);
      return;
    }
    if (!input.compilation.targets.includes(candidate.compiledFor)) {
      issue(
        ['candidates', index, 'compiledFor'],
        `a target listed in compilation.targets (${input.compilation.targets.join(', ') || 'none listed'})`,
        candidate.compiledFor,
      );
    }
    const family = neoTargetOf(candidate.instanceType);
    if (family !== undefined && family !== candidate.compiledFor) {
      issue(
        ['candidates', index, 'compiledFor'],
        `${family}: an artifact compiled for ${candidate.compiledFor} cannot run on ${candidate.instanceType}`,
        candidate.compiledFor,
      );
    }
  });
  return issues;
}

/**
 * Every issue of the rules that consult the catalog, paths from the input. An existing endpoint is
 * tested as it is (the schema refuses a model's candidates and targets beside it): nothing to check.
 * A shortlist's candidates are picked at planning, which checks them then: these read the listed ones.
 */
export function catalogRunInputIssues(document: RunInputFields): FieldIssue[] {
  if (document.existingEndpoint) return [];
  const input: ListedInput = {
    ...document,
    candidates: Array.isArray(document.candidates) ? document.candidates : [],
  };
  const modelIssues = input.model === undefined ? [] : huggingfaceVersionIssues(input.model);
  return [
    ...modelIssues.map((issue) => ({ ...issue, path: ['model', ...issue.path] })),
    ...llmInputIssues(input),
    ...candidateIssues(input),
  ];
}

/** The run input's schema with the rules that consult the catalog: what every entry parses with. */
export const checkedRunInputSchema = runInputSchemaWith(catalogRunInputIssues);

/** Parses a run input, or throws `InvalidRunInputError` naming every bad field. */
export function parseRunInput(document: unknown): RunInput {
  return parseOrThrow(checkedRunInputSchema, document);
}
