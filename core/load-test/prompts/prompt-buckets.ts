import type { PromptBucketInput } from '../../contracts/index.js';
import type { Prompt } from './prompt-lines.js';

/**
 * A prompt's input length, in characters (Unicode code points) of its text, or of its messages'
 * contents together: a proxy for its input tokens, which only the model's tokenizer counts (and
 * it is the container's, not available offline). Prompts of different lengths load a generative
 * server differently (the prompt is read before the first token), so they are bucketed by it.
 */
export function promptChars(prompt: Prompt): number {
  const texts = 'messages' in prompt ? prompt.messages.map((message) => message.content) : [prompt.text];
  let chars = 0;
  for (const text of texts) {
    for (const _codePoint of text) chars += 1;
  }
  return chars;
}

/** The bucket of a prompt of `chars` characters: the first whose maxChars it does not pass. */
export function bucketIndexOf(chars: number, buckets: readonly PromptBucketInput[]): number {
  const index = buckets.findIndex((bucket) => bucket.maxChars === undefined || chars <= bucket.maxChars);
  // The schema leaves the last bucket without maxChars; a list that has one keeps its longest there.
  return index < 0 ? buckets.length - 1 : index;
}
