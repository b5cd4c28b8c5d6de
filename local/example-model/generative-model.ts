/**
 * The example generative model: a small recurrent language model over a fixed word vocabulary
 * (generative-vocabulary.ts), generated in code with deterministic weights like the example CNN,
 * so nothing is downloaded. It computes one decoding step: the next-token logits from the last
 * token and the sequence's state, so a server decodes token by token and every token costs a real
 * model run (TTFT and inter-token latency are measured, not staged).
 *
 * Inputs  `token_ids` int64 [N]      (the last token of each sequence; N = sequences in the batch)
 *         `state`     float32 [N, H] (zeros before the first token)
 * Outputs `logits`     float32 [N, V] (next-token scores over the vocabulary)
 *         `next_state` float32 [N, H]
 *
 * One step: an embedding (Gather), a recurrent cell `tanh(x·Wx + state·Wh + b)` whose output is the
 * next state, then residual feed-forward blocks (`blocks` weight sets, run `passes` times) written as PyTorch exports them, with a
 * decomposed LayerNormalization (ReduceMean, Sub, Pow, Sqrt, Div, Mul, Add) and the exact GELU
 * (Div, Erf, Add, Mul), and a projection to the vocabulary. Those decomposed patterns and the
 * MatMul → Add pairs are what ONNX Runtime's offline optimizer fuses (LayerNormalization, Gelu,
 * Gemm / FusedMatMul), so a compiled artifact (local/compiler) runs the same step with fewer
 * operators, as it does for the CNN. The batch dimension is dynamic: a server decodes N sequences
 * in one run (continuous batching).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

import { seededRandom } from '../../core/contracts/index.js';
import {
  floatInitializer,
  floatTensorValueInfo,
  intAttribute,
  intsAttribute,
  node,
  onnx,
  tensorValueInfo,
} from './onnx-builder.js';
import type { NodeProto, TensorProto } from './onnx-builder.js';
import { EOS_TOKEN_ID, GENERATIVE_VOCABULARY_SIZE } from './generative-vocabulary.js';
import { uniformValues } from './seeded-random.js';

/** Names of the step's inputs and outputs: the contract between the model and the server. */
export const GENERATIVE_MODEL_SIGNATURE = {
  tokenIds: 'token_ids',
  state: 'state',
  logits: 'logits',
  nextState: 'next_state',
} as const;

export const DEFAULT_GENERATIVE_MODEL_SEED = 20241124;

export interface GenerativeModelOptions {
  /** @default DEFAULT_GENERATIVE_MODEL_SEED */
  readonly seed?: number;
  /**
   * Width of the state and of the blocks (H).
   * @default 128
   */
  readonly hiddenSize?: number;
  /**
   * Residual feed-forward blocks with weights of their own.
   * @default 2
   */
  readonly blocks?: number;
  /**
   * How many times the blocks run per step, sharing their weights across passes (as ALBERT shares
   * layers): the work per token grows with `blocks × passes`, the file only with `blocks`.
   * @default 48
   */
  readonly passes?: number;
}

/**
 * Narrow and deep: 96 blocks of [N, 128] → [N, 512] → [N, 128], a 1.6 MB file. One step took
 * 1.6 ms uncompiled and 0.9 ms compiled on one thread of the development machine (2.6 vs 1.4 ms
 * for 4 sequences): like a small model decoding a few sequences, its step is dominated by the
 * cost of each operator rather than by the arithmetic, which is what the optimizer's fusions
 * remove. A wide, shallow variant (hidden 512, 8 blocks) was matmul-bound: 1.34 vs 1.29 ms.
 */
export const GENERATIVE_MODEL_DEFAULTS = { hiddenSize: 128, blocks: 2, passes: 48 } as const;

// As the example CNN: IR 8 / opset 13, the newest the bundled onnx-proto schema describes. Opset 13
// still takes ReduceMean's axes as an attribute.
const IR_VERSION = 8;
const OPSET_VERSION = 13;
const FEED_FORWARD_FACTOR = 4;
const LAYER_NORM_EPSILON = 1e-5;
/**
 * Added to the end token's logit: random weights would otherwise end many generations after a
 * word or two, and a load test needs sequences that usually run to `max_new_tokens`.
 */
const EOS_LOGIT_BIAS = -3;

/** Accumulates nodes and initializers; every tensor name is unique by construction. */
class StepBuilder {
  readonly nodes: NodeProto[] = [];
  readonly initializers: TensorProto[] = [];

  constructor(private readonly random: () => number) {}

  constant(name: string, values: readonly number[], dims: readonly number[] = [values.length]): string {
    this.initializers.push(floatInitializer(name, dims, Float32Array.from(values)));
    return name;
  }

  /** Uniform weights in ±sqrt(6 / fanIn) (Glorot-like), so activations stay in range. */
  weight(name: string, rows: number, columns: number): string {
    const limit = Math.sqrt(6 / rows);
    this.initializers.push(
      floatInitializer(name, [rows, columns], uniformValues(this.random, rows * columns, -limit, limit)),
    );
    return name;
  }

  bias(name: string, size: number, spread = 0.1): string {
    this.initializers.push(floatInitializer(name, [size], uniformValues(this.random, size, -spread, spread)));
    return name;
  }

  /** Values drawn uniformly from [low, high). */
  uniform(name: string, dims: readonly number[], low: number, high: number): string {
    const count = dims.reduce((product, dim) => product * dim, 1);
    this.initializers.push(floatInitializer(name, dims, uniformValues(this.random, count, low, high)));
    return name;
  }

  /** One node with one output, named after the node; returns the output's name. */
  op(
    opType: string,
    name: string,
    inputs: readonly string[],
    attributes: Parameters<typeof node>[4] = [],
  ): string {
    const output = `${name}.out`;
    this.nodes.push(node(opType, name, inputs, [output], attributes));
    return output;
  }

  /** MatMul then Add (what an exported Linear layer looks like), over existing weights. */
  linear(name: string, input: string, weights: LinearWeights): string {
    const product = this.op('MatMul', `${name}.matmul`, [input, weights.weight]);
    return this.op('Add', `${name}.add`, [product, weights.bias]);
  }

  linearWeights(name: string, inUnits: number, outUnits: number): LinearWeights {
    return {
      weight: this.weight(`${name}.weight`, inUnits, outUnits),
      bias: this.bias(`${name}.bias`, outUnits),
    };
  }

  /** LayerNormalization over the last axis, decomposed as opset-13 exports write it. */
  layerNorm(name: string, input: string, size: number): string {
    const mean = this.op('ReduceMean', `${name}.mean`, [input], [intsAttribute('axes', [-1])]);
    const centered = this.op('Sub', `${name}.sub`, [input, mean]);
    const squared = this.op('Pow', `${name}.pow`, [centered, this.constant(`${name}.two`, [2], [])]);
    const variance = this.op('ReduceMean', `${name}.var`, [squared], [intsAttribute('axes', [-1])]);
    const shifted = this.op('Add', `${name}.eps`, [
      variance,
      this.constant(`${name}.epsilon`, [LAYER_NORM_EPSILON], []),
    ]);
    const deviation = this.op('Sqrt', `${name}.sqrt`, [shifted]);
    const normalized = this.op('Div', `${name}.div`, [centered, deviation]);
    const scaled = this.op('Mul', `${name}.scale`, [normalized, this.constant(`${name}.gamma`, ones(size))]);
    return this.op('Add', `${name}.shift`, [scaled, this.bias(`${name}.beta`, size, 0.02)]);
  }

  /** GELU, exact form: x · 0.5 · (1 + erf(x / √2)). */
  gelu(name: string, input: string): string {
    const scaled = this.op('Div', `${name}.div`, [input, this.constant(`${name}.sqrt2`, [Math.SQRT2], [])]);
    const erf = this.op('Erf', `${name}.erf`, [scaled]);
    const shifted = this.op('Add', `${name}.add`, [erf, this.constant(`${name}.one`, [1], [])]);
    const gated = this.op('Mul', `${name}.mul`, [input, shifted]);
    return this.op('Mul', `${name}.half`, [gated, this.constant(`${name}.half`, [0.5], [])]);
  }
}

interface LinearWeights {
  readonly weight: string;
  readonly bias: string;
}

function ones(size: number): number[] {
  return Array.from({ length: size }, () => 1);
}

/** The serialized ONNX model (protobuf bytes). Same options → same bytes. */
export function generateGenerativeModel(options: GenerativeModelOptions = {}): Uint8Array {
  const seed = options.seed ?? DEFAULT_GENERATIVE_MODEL_SEED;
  const hidden = options.hiddenSize ?? GENERATIVE_MODEL_DEFAULTS.hiddenSize;
  const blocks = options.blocks ?? GENERATIVE_MODEL_DEFAULTS.blocks;
  const passes = options.passes ?? GENERATIVE_MODEL_DEFAULTS.passes;
  if (
    !Number.isInteger(hidden) ||
    hidden < 8 ||
    ![blocks, passes].every((n) => Number.isInteger(n) && n >= 0)
  ) {
    throw new RangeError(
      `Generative model: got hiddenSize ${hidden}, blocks ${blocks}, passes ${passes}, ` +
        'expected integers with hiddenSize ≥ 8, blocks ≥ 0 and passes ≥ 0',
    );
  }
  const vocabulary = GENERATIVE_VOCABULARY_SIZE;
  const { tokenIds, state, logits, nextState } = GENERATIVE_MODEL_SIGNATURE;
  const builder = new StepBuilder(seededRandom(seed));

  // Embedding rows of unit scale: the cell sees inputs of the same range whatever the token.
  const embedding = builder.uniform('embedding', [vocabulary, hidden], -1, 1);
  const embedded = builder.op('Gather', 'embed', [embedding, tokenIds], [intAttribute('axis', 0)]);
  const fromInput = builder.op('MatMul', 'cell.input', [embedded, builder.weight('cell.wx', hidden, hidden)]);
  const fromState = builder.op('MatMul', 'cell.state', [state, builder.weight('cell.wh', hidden, hidden)]);
  const summed = builder.op('Add', 'cell.sum', [fromInput, fromState]);
  const preActivation = builder.op('Add', 'cell.bias', [summed, builder.bias('cell.b', hidden)]);
  builder.nodes.push(node('Tanh', 'cell.tanh', [preActivation], [nextState]));

  const wide = hidden * FEED_FORWARD_FACTOR;
  const blockWeights = Array.from({ length: blocks }, (_, index) => ({
    up: builder.linearWeights(`block${index + 1}.up`, hidden, wide),
    down: builder.linearWeights(`block${index + 1}.down`, wide, hidden),
  }));
  let residual: string = nextState;
  for (let pass = 1; pass <= passes; pass += 1) {
    blockWeights.forEach((weights, index) => {
      const name = `pass${pass}.block${index + 1}`;
      const normalized = builder.layerNorm(`${name}.norm`, residual, hidden);
      const activated = builder.gelu(`${name}.gelu`, builder.linear(`${name}.up`, normalized, weights.up));
      const projected = builder.linear(`${name}.down`, activated, weights.down);
      residual = builder.op('Add', `${name}.residual`, [residual, projected]);
    });
  }
  const final = builder.layerNorm('final.norm', residual, hidden);
  const scores = builder.op('MatMul', 'head.matmul', [
    final,
    builder.weight('head.weight', hidden, vocabulary),
  ]);
  const headBias = Array.from({ length: vocabulary }, (_, id) => (id === EOS_TOKEN_ID ? EOS_LOGIT_BIAS : 0));
  builder.constant('head.bias', headBias);
  builder.nodes.push(node('Add', 'head.add', [scores, 'head.bias'], [logits]));

  const model = onnx.ModelProto.create({
    irVersion: IR_VERSION,
    opsetImport: [{ domain: '', version: OPSET_VERSION }],
    producerName: 'model-serving-optimizer/generative-model',
    producerVersion: '1',
    docString:
      `Example recurrent word-level language model (one decoding step), deterministic weights ` +
      `(seed ${seed}, hidden ${hidden}, blocks ${blocks}, passes ${passes}).`,
    graph: {
      name: 'example_generative_step',
      node: builder.nodes,
      initializer: builder.initializers,
      input: [
        tensorValueInfo(tokenIds, onnx.TensorProto.DataType.INT64, ['N']),
        floatTensorValueInfo(state, ['N', hidden]),
      ],
      output: [
        floatTensorValueInfo(logits, ['N', vocabulary]),
        floatTensorValueInfo(nextState, ['N', hidden]),
      ],
    },
  });
  return onnx.ModelProto.encode(model).finish();
}

/** Generates the generative model and writes it to `path`, creating parent folders. */
export async function writeGenerativeModel(
  path: string,
  options: GenerativeModelOptions = {},
): Promise<{ readonly path: string; readonly bytes: number }> {
  const model = generateGenerativeModel(options);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, model);
  return { path, bytes: model.byteLength };
}
