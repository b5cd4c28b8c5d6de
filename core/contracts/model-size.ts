import { z } from 'zod';

/**
 * `model.size`: what the model needs in memory, for a model whose artifact does not say it (a Hub
 * model has none; a compressed archive is smaller than its weights in memory). The planner refuses a
 * candidate whose accelerator (or host) memory cannot hold the weights plus, for an LLM container,
 * the KV cache its settings imply (core/planning/model-fit-check.ts).
 */

/** Bytes per parameter of the data types models are loaded in. */
export const BYTES_PER_DTYPE = {
  fp32: 4,
  float32: 4,
  fp16: 2,
  float16: 2,
  bf16: 2,
  bfloat16: 2,
  int8: 1,
  fp8: 1,
} as const satisfies Readonly<Record<string, number>>;

export type ModelDtype = keyof typeof BYTES_PER_DTYPE;

export const MODEL_DTYPES = Object.keys(BYTES_PER_DTYPE) as [ModelDtype, ...ModelDtype[]];

/** Larger than any published model (the largest have a few trillion parameters). */
const MAX_PARAMETERS = 1e13;

export const modelSizeSchema = z.strictObject({
  /** The parameter count, e.g. 70000000000 (a Hugging Face config's count, or the model card's). */
  parameters: z
    .number()
    .positive({ message: 'a parameter count above 0, such as 8000000000 for an 8B model' })
    .max(MAX_PARAMETERS, { message: `a parameter count of at most ${MAX_PARAMETERS}` }),
  /** The data type the weights are loaded in (and the KV cache held in). */
  dtype: z.enum(MODEL_DTYPES, { message: `one of ${MODEL_DTYPES.join(', ')}` }),
  /**
   * The attention shape (Hugging Face config.json: num_hidden_layers, num_key_value_heads, and
   * head_dim or hidden_size ÷ num_attention_heads), for the KV cache of an LLM container.
   */
  attention: z
    .strictObject({
      layers: z.int().positive().max(1000),
      /** Key/value heads: fewer than the attention heads with grouped-query attention. */
      kvHeads: z.int().positive().max(1024),
      headDim: z.int().positive().max(4096),
    })
    .optional(),
});

export type ModelSize = z.output<typeof modelSizeSchema>;
