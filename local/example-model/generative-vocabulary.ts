/**
 * The fixed word-level vocabulary of the example generative model (generative-model.ts): a few
 * special tokens and words about serving models, so a generation reads as (random) words rather
 * than bytes. Word-level rather than byte-level because one token is then one visible word: a
 * streamed answer has as many visible tokens as the server counts, which keeps TTFT/ITL simple to
 * check against the server's own figures.
 */

/** Ends a generation when the model picks it (TGI's `eos_token` finish reason). */
export const EOS_TOKEN_ID = 0;
/** Stands for any prompt word outside the vocabulary. */
export const UNKNOWN_TOKEN_ID = 1;
/** Fed first, so an empty prompt still gives the model a state to generate from. */
export const BOS_TOKEN_ID = 2;

const SPECIAL_TOKENS = ['</s>', '<unk>', '<s>'] as const;

/** The words, in id order after the special tokens (a string, so the list stays readable). */
const WORDS: readonly string[] = [
  'the a model serves tokens fast slow and or with on in for to of is are was each every one',
  'two many few small large cheap costly latency throughput endpoint instance request response',
  'stream batch queue worker server client graph layer weight cache memory compute cost hour',
  'second millisecond first last next token text prompt answer question optimizer compiler',
  'runtime container image region load test step run runs waits sends reads writes measures',
  'compares picks scales grows falls stays under over within after before while when then so',
  'but not only also still again here there it they we this that these those good best better',
  'worse quick steady busy idle warm cold new old clear simple real local cloud price budget',
  'target limit percentile sla report chart',
]
  .join(' ')
  .split(' ');

/** Every token's text, by id: special tokens first, then the words. */
export const GENERATIVE_VOCABULARY: readonly string[] = [...SPECIAL_TOKENS, ...WORDS];

export const GENERATIVE_VOCABULARY_SIZE = GENERATIVE_VOCABULARY.length;

const WORD_IDS: ReadonlyMap<string, number> = new Map(
  WORDS.map((word, index) => [word, SPECIAL_TOKENS.length + index]),
);

/**
 * The prompt's token ids: `<s>`, then one id per word (letters, digits and apostrophes, lower-cased;
 * punctuation dropped), `<unk>` for words outside the vocabulary.
 */
export function encodePrompt(prompt: string): number[] {
  const words = prompt.toLowerCase().match(/[a-z0-9']+/g) ?? [];
  return [BOS_TOKEN_ID, ...words.map((word) => WORD_IDS.get(word) ?? UNKNOWN_TOKEN_ID)];
}

/** Whether a token is a special token (generated and counted, but not text a client shows). */
export function isSpecialToken(id: number): boolean {
  return id < SPECIAL_TOKENS.length;
}

/**
 * The text a token adds to the output: a word with its leading space (as sentencepiece tokenizers
 * write it, and as TGI streams `token.text`), or the special token's own text.
 */
export function tokenText(id: number): string {
  const text = GENERATIVE_VOCABULARY[id];
  if (text === undefined) {
    throw new RangeError(`Token id ${id}: expected 0 to ${GENERATIVE_VOCABULARY_SIZE - 1}`);
  }
  return isSpecialToken(id) ? text : ` ${text}`;
}
