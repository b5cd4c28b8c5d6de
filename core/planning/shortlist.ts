import {
  IMAGE_TABLE,
  baseFrameworkOf,
  resolveServingImage,
  servingPlatformOf,
  familyOf,
  findInstance,
  type InstanceSpec,
  knownInstanceTypes,
} from '../catalog/index.js';
import {
  isLlmContainer,
  PRICE_TABLE_SOURCE,
  type InputIssue,
  NoServingImageError,
} from '../contracts/index.js';
import { llmInputIssues } from './llm-input.js';
import type {
  CandidateInput,
  RunInput,
  Shortlist,
  ShortlistedType,
  ShortlistExclusion,
  ShortlistKind,
  ShortlistRequest,
} from '../contracts/index.js';
import { modelFitCheck } from './model-fit-check.js';

/**
 * A shortlist (`candidates: { "shortlist": { "max", "kinds" } }`) becomes the run's candidates here,
 * before any other check of "Validate and plan" reads them.
 *
 * A type is a plausible candidate when it is of a kind asked for, is not burstable, has a price
 * (the run input's `pricing.usdPerHour`, else the recorded table), holds the model in memory (the
 * memory check of model-fit-check.ts, with the model's own settings), has an accelerator the model's
 * container and image run on, and (on AWS) has a serving image in the run's region. Which of those
 * meets the SLA only the load test can say; before it, the price is the one number that orders them,
 * so the cheapest come first. So that the list spans the market rather than one family's sizes, the
 * cheapest type of each kind asked for is taken first, then the cheapest of each further family,
 * then the next cheapest of any, up to `max`.
 */

export const SHORTLIST_RULE =
  'cheapest per hour among the types of the kinds asked for that hold the model in memory, have a price, an ' +
  'accelerator and image that serve the model, and are not burstable; first the cheapest of each kind, then ' +
  'of each further family, then the next cheapest, up to max';

export interface ShortlistContext {
  /** Where the candidates run; locally (undefined) the project's model server serves every type. */
  readonly servingRegion?: string;
}

export interface ShortlistOutcome {
  /** The input with `candidates` filled from the shortlist. */
  readonly input: RunInput;
  /** The plan's record of what was picked and why the rest was left out; absent without a shortlist. */
  readonly shortlist?: Shortlist;
  /** Why no type could be picked (the run is refused before anything is created). */
  readonly issues: InputIssue[];
}

/**
 * T2 instances earn and spend CPU credits: under a sustained load they fall to their baseline, so
 * a load test measures the credit balance left, not the instance (Amazon EC2 User Guide,
 * "Burstable performance instances",
 * https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/burstable-performance-instances.html).
 */
const BURSTABLE_FAMILY = /^t\d/;

/** Expands the input's shortlist, if it has one, into candidates. */
export function expandShortlist(input: RunInput, context: ShortlistContext): ShortlistOutcome {
  const request = input.shortlist;
  if (request === undefined) return { input, issues: [] };
  const refused: { family: string; reason: string }[] = [];
  const eligible: ShortlistedType[] = [];
  for (const instanceType of knownInstanceTypes()) {
    const spec = findInstance(instanceType);
    if (spec === undefined) continue;
    const verdict = judge(input, request, spec, context);
    if (typeof verdict === 'string') refused.push({ family: familyOf(instanceType), reason: verdict });
    else eligible.push(verdict);
  }
  const chosen = pick(eligible, request);
  const shortlist: Shortlist = {
    request,
    rule: SHORTLIST_RULE,
    chosen,
    leftOut: leftOutFamilies(chosen, eligible, refused),
  };
  if (chosen.length === 0) {
    return {
      input,
      shortlist,
      issues: [
        {
          field: 'candidates.shortlist',
          given: JSON.stringify(request),
          expected:
            'kinds with at least one instance type that can serve the model; none could: ' +
            shortlist.leftOut.map((e) => `${e.families.join(', ')}: ${e.reason}`).join('; '),
        },
      ],
    };
  }
  const candidates = chosen.map((type) => candidateOf(type.instanceType, type.compiledFor));
  return { input: { ...input, candidates }, shortlist, issues: [] };
}

/** A shortlisted type as a candidate: one instance, no settings of its own. */
function candidateOf(instanceType: string, compiledFor: string | undefined): CandidateInput {
  return {
    instanceType,
    initialInstanceCount: 1,
    environment: {},
    ...(compiledFor === undefined ? {} : { compiledFor }),
  };
}

/**
 * Each family none of whose types was chosen, under the reasons its types were left out for: a
 * family with a type that could serve is only dearer; otherwise every reason its sizes met (a
 * family's small sizes may lack the memory, its large ones a price).
 */
function leftOutFamilies(
  chosen: readonly ShortlistedType[],
  eligible: readonly ShortlistedType[],
  refused: readonly { family: string; reason: string }[],
): ShortlistExclusion[] {
  const chosenFamilies = new Set(chosen.map((type) => familyOf(type.instanceType)));
  const dearer = new Set(
    eligible.map((type) => familyOf(type.instanceType)).filter((f) => !chosenFamilies.has(f)),
  );
  const byReason = new Map<string, Set<string>>();
  if (dearer.size > 0) byReason.set(`dearer than the ${chosen.length} types chosen`, dearer);
  for (const { family, reason } of refused) {
    if (chosenFamilies.has(family) || dearer.has(family)) continue;
    byReason.set(reason, (byReason.get(reason) ?? new Set<string>()).add(family));
  }
  return [...byReason].map(([reason, families]) => ({ reason, families: [...families].sort() }));
}

function kindOf(spec: InstanceSpec): ShortlistKind | undefined {
  if (spec.accelerator === 'none') return 'cpu';
  if (spec.accelerator.startsWith('nvidia-')) return 'gpu';
  if (spec.accelerator === 'inferentia' || spec.accelerator === 'inferentia2') return 'inferentia';
  return undefined;
}

/** The type as a shortlist entry, or why it is left out (one reason shared by every type it fits). */
function judge(
  input: RunInput,
  request: ShortlistRequest,
  spec: InstanceSpec,
  context: ShortlistContext,
): ShortlistedType | string {
  const { instanceType } = spec;
  if (spec.accelerator === 'unknown') return 'its accelerator is unknown to the instance table';
  const kind = kindOf(spec);
  if (kind === undefined)
    return `its accelerator (${spec.accelerator}) is none of the kinds a shortlist takes`;
  if (!request.kinds.includes(kind)) return `not of the kinds asked for (${request.kinds.join(', ')})`;
  if (BURSTABLE_FAMILY.test(familyOf(instanceType))) {
    return 'burstable: under a sustained load it runs at its CPU-credit baseline, not at its size';
  }
  const usdPerHour = input.pricing.usdPerHour[instanceType] ?? spec.usdPerHour;
  if (usdPerHour === undefined) {
    return (
      `no price: the recorded table (${PRICE_TABLE_SOURCE.region}, ${PRICE_TABLE_SOURCE.recordedOn}) has none ` +
      'and pricing.usdPerHour names none'
    );
  }
  // A type whose memory no source gives cannot be shown to hold the model, which a shortlist promises.
  if (spec.memoryGiB === undefined) {
    return 'memory unknown to the instance table: the planner cannot tell that it holds the model';
  }
  const model = input.model;
  const framework = model?.framework;
  const compiledFor =
    spec.neoTarget !== undefined && input.compilation.targets.includes(spec.neoTarget)
      ? spec.neoTarget
      : undefined;
  if (
    framework !== undefined &&
    isLlmContainer(framework) &&
    !(spec.llmContainers ?? []).includes(framework)
  ) {
    return `the ${framework} container has no image for its hardware`;
  }
  if (
    kind === 'inferentia' &&
    compiledFor === undefined &&
    !(framework !== undefined && isLlmContainer(framework))
  ) {
    return 'Inferentia serves Neuron-compiled models only: list its target (ml_inf1, ml_inf2) in compilation.targets';
  }
  const candidate = candidateOf(instanceType, compiledFor);
  // The schema's rules of a listed candidate ran on none: the container's settings (tensor
  // parallel degree, stream formatter, image platform) are checked here, type by type.
  if (llmInputIssues({ ...input, candidates: [candidate] }).length > 0) {
    return `the ${framework ?? 'model'} container's settings in the run input cannot serve on it`;
  }
  if (modelFitCheck({ ...input, candidates: [candidate] }, {}).issues.length > 0) {
    return "its memory cannot hold the model (model.size and the container's settings)";
  }
  const region = context.servingRegion;
  if (region !== undefined && model !== undefined) {
    const imageProblem = servingImageProblem(model, instanceType, compiledFor, region);
    if (imageProblem !== undefined) return imageProblem;
  }
  return { instanceType, kind, usdPerHour, ...(compiledFor === undefined ? {} : { compiledFor }) };
}

/**
 * On AWS, the image that would serve the type must exist in the region (the rules of
 * input-rules.ts refuse a candidate without one); a user's own image is taken as x86 or CUDA, since
 * nothing says it has an arm64 build for Graviton.
 */
function servingImageProblem(
  model: NonNullable<RunInput['model']>,
  instanceType: string,
  compiledFor: string | undefined,
  region: string,
): string | undefined {
  const platform = servingPlatformOf(compiledFor ?? instanceType);
  if (compiledFor !== undefined) {
    if (model.compiledImage !== undefined) return undefined;
    const exists = IMAGE_TABLE.some(
      (row) => row.framework === model.framework && row.compiled && row.platform === platform,
    );
    return exists ? undefined : `no compiled ${model.framework} serving image for its hardware`;
  }
  if (model.image !== undefined) {
    return platform === 'graviton'
      ? 'Graviton (arm64): model.image is your own image, not known to run on arm64'
      : undefined;
  }
  try {
    resolveServingImage({
      framework: model.framework,
      ...(model.frameworkVersion === undefined ? {} : { frameworkVersion: model.frameworkVersion }),
      baseFramework: baseFrameworkOf(model),
      region,
      instanceType,
    });
    return undefined;
  } catch (error) {
    if (!(error instanceof NoServingImageError)) throw error;
    return `no ${model.framework} serving image for its hardware in ${region} (the image table)`;
  }
}

/** The cheapest of each kind asked for, then of each further family, then the next cheapest, up to max. */
function pick(eligible: readonly ShortlistedType[], request: ShortlistRequest): ShortlistedType[] {
  const byPrice = [...eligible].sort(
    (a, b) => a.usdPerHour - b.usdPerHour || a.instanceType.localeCompare(b.instanceType),
  );
  const chosen: ShortlistedType[] = [];
  const take = (type: ShortlistedType | undefined): void => {
    if (type !== undefined && chosen.length < request.max && !chosen.includes(type)) chosen.push(type);
  };
  for (const kind of request.kinds) take(byPrice.find((type) => type.kind === kind));
  for (const type of byPrice) {
    if (!chosen.some((taken) => familyOf(taken.instanceType) === familyOf(type.instanceType))) take(type);
  }
  for (const type of byPrice) take(type);
  return chosen.sort((a, b) => a.usdPerHour - b.usdPerHour || a.instanceType.localeCompare(b.instanceType));
}
