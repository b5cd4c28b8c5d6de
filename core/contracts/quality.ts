import { z } from 'zod';

/**
 * The output-quality guard's documents: the run input's `quality` block (which candidate answers as
 * the reference, and the rule a candidate's answers must keep to) and the verdict each candidate
 * gets. The arithmetic that compares answers by the rule lives in core/quality/.
 *
 * Compiling, quantizing or re-serving a model can change what it answers; a faster candidate that
 * answers differently must not win on cost. The rule names the model kind it fits:
 * - `tensor`: every element of the candidate's answer within the reference's, as numpy's `isclose`
 *   judges it: |candidate − reference| ≤ maxAbsoluteDifference + maxRelativeDifference × |reference|
 *   (https://numpy.org/doc/stable/reference/generated/numpy.isclose.html), with numpy's defaults;
 * - `classifier`: the rows of scores (logits or probabilities, one row per sample) rank the same
 *   `topK` classes first, in at least `minAgreementRate` of the rows over the payload set;
 * - `generative`: answers decoded greedily, compared on their first `firstTokens` tokens: the share
 *   that match exactly, the mean token-level F1, and optionally the user's own scorer.
 */

export const QUALITY_VERDICTS = {
  passed: 'passed',
  qualityFailed: 'quality-failed',
  unknown: 'unknown',
} as const;
export type QualityVerdictStatus = (typeof QUALITY_VERDICTS)[keyof typeof QUALITY_VERDICTS];

export const QUALITY_RULE_KINDS = ['tensor', 'classifier', 'generative'] as const;
export type QualityRuleKind = (typeof QUALITY_RULE_KINDS)[number];

export const QUALITY_LIMITS = {
  /**
   * Output tokens compared per answer: the generative pass asks for this many new tokens per
   * prompt, and 4,096 is already longer than most answers a latency SLA is set for.
   */
  maxFirstTokens: 4096,
  /** Classes a classifier rule ranks: more than a reader checks, and each row is sorted by it. */
  maxTopK: 100,
  /** Examples a verdict keeps: the worst few are what a reader looks at; all travel in the state. */
  maxWorstExamples: 20,
  /**
   * Characters kept of each answer in an example: a row of logits or two sentences, readable in a
   * report table, and 20 examples × 2 answers stay far below a state's 256 KiB.
   */
  exampleChars: 240,
  /**
   * A scorer's deadline per call. Lambda runs a function up to 900 s (Lambda quotas,
   * https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html), but the pass runs
   * while the candidate's endpoint is up and billed: 300 s per call is already generous.
   */
  maxScorerTimeoutSeconds: 300,
} as const;

/** numpy's `isclose` defaults (`atol=1e-08`, `rtol=1e-05`), the tensor rule's when it names none. */
export const TENSOR_RULE_DEFAULTS = { maxAbsoluteDifference: 1e-8, maxRelativeDifference: 1e-5 } as const;

const RATE_EXPECTED = 'a share from 0 to 1, such as 0.99';
const rateSchema = () => z.number().min(0, { message: RATE_EXPECTED }).max(1, { message: RATE_EXPECTED });

const candidateIdSchema = z.string().regex(/^[a-z0-9](-?[a-z0-9]){0,23}$/, {
  message: 'the id of a candidate in candidates[] (a short kebab-case id)',
});

const tensorRuleSchema = z.strictObject({
  kind: z.literal('tensor'),
  /**
   * Above 0: with none, every non-zero answer where the reference answers exactly 0 (a ReLU's
   * output, a masked logit) fails whatever the relative tolerance, as numpy's documentation warns.
   */
  maxAbsoluteDifference: z
    .number()
    .positive({
      message:
        'a difference above 0 (with 0, any non-zero answer where the reference answers exactly 0 fails, whatever maxRelativeDifference allows)',
    })
    .default(TENSOR_RULE_DEFAULTS.maxAbsoluteDifference),
  maxRelativeDifference: z
    .number()
    .min(0, { message: 'a share of the reference value, 0 or more, such as 1e-3' })
    .default(TENSOR_RULE_DEFAULTS.maxRelativeDifference),
});

const classifierRuleSchema = z.strictObject({
  kind: z.literal('classifier'),
  /** 1: the same top class; k: the same k highest classes, in any order among them. */
  topK: z
    .int()
    .min(1, { message: 'a number of classes, 1 or more (1: the same top class)' })
    .max(QUALITY_LIMITS.maxTopK, { message: `at most ${QUALITY_LIMITS.maxTopK} classes` })
    .default(1),
  /** The share of rows that must agree; 1 (every row) unless told, as a quantized model may need 0.99. */
  minAgreementRate: rateSchema().default(1),
});

/**
 * A Lambda function's ARN, with an optional version or alias: "arn:aws:lambda:us-west-2:123456789012:
 * function:my-function", a function name of at most 64 characters (Lambda API reference, Invoke,
 * FunctionName: https://docs.aws.amazon.com/lambda/latest/api/API_Invoke.html).
 */
const LAMBDA_FUNCTION_ARN =
  /^arn:aws[a-zA-Z-]*:lambda:[a-z]{2}(-gov|-iso[a-z]*)?-[a-z]+-\d:\d{12}:function:[a-zA-Z0-9_-]{1,64}(:(\$LATEST|[a-zA-Z0-9_-]{1,128}))?$/;

const scorerSchema = z
  .strictObject({
    /** On AWS: the function gets `{ reference, candidate }` (both answers) and returns `{ score }`. */
    lambdaArn: z
      .string()
      .regex(LAMBDA_FUNCTION_ARN, {
        message: 'a Lambda function ARN such as arn:aws:lambda:us-east-1:123456789012:function:my-scorer',
      })
      .optional(),
    /** In local mode: a program and its arguments, given both answers as JSON on stdin; prints the score. */
    command: z
      .array(z.string().min(1).max(1024))
      .min(1, { message: 'a program and its arguments, such as ["python3", "score.py"]' })
      .max(32)
      .optional(),
    /** The mean score over the payload set, each score from 0 to 1, at which a candidate passes. */
    minMeanScore: rateSchema(),
    timeoutSeconds: z
      .int()
      .min(1)
      .max(QUALITY_LIMITS.maxScorerTimeoutSeconds, {
        message: `at most ${QUALITY_LIMITS.maxScorerTimeoutSeconds} s per call (the candidate's endpoint is billed meanwhile)`,
      })
      .default(30),
  })
  .refine((scorer) => (scorer.lambdaArn === undefined) !== (scorer.command === undefined), {
    message: 'exactly one of lambdaArn (on AWS) and command (in local mode)',
  });

const generativeRuleSchema = z
  .strictObject({
    kind: z.literal('generative'),
    /** Output tokens compared per answer, from the first. */
    firstTokens: z
      .int()
      .min(1)
      .max(QUALITY_LIMITS.maxFirstTokens, {
        message: `at most ${QUALITY_LIMITS.maxFirstTokens} tokens per answer`,
      })
      .default(32),
    /** The share of answers whose first tokens are exactly the reference's. */
    minExactMatchRate: rateSchema().optional(),
    /** The mean, over the payload set, of each answer's token-level F1 against the reference's. */
    minMeanTokenF1: rateSchema().optional(),
    scorer: scorerSchema.optional(),
  })
  .refine(
    (rule) =>
      rule.minExactMatchRate !== undefined || rule.minMeanTokenF1 !== undefined || rule.scorer !== undefined,
    {
      message:
        'at least one of minExactMatchRate, minMeanTokenF1 and scorer: what a generative answer must keep to',
    },
  );

export const qualityRuleSchema = z.discriminatedUnion('kind', [
  tensorRuleSchema,
  classifierRuleSchema,
  generativeRuleSchema,
]);

export const qualitySchema = z.strictObject({
  /**
   * The candidate whose answers are the reference. Absent: the first candidate listed that serves
   * the model as given (neither `compiledFor` nor `optimizedBy`); refused when there is none.
   */
  reference: candidateIdSchema.optional(),
  rule: qualityRuleSchema,
  /**
   * Whether a candidate whose guard could not judge it ("unknown": the reference failed, the scorer
   * failed or timed out) may still be recommended. Off: an unjudged candidate is not recommended.
   */
  allowUnknown: z.boolean().default(false),
  /** The worst examples a verdict keeps, ranked by how far each answer is from the reference's. */
  worstExamples: z
    .int()
    .min(1)
    .max(QUALITY_LIMITS.maxWorstExamples, {
      message: `at most ${QUALITY_LIMITS.maxWorstExamples} examples`,
    })
    .default(5),
});

export type QualityInput = z.output<typeof qualitySchema>;
export type QualityRule = z.output<typeof qualityRuleSchema>;
export type TensorRule = Extract<QualityRule, { kind: 'tensor' }>;
export type ClassifierRule = Extract<QualityRule, { kind: 'classifier' }>;
export type GenerativeRule = Extract<QualityRule, { kind: 'generative' }>;

/** One input the verdict shows: the two answers, each cut to `QualityVerdict.exampleChars`. */
export interface QualityExample {
  readonly inputId: string;
  /**
   * How far the candidate's answer is from the reference's, in the rule's unit
   * (`QUALITY_DISTANCE_UNITS`); `null` when the answers cannot be compared at all (different shapes,
   * a value that is not a finite number, an empty answer). Examples rank by it, `null` first.
   */
  readonly distance: number | null;
  readonly reference: string;
  readonly candidate: string;
  /** What is wrong with this answer, when the figures alone do not say it. */
  readonly problem?: string;
}

/** What each rule's `QualityExample.distance` counts. */
export const QUALITY_DISTANCE_UNITS: Readonly<Record<QualityRuleKind, string>> = {
  tensor:
    "the largest element difference in multiples of the rule's allowance for it (above 1: beyond tolerance)",
  classifier: "the share of the reference's top classes the candidate does not rank in its own, worst row",
  generative: "1 − the token-level F1 of the answer's first tokens",
};

/** The figures a verdict is read by; each is present when its rule measures it. */
export interface QualityFigures {
  /** Inputs whose answers were compared. */
  readonly inputsCompared: number;
  /** Inputs left out, because the reference's own answer could not serve (see `notes`). */
  readonly inputsLeftOut: number;
  /** tensor: over the finite elements compared. */
  readonly maxAbsoluteDifference?: number;
  /** tensor: over the elements whose reference value is not 0. */
  readonly maxRelativeDifference?: number;
  /** classifier: agreeing rows ÷ rows. */
  readonly agreementRate?: number;
  readonly rowsCompared?: number;
  /** generative. */
  readonly exactMatchRate?: number;
  readonly meanTokenF1?: number;
  /** generative with a scorer. */
  readonly meanScore?: number;
}

/** A candidate's output-quality verdict against the reference's answers. */
export interface QualityVerdict {
  readonly candidateId: string;
  readonly referenceId: string;
  readonly verdict: QualityVerdictStatus;
  /** Why the candidate failed or could not be judged; absent when it passed. */
  readonly reason?: string;
  readonly rule: QualityRule;
  readonly figures: QualityFigures;
  /** The worst answers, worst first, at most the input's `worstExamples`; none that equal the reference's. */
  readonly worstExamples: readonly QualityExample[];
  /** Each example's answers are cut to this many characters, "…" marking a cut. */
  readonly exampleChars: number;
  /** What a reader must know to trust the figures (e.g. inputs left out, and why). */
  readonly notes: readonly string[];
}

/** Whether a candidate with this verdict may be recommended. */
export function qualityAllowsRecommendation(
  verdict: QualityVerdictStatus,
  quality: Pick<QualityInput, 'allowUnknown'>,
): boolean {
  if (verdict === QUALITY_VERDICTS.passed) return true;
  return verdict === QUALITY_VERDICTS.unknown && quality.allowUnknown;
}

interface Issue {
  readonly path: PropertyKey[];
  readonly message: string;
  readonly given: unknown;
}

/** What the cross-field rules read (a structural view of the run input, to keep this module apart). */
export interface QualityRunView {
  readonly quality?: QualityInput | undefined;
  readonly candidates: readonly (
    | {
        readonly id?: string | undefined;
        readonly compiledFor?: string | undefined;
        readonly optimizedBy?: string | undefined;
      }
    | { readonly id?: string | undefined; readonly serverless: unknown }
  )[];
  readonly existingEndpoint?: unknown;
  /**
   * Whether the run's model generates tokens: a prompt set, streamed answers, or a model in an LLM
   * container (djl-lmi, hf-tgi, vllm). The run input knows it; this module does not read the catalog.
   */
  readonly generative: boolean;
}

/** The candidate that serves the model as given: neither compiled (`compiledFor`) nor optimized. */
function servesModelAsGiven(candidate: QualityRunView['candidates'][number]): boolean {
  if ('serverless' in candidate) return true;
  return candidate.compiledFor === undefined && candidate.optimizedBy === undefined;
}

/** The index in `candidates` of the reference: the one `quality.reference` names, else the default. */
export function referenceCandidateIndex(view: QualityRunView): number | undefined {
  const named = view.quality?.reference;
  const index =
    named === undefined
      ? view.candidates.findIndex(servesModelAsGiven)
      : view.candidates.findIndex((candidate) => candidate.id === named);
  return index === -1 ? undefined : index;
}

/**
 * The rules across fields: a reference that exists (named, or by default one serving the model as
 * given), candidates to compare with it, and a rule for the run's model kind.
 */
export function qualityIssues(view: QualityRunView): Issue[] {
  const { quality } = view;
  if (quality === undefined) return [];
  const issues: Issue[] = [];
  if (view.existingEndpoint !== undefined) {
    return [
      {
        path: ['quality'],
        message:
          'no quality guard when existingEndpoint is given: it is tested as it is, and there is no reference candidate to compare it with',
        given: quality,
      },
    ];
  }
  if (referenceCandidateIndex(view) === undefined) {
    const ids = view.candidates.flatMap((candidate) => (candidate.id === undefined ? [] : [candidate.id]));
    issues.push(
      quality.reference === undefined
        ? {
            path: ['quality', 'reference'],
            message:
              'a reference candidate: every candidate is compiled (compiledFor) or optimized (optimizedBy), so none serves ' +
              'the model as given; add one, or name the candidate whose answers are the reference',
            given: undefined,
          }
        : {
            path: ['quality', 'reference'],
            message: `the id of a candidate in candidates[] (${ids.join(', ') || 'none has an id'})`,
            given: quality.reference,
          },
    );
  }
  if (view.candidates.length < 2) {
    issues.push({
      path: ['quality'],
      message: 'at least two candidates: the reference and one to compare with it',
      given: view.candidates.length,
    });
  }
  const { kind } = quality.rule;
  if (view.generative && kind !== 'generative') {
    issues.push({
      path: ['quality', 'rule', 'kind'],
      message:
        'generative: this run generates tokens (a prompt set, streamed answers or an LLM container), whose answers ' +
        'are compared token by token, not as tensors',
      given: kind,
    });
  }
  if (!view.generative && kind === 'generative') {
    issues.push({
      path: ['quality', 'rule', 'kind'],
      message:
        'tensor or classifier: this run sends payloads to a model that answers tensors; a generative rule needs a ' +
        'prompt set, streamed answers or an LLM container',
      given: kind,
    });
  }
  return issues;
}

/**
 * The run's `quality` block as "Validate and plan" writes it into the plan: the reference resolved
 * to a planned candidate's id (a candidate expanded over `environmentRanges` answers as its first
 * combination).
 */
export type PlannedQuality = QualityInput & { readonly referenceCandidateId: string };

/**
 * Times the reference is asked each input: twice, so that an input it answers differently from one
 * request to the next (no deterministic answer) is left out rather than failing every candidate.
 * Every other candidate is asked once.
 */
export const REFERENCE_ASKS = 2;

/** A tensor element as the answers document stores it: JSON has no NaN nor Infinity. */
export type StoredNumber = number | 'NaN' | 'Infinity' | '-Infinity';

/** One decoded tensor answer, as stored. */
export interface StoredTensor {
  readonly shape: readonly number[];
  readonly values: readonly StoredNumber[];
}

/** What a candidate answered to one input of the payload set, as "Record candidate answers" stored it. */
export type RecordedInput =
  | { readonly inputId: string; readonly answers: readonly StoredTensor[] }
  | { readonly inputId: string; readonly unanswered: string }
  | { readonly inputId: string; readonly unreadable: string };

/** The answers document of one candidate (`quality/<candidate id>.json` under the run's prefix). */
export interface RecordedAnswers {
  readonly candidateId: string;
  readonly endpointName: string;
  readonly inputs: readonly RecordedInput[];
}

/**
 * What a verdict keeps of its texts in the state: the reason, and the first notes, cut; the whole
 * verdict is in the object store.
 */
export const VERDICT_TEXT_CHARS = 500;
export const VERDICT_NOTE_CHARS = 300;
export const VERDICT_MAX_NOTES = 2;

/**
 * A candidate's verdict as its outcome carries it through the state: the verdict without its worst
 * examples (those are in `verdictUri`, for the report), its texts cut to VERDICT_TEXT_CHARS, so that
 * fifty candidates' verdicts stay a small share of a state's 256 KiB.
 */
export type QualityVerdictSummary = Omit<QualityVerdict, 'worstExamples' | 'rule' | 'exampleChars'> & {
  /** The whole verdict (QualityVerdict, with its worst examples); absent when none was written. */
  readonly verdictUri?: string;
  readonly worstExampleCount: number;
};
