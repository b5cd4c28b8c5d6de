import { z } from 'zod';
import type { StreamFormat } from './stream-format.js';

/**
 * The run input's `prompts`: a generative workload read from a JSON Lines file, one prompt a line,
 * each request's body built from the prompt by the template of the container's format
 * (core/load-test/prompts/prompt-templates.ts) with the run's generation settings, and the
 * prompts bucketed by input length (prompt-buckets.ts). It replaces `payload`/`payloads`.
 */

/** The request templates: TGI's and LMI's generate request, the OpenAI chat completion. */
export const PROMPT_FORMATS = ['tgi', 'lmi', 'openai'] as const;
export type PromptFormat = (typeof PROMPT_FORMATS)[number];

/** The request template that goes with each stream format the load test reads. */
export const PROMPT_FORMAT_OF_STREAM: Readonly<Record<StreamFormat, PromptFormat>> = {
  openai: 'openai',
  tgi: 'tgi',
  'lmi-jsonlines': 'lmi',
  'lmi-sse': 'lmi',
};

export const PROMPT_SET_LIMITS = {
  /**
   * Lines and bytes of the file. Every load worker reads and holds the whole set, built into
   * request bodies, for its whole test, in a 2,048 MB Lambda (infra/constructs/optimization-steps.ts)
   * beside its histograms: 16 MiB of prompts make at most about twice that in bodies. The plan
   * carries only the settings and one entry per bucket, never the prompts, so a state's 256 KiB is
   * not at stake.
   */
  maxLines: 10_000,
  maxBytes: 16 * 1024 * 1024,
  maxBuckets: 5,
  /** TGI's `GenerateParameters.stop` takes at most 4 (docs/openapi.json, huggingface/text-generation-inference). */
  maxStopSequences: 4,
  /** 128 Ki tokens: the longest context of common open models; a container refuses more than its model's. */
  maxNewTokens: 131_072,
} as const;

/**
 * Prompts bucketed by characters (Unicode code points) of their text (a chat prompt: of its
 * messages' contents), not tokens: the model's tokenizer is not available offline (nor in the
 * planner: it is the container's). OpenAI's rule of thumb is about 4 characters of English text a
 * token, so the defaults are about 250 and 1,000 tokens.
 */
export const DEFAULT_PROMPT_BUCKETS = [
  { name: 'short', maxChars: 1_000 },
  { name: 'medium', maxChars: 4_000 },
  { name: 'long' },
] as const;

const bucketSchema = z.strictObject({
  /** Names the bucket in the report, e.g. "short". */
  name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,31}$/, {
    message: 'a bucket name of 1–32 lower-case letters, digits and "-", e.g. "short"',
  }),
  /** The longest prompt (in characters) of the bucket; absent on the last, which takes the rest. */
  maxChars: z.int().positive().optional(),
});

export const generationSchema = z
  .strictObject({
    /** TGI/LMI `max_new_tokens`, OpenAI `max_tokens`. */
    maxNewTokens: z.int().min(1).max(PROMPT_SET_LIMITS.maxNewTokens),
    /**
     * 0: greedy decoding (TGI/LMI `do_sample: false`, OpenAI `temperature: 0`); above 0: sampling.
     * 0–2 is OpenAI's range. Sent explicitly in every format, since the defaults differ (TGI and
     * LMI decode greedily, OpenAI samples at 1). @default 0
     */
    temperature: z.number().min(0).max(2).default(0),
    /** Nucleus sampling, in (0, 1]; TGI refuses 1 ("`top_p` must be > 0.0 and < 1.0"), so 1 is not sent. */
    topP: z.number().gt(0).max(1).optional(),
    /** TGI/LMI `top_k`; the OpenAI chat completion has none. */
    topK: z.int().min(1).optional(),
    /** Seeds the sampler (TGI/LMI `seed`, OpenAI `seed`). */
    seed: z.int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
    /** Stop sequences: TGI `stop`, LMI `stop_sequences`, OpenAI `stop`. */
    stop: z.array(z.string().min(1)).min(1).max(PROMPT_SET_LIMITS.maxStopSequences).optional(),
  })
  .superRefine((generation, context) => {
    if (generation.temperature === 0) {
      for (const field of ['topP', 'topK'] as const) {
        if (generation[field] === undefined) continue;
        context.addIssue({
          code: 'custom',
          path: [field],
          input: generation[field],
          message: `no ${field} with temperature 0 (greedy decoding does not sample): set a temperature above 0, or remove ${field}`,
        });
      }
    }
  });

export type GenerationSettings = z.infer<typeof generationSchema>;

/**
 * The fields of `prompts` but its `uri` (run-input.ts adds it with the run's object URI schema,
 * which lives there).
 */
export const promptSetFields = {
  /** The request template. @default the one of loadPlan.response.format (lmi-* → lmi) */
  format: z.enum(PROMPT_FORMATS, { message: `one of ${PROMPT_FORMATS.join(', ')}` }).optional(),
  generation: generationSchema,
  /** Ascending by maxChars; the last has none. @default short ≤ 1,000, medium ≤ 4,000, long */
  buckets: z
    .array(bucketSchema)
    .min(1)
    .max(PROMPT_SET_LIMITS.maxBuckets)
    .default(DEFAULT_PROMPT_BUCKETS.map((bucket) => ({ ...bucket }))),
};

export type PromptBucketInput = z.infer<typeof bucketSchema>;

/** An issue of the prompt set's own rules, its path under `prompts`. */
export interface PromptSetIssue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
  readonly given: unknown;
}

/** The buckets' own rules: unique names, maxChars ascending on all but the last. */
export function promptBucketIssues(buckets: readonly PromptBucketInput[]): PromptSetIssue[] {
  const issues: PromptSetIssue[] = [];
  const issue = (path: PropertyKey[], message: string, given: unknown): void => {
    issues.push({ path, message, given });
  };
  const names = new Set<string>();
  buckets.forEach((bucket, index) => {
    if (names.has(bucket.name)) issue(['buckets', index, 'name'], 'a name no other bucket has', bucket.name);
    names.add(bucket.name);
    const last = index === buckets.length - 1;
    const previous = buckets[index - 1]?.maxChars ?? 0;
    if (last && bucket.maxChars !== undefined) {
      issue(
        ['buckets', index, 'maxChars'],
        'no maxChars on the last bucket: it takes every prompt longer than the one before',
        bucket.maxChars,
      );
    } else if (!last && bucket.maxChars === undefined) {
      issue(
        ['buckets', index, 'maxChars'],
        'a maxChars (characters) on every bucket but the last',
        undefined,
      );
    } else if (bucket.maxChars !== undefined && bucket.maxChars <= previous) {
      issue(
        ['buckets', index, 'maxChars'],
        `a maxChars above the previous bucket's (${previous}): buckets go from the shortest prompts up`,
        bucket.maxChars,
      );
    }
  });
  return issues;
}

/** The stream settings of a load plan, as `prompts` reads them. */
export interface PromptResponse {
  readonly mode: 'buffered' | 'stream';
  readonly format?: StreamFormat | undefined;
}

/**
 * The request template of a run: `prompts.format`, or the one of the stream format the load test
 * reads. Undefined when neither says (promptFormatIssues refuses that).
 */
export function promptFormatOf(
  format: PromptFormat | undefined,
  response: PromptResponse | undefined,
): PromptFormat | undefined {
  if (format !== undefined) return format;
  return response?.format === undefined ? undefined : PROMPT_FORMAT_OF_STREAM[response.format];
}

/**
 * A template the responses can be read with: given when the plan does not stream (there is no
 * format to take it from), and the stream format's own when it does (a chat completion answered in
 * OpenAI chunks, read with the TGI parser, would be every event malformed).
 */
export function promptFormatIssues(
  format: PromptFormat | undefined,
  response: PromptResponse | undefined,
): PromptSetIssue[] {
  const streamFormat = response?.mode === 'stream' ? response.format : undefined;
  if (streamFormat === undefined) {
    return format === undefined
      ? [
          {
            path: ['format'],
            message: `one of ${PROMPT_FORMATS.join(', ')}: the load plan does not stream, so there is no loadPlan.response.format to take the request template from`,
            given: undefined,
          },
        ]
      : [];
  }
  const expected = PROMPT_FORMAT_OF_STREAM[streamFormat];
  if (format === undefined || format === expected) return [];
  return [
    {
      path: ['format'],
      message: `"${expected}", the template of loadPlan.response.format "${streamFormat}" (the responses are read in that format), or no format`,
      given: format,
    },
  ];
}

/** Settings the template cannot send: `topK` has no field in the OpenAI chat completion. */
export function promptGenerationIssues(
  format: PromptFormat | undefined,
  generation: Pick<GenerationSettings, 'topK'>,
): PromptSetIssue[] {
  if (format !== 'openai' || generation.topK === undefined) return [];
  return [
    {
      path: ['generation', 'topK'],
      message:
        'no topK with the openai template (the chat completion has no top_k; https://platform.openai.com/docs/api-reference/chat/create): use topP, or the tgi or lmi template',
      given: generation.topK,
    },
  ];
}

/**
 * A prompt set as the plan carries it (`plan.prompts`): where the file is and how each line becomes
 * a request. "Validate and plan" and every load worker build the same requests from it
 * (load-test/prompts/prompt-set.ts `preparePromptSet`), so the plan never carries prompts, only this and a payload entry per bucket.
 */
export interface PlannedPromptSet {
  readonly uri: string;
  readonly format: PromptFormat;
  /** Whether the bodies ask for a stream: the load plan's response mode. */
  readonly stream: boolean;
  readonly generation: GenerationSettings;
  readonly buckets: readonly PromptBucketInput[];
}
