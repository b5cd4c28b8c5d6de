/**
 * The example model: a small residual CNN for 32×32 RGB images (CIFAR-sized) with 10 logits,
 * generated in code with deterministic weights so nothing is downloaded from a model hub.
 *
 * Input  `input`  float32 [N, 3, 32, 32] (N = dynamic batch dimension, NCHW)
 * Output `logits` float32 [N, 10]
 *
 * The layers are the ones ONNX Runtime's offline optimizer actually rewrites, so a "compiled"
 * artifact (see local/compiler) is measurably faster than the source model run unoptimized:
 * Conv → BatchNormalization → Relu (Conv+BN folding, Conv+activation fusion), Conv → BN → Add →
 * Relu residuals (Conv+Add+Relu fusion, NCHWc layout) and Gemm → Relu (Gemm+activation fusion).
 * Its size keeps one inference on one thread in the 3–15 ms range uncompiled, so demos stay quick.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

import {
  floatAttribute,
  floatInitializer,
  floatTensorValueInfo,
  intAttribute,
  intsAttribute,
  node,
  onnx,
} from './onnx-builder.js';
import type { NodeProto, TensorProto } from './onnx-builder.js';
import { seededRandom } from '../../core/contracts/index.js';
import { uniformValues } from './seeded-random.js';

/** Input and output of the example model, for clients that build payloads for it. */
export const EXAMPLE_MODEL_SIGNATURE = {
  input: { name: 'input', dtype: 'float32', shape: ['N', 3, 32, 32] },
  output: { name: 'logits', dtype: 'float32', shape: ['N', 10] },
} as const;

/** Number of float32 values in one input sample (3 × 32 × 32). */
export const EXAMPLE_MODEL_SAMPLE_SIZE = 3 * 32 * 32;

export const DEFAULT_EXAMPLE_MODEL_SEED = 20240229;

export interface ExampleModelOptions {
  /**
   * Seed of the weight generator: the same seed always gives the same bytes.
   * @default DEFAULT_EXAMPLE_MODEL_SEED
   */
  readonly seed?: number;
}

// ONNX IR version 8 and opset 13: the newest the bundled onnx-proto schema (ONNX 1.10) describes,
// and well inside what onnxruntime-node 1.30 loads.
const IR_VERSION = 8;
const OPSET_VERSION = 13;
const BATCH_NORM_EPSILON = 1e-5;
const STEM_CHANNELS = 32;
const STAGE2_CHANNELS = 64;
const BLOCKS_PER_STAGE = 4;
const HIDDEN_UNITS = 128;
const CLASSES = 10;

/** Accumulates nodes and initializers, tracking the current tensor and its channel count. */
class CnnBuilder {
  readonly nodes: NodeProto[] = [];
  readonly initializers: TensorProto[] = [];
  private layerCount = 0;

  constructor(private readonly random: () => number) {}

  /** Conv (no bias: the following BatchNormalization provides the shift) → BatchNormalization. */
  convBatchNorm(
    input: string,
    inChannels: number,
    outChannels: number,
    options: { readonly stride?: number } = {},
  ): string {
    const layer = this.nextLayerName('conv');
    const stride = options.stride ?? 1;
    const fanIn = inChannels * 3 * 3;
    // He-uniform initialisation keeps activations in a sane range through the Relus.
    const limit = Math.sqrt(6 / fanIn);
    this.initializers.push(
      floatInitializer(
        `${layer}.weight`,
        [outChannels, inChannels, 3, 3],
        uniformValues(this.random, outChannels * fanIn, -limit, limit),
      ),
    );
    this.nodes.push(
      node(
        'Conv',
        layer,
        [input, `${layer}.weight`],
        [`${layer}.out`],
        [
          intsAttribute('kernel_shape', [3, 3]),
          intsAttribute('pads', [1, 1, 1, 1]),
          intsAttribute('strides', [stride, stride]),
        ],
      ),
    );
    return this.batchNorm(`${layer}.out`, outChannels, layer);
  }

  relu(input: string): string {
    const output = `${input}.relu`;
    this.nodes.push(node('Relu', `${input}/relu`, [input], [output]));
    return output;
  }

  add(left: string, right: string): string {
    const output = `${left}.add`;
    this.nodes.push(node('Add', `${left}/add`, [left, right], [output]));
    return output;
  }

  /** Two Conv-BN layers with an identity shortcut: conv-bn-relu-conv-bn (+ input) → relu. */
  residualBlock(input: string, channels: number): string {
    const first = this.relu(this.convBatchNorm(input, channels, channels));
    const second = this.convBatchNorm(first, channels, channels);
    return this.relu(this.add(second, input));
  }

  globalAveragePoolFlatten(input: string): string {
    this.nodes.push(node('GlobalAveragePool', 'pool', [input], ['pooled']));
    this.nodes.push(node('Flatten', 'flatten', ['pooled'], ['features'], [intAttribute('axis', 1)]));
    return 'features';
  }

  gemm(input: string, inUnits: number, outUnits: number, output?: string): string {
    const layer = this.nextLayerName('fc');
    const limit = Math.sqrt(6 / inUnits);
    this.initializers.push(
      floatInitializer(
        `${layer}.weight`,
        [outUnits, inUnits],
        uniformValues(this.random, outUnits * inUnits, -limit, limit),
      ),
      floatInitializer(`${layer}.bias`, [outUnits], uniformValues(this.random, outUnits, -0.1, 0.1)),
    );
    const result = output ?? `${layer}.out`;
    this.nodes.push(
      node('Gemm', layer, [input, `${layer}.weight`, `${layer}.bias`], [result], [intAttribute('transB', 1)]),
    );
    return result;
  }

  private batchNorm(input: string, channels: number, layer: string): string {
    const name = `${layer}.bn`;
    this.initializers.push(
      floatInitializer(`${name}.scale`, [channels], uniformValues(this.random, channels, 0.8, 1.2)),
      floatInitializer(`${name}.bias`, [channels], uniformValues(this.random, channels, -0.1, 0.1)),
      floatInitializer(`${name}.mean`, [channels], uniformValues(this.random, channels, -0.1, 0.1)),
      floatInitializer(`${name}.var`, [channels], uniformValues(this.random, channels, 0.8, 1.2)),
    );
    this.nodes.push(
      node(
        'BatchNormalization',
        name,
        [input, `${name}.scale`, `${name}.bias`, `${name}.mean`, `${name}.var`],
        [`${name}.out`],
        [floatAttribute('epsilon', BATCH_NORM_EPSILON)],
      ),
    );
    return `${name}.out`;
  }

  private nextLayerName(kind: string): string {
    this.layerCount += 1;
    return `${kind}${this.layerCount}`;
  }
}

/** The serialized ONNX model (protobuf bytes). Same options → same bytes. */
export function generateExampleModel(options: ExampleModelOptions = {}): Uint8Array {
  const seed = options.seed ?? DEFAULT_EXAMPLE_MODEL_SEED;
  const builder = new CnnBuilder(seededRandom(seed));
  const { input, output } = EXAMPLE_MODEL_SIGNATURE;

  const stem = builder.relu(builder.convBatchNorm(input.name, 3, STEM_CHANNELS));
  let stage1 = stem;
  for (let block = 0; block < BLOCKS_PER_STAGE; block += 1) {
    stage1 = builder.residualBlock(stage1, STEM_CHANNELS);
  }
  const downsampled = builder.relu(
    builder.convBatchNorm(stage1, STEM_CHANNELS, STAGE2_CHANNELS, { stride: 2 }),
  );
  let stage2 = downsampled;
  for (let block = 0; block < BLOCKS_PER_STAGE; block += 1) {
    stage2 = builder.residualBlock(stage2, STAGE2_CHANNELS);
  }
  const features = builder.globalAveragePoolFlatten(stage2);
  const hidden = builder.relu(builder.gemm(features, STAGE2_CHANNELS, HIDDEN_UNITS));
  builder.gemm(hidden, HIDDEN_UNITS, CLASSES, output.name);

  const model = onnx.ModelProto.create({
    irVersion: IR_VERSION,
    opsetImport: [{ domain: '', version: OPSET_VERSION }],
    producerName: 'model-serving-optimizer/example-model',
    producerVersion: '1',
    docString: `Example residual CNN, deterministic weights (seed ${seed}).`,
    graph: {
      name: 'example_cnn',
      node: builder.nodes,
      initializer: builder.initializers,
      input: [floatTensorValueInfo(input.name, input.shape)],
      output: [floatTensorValueInfo(output.name, output.shape)],
    },
  });
  return onnx.ModelProto.encode(model).finish();
}

/** Generates the example model and writes it to `path`, creating parent folders. */
export async function writeExampleModel(
  path: string,
  options: ExampleModelOptions = {},
): Promise<{ readonly path: string; readonly bytes: number }> {
  const model = generateExampleModel(options);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, model);
  return { path, bytes: model.byteLength };
}
