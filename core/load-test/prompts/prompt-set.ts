import type { InputIssue } from '../../contracts/index.js';
import { type PlannedPromptSet, PROMPT_SET_LIMITS } from '../../contracts/index.js';
import type { InvokeRequest } from '../ports.js';
import { bucketIndexOf, promptChars } from './prompt-buckets.js';
import { PROMPT_LINE_EXPECTED, parsePromptLines } from './prompt-lines.js';
import { promptBody } from './prompt-templates.js';

/** One bucket's prompts, built. */
export interface PreparedBucket {
  readonly name: string;
  readonly maxChars?: number;
  readonly requests: readonly InvokeRequest[];
  /** The bodies' bytes together. */
  readonly bytes: number;
}

export interface PreparedPromptSet {
  /** Every bucket of the settings, in order, empty ones included. */
  readonly buckets: readonly PreparedBucket[];
  /** Every problem of the file, each naming its line; empty when the set is usable. */
  readonly issues: readonly InputIssue[];
}

export interface PromptSetBounds {
  /** The input field that names the file, e.g. `prompts.uri`. */
  readonly field: string;
  /** The largest body the endpoint takes, and whose limit that is. */
  readonly maxBodyBytes: { readonly bytes: number; readonly limit: string };
}

const CONTENT_TYPE = 'application/json';

function fileIssue(field: string, given: string, expected: string): InputIssue {
  return { field, given, expected };
}

/**
 * Reads a prompt set's bytes and builds every prompt's request into its bucket. Problems (bytes
 * that are not UTF-8, too many lines, a bad line, a chat prompt for a generate template, a body
 * over the endpoint's limit, no prompt at all) are returned, each line's under `<field> line N`.
 */
export function preparePromptSet(
  bytes: Uint8Array,
  settings: Omit<PlannedPromptSet, 'uri'>,
  bounds: PromptSetBounds,
): PreparedPromptSet {
  const { field } = bounds;
  const requests: InvokeRequest[][] = settings.buckets.map(() => []);
  const sizes: number[] = settings.buckets.map(() => 0);
  const built = (issues: InputIssue[]): PreparedPromptSet => ({
    buckets: settings.buckets.map((bucket, index) => ({
      name: bucket.name,
      ...(bucket.maxChars === undefined ? {} : { maxChars: bucket.maxChars }),
      requests: requests[index] ?? [],
      bytes: sizes[index] ?? 0,
    })),
    issues,
  });
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return built([
      fileIssue(field, `${bytes.length} bytes that are not UTF-8`, `${PROMPT_LINE_EXPECTED}, in UTF-8`),
    ]);
  }
  const { prompts, problems } = parsePromptLines(text);
  const issues: InputIssue[] = problems.map((problem) => ({
    field: `${field} line ${problem.line}`,
    given: `${problem.text} (${problem.problem})`,
    expected: PROMPT_LINE_EXPECTED,
  }));
  if (prompts.length + problems.length > PROMPT_SET_LIMITS.maxLines) {
    return built([
      fileIssue(
        field,
        `${prompts.length + problems.length} prompt lines`,
        `at most ${PROMPT_SET_LIMITS.maxLines} (every load worker holds every prompt in memory): a sample of the prompts`,
      ),
    ]);
  }
  if (prompts.length === 0 && problems.length === 0) {
    return built([fileIssue(field, 'a file without a prompt', `at least one line: ${PROMPT_LINE_EXPECTED}`)]);
  }
  const encoder = new TextEncoder();
  for (const { line, prompt } of prompts) {
    if ('messages' in prompt && settings.format !== 'openai') {
      issues.push({
        field: `${field} line ${line}`,
        given: `a chat prompt ("messages") for the ${settings.format} template`,
        expected: `{"prompt": "…"} lines (the ${settings.format} generate request takes text; the chat template that would flatten messages is the model's), or the openai format`,
      });
      continue;
    }
    const body = encoder.encode(
      JSON.stringify(promptBody(prompt, settings.format, settings.generation, settings.stream)),
    );
    if (body.length > bounds.maxBodyBytes.bytes) {
      issues.push({
        field: `${field} line ${line}`,
        given: `a prompt whose request body is ${body.length} bytes`,
        expected: `at most ${bounds.maxBodyBytes.bytes} bytes (${bounds.maxBodyBytes.limit}): a shorter prompt`,
      });
      continue;
    }
    const bucket = bucketIndexOf(promptChars(prompt), settings.buckets);
    requests[bucket]?.push({ body, contentType: CONTENT_TYPE });
    sizes[bucket] = (sizes[bucket] ?? 0) + body.length;
  }
  return built(issues);
}
