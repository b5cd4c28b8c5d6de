/**
 * The local compiler's int8 quantization (core/contracts/quantization.ts): static quantization in
 * ONNX's QDQ form, as ONNX Runtime's own `quantize_static` writes it
 * (https://onnxruntime.ai/docs/performance/model-optimizations/quantization.html):
 * - every float activation passes through QuantizeLinear → DequantizeLinear, uint8 with a zero
 *   point, its scale from the range it took over the calibration inputs (widened to hold 0, so
 *   that 0 stays exact, as ONNX Runtime's MinMax calibration does);
 * - the weights of Conv, Gemm and MatMul are stored int8, symmetric (zero point 0): per output
 *   channel for Conv, per tensor for Gemm and MatMul; their bias int32 at the input's scale × the
 *   weight's, so that the integer accumulator adds it unchanged.
 * ONNX Runtime's optimizer (level "all", in compile-model.ts) then fuses each DequantizeLinear →
 * operator → QuantizeLinear group into its int8 kernel (QLinearConv, QGemm, QLinearAdd, …): the
 * artifact computes in int8, and is faster than FP32 on a CPU with int8 dot products.
 *
 * The input is the model after ONNX Runtime's "basic" optimization, which folds each
 * BatchNormalization into its Conv, so there is one weight and one scale per convolution.
 */
import onnxProto from 'onnx-proto';
import type { onnx as OnnxTypes } from 'onnx-proto';

import { CompilationFailedError, seededRandom } from '../../core/contracts/index.js';
import type { Quantization } from '../../core/contracts/index.js';
import { spawnWorkerModule } from '../model-server/index.js';
import { floatTensors } from './auto-cast.js';
import type { CalibrationInput, CalibrationReply, CalibrationRequest } from './calibration-protocol.js';

const { onnx } = onnxProto;
type NodeProto = OnnxTypes.INodeProto;
type TensorProto = OnnxTypes.ITensorProto;
const DataType = onnx.TensorProto.DataType;

/** Operators whose second input is a weight stored int8, and third (if any) a bias stored int32. */
const WEIGHTED_OPS = new Set(['Conv', 'Gemm', 'MatMul']);
/** The seed of the calibration inputs: the same model and range always quantize to the same bytes. */
export const CALIBRATION_SEED = 20240601;
const UINT8_LEVELS = 255;
const INT8_MAX = 127;

export interface QuantizeResult {
  /** The model in QDQ form, to optimize. */
  readonly bytes: Uint8Array;
  /** Weight tensors stored int8. */
  readonly quantizedWeights: number;
  /** Activation tensors given a QuantizeLinear → DequantizeLinear pair. */
  readonly quantizedActivations: number;
  /** Each activation's calibrated range, by tensor name. */
  readonly ranges: ReadonlyMap<string, readonly [number, number]>;
}

/**
 * Runs the model on the calibration inputs (written with every activation as an output to
 * `calibrationModelPath`), then returns it in QDQ form, calibrated by them.
 */
export async function quantizeModel(
  model: Uint8Array,
  calibrationModelPath: string,
  quantization: Quantization,
  writeFile: (path: string, bytes: Uint8Array) => Promise<void>,
): Promise<QuantizeResult> {
  const proto = onnx.ModelProto.decode(model);
  const graph = proto.graph;
  if (graph === null || graph === undefined) {
    throw new CompilationFailedError('The model has no graph: expected an ONNX model with one');
  }
  const initializers = new Map((graph.initializer ?? []).map((tensor) => [tensor.name ?? '', tensor]));
  const floats = floatTensors(graph.node ?? [], graph.input ?? [], initializers);
  const outputs = new Set((graph.output ?? []).map((output) => output.name ?? ''));
  const activations = [...floats].filter((name) => !initializers.has(name) && !outputs.has(name));
  await writeFile(calibrationModelPath, calibrationModel(model, activations));
  const ranges = await calibrate(calibrationModelPath, graph, activations, quantization);
  return { ...rewrite(proto, initializers, ranges), ranges };
}

/** The model with every activation to quantize as an output too, so one run shows all their values. */
function calibrationModel(model: Uint8Array, activations: readonly string[]): Uint8Array {
  const copy = onnx.ModelProto.decode(model);
  const graph = copy.graph;
  if (graph === null || graph === undefined) return model;
  const declared = new Set([...(graph.input ?? []), ...(graph.output ?? [])].map((info) => info.name ?? ''));
  graph.output = [
    ...(graph.output ?? []),
    ...activations
      .filter((name) => !declared.has(name))
      .map((name) => ({ name, type: { tensorType: { elemType: DataType.FLOAT } } })),
  ];
  return onnx.ModelProto.encode(copy).finish();
}

/** The calibration inputs: `samples` seeded draws, uniform over the range, in each input's shape. */
function calibrationSamples(
  graph: OnnxTypes.IGraphProto,
  initializers: ReadonlySet<string>,
  quantization: Quantization,
): CalibrationInput[][] {
  const [min, max] = quantization.calibrationRange;
  const random = seededRandom(CALIBRATION_SEED);
  const inputs = (graph.input ?? []).filter((input) => !initializers.has(input.name ?? ''));
  return Array.from({ length: quantization.calibrationSamples }, () =>
    inputs.map((input) => {
      const type = input.type?.tensorType;
      if (type?.elemType !== DataType.FLOAT) {
        throw new CompilationFailedError(
          `int8 quantization calibrates float32 inputs: input ${input.name ?? '?'} is of ONNX type ${type?.elemType ?? 'unknown'}; expected a model whose inputs are float32`,
        );
      }
      // A symbolic dimension (the batch) is calibrated at 1.
      const dims = (type.shape?.dim ?? []).map((dim) => Number(dim.dimValue ?? 0) || 1);
      const size = dims.reduce((product, dim) => product * dim, 1);
      const values = Float32Array.from({ length: size }, () => min + (max - min) * random());
      return { name: input.name ?? '', values, dims };
    }),
  );
}

/** The range each activation took over the calibration inputs, computed in a worker thread. */
async function calibrate(
  calibrationModelPath: string,
  graph: OnnxTypes.IGraphProto,
  activations: readonly string[],
  quantization: Quantization,
): Promise<Map<string, readonly [number, number]>> {
  const initializerNames = new Set((graph.initializer ?? []).map((tensor) => tensor.name ?? ''));
  const request: CalibrationRequest = {
    modelPath: calibrationModelPath,
    activations,
    samples: calibrationSamples(graph, initializerNames, quantization),
  };
  const worker = spawnWorkerModule('../compiler/calibration-worker', request);
  try {
    const reply = await new Promise<CalibrationReply>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.once('exit', (code) => {
        reject(new Error(`the calibration thread exited with code ${code} before it replied`));
      });
    });
    if (reply.type === 'failed') {
      throw new CompilationFailedError(`Calibration for int8 quantization failed: ${reply.message}`);
    }
    return new Map(reply.ranges.map(([name, range]) => [name, range]));
  } finally {
    await worker.terminate();
  }
}

/** uint8 activation parameters for a range holding 0: scale and zero point. */
export function activationParameters([min, max]: readonly [number, number]): {
  scale: number;
  zeroPoint: number;
} {
  // A tensor that was 0 throughout still needs a positive scale.
  const scale = max > min ? (max - min) / UINT8_LEVELS : 1;
  const zeroPoint = Math.min(UINT8_LEVELS, Math.max(0, Math.round(-min / scale)));
  return { scale, zeroPoint };
}

class QdqWriter {
  readonly nodes: NodeProto[] = [];
  readonly initializers: TensorProto[] = [];
  private readonly dequantized = new Map<string, string>();
  quantizedWeights = 0;

  constructor(
    private readonly sourceInitializers: ReadonlyMap<string, TensorProto>,
    private readonly ranges: ReadonlyMap<string, readonly [number, number]>,
  ) {}

  get quantizedActivations(): number {
    return this.dequantized.size;
  }

  /** The activation through QuantizeLinear → DequantizeLinear (once, shared by its consumers). */
  activation(name: string): string {
    const known = this.dequantized.get(name);
    if (known !== undefined) return known;
    const range = this.ranges.get(name);
    if (range === undefined) return name;
    const { scale, zeroPoint } = activationParameters(range);
    const [scaleName, zeroName, quantized, output] = [
      `${name}/q_scale`,
      `${name}/q_zero_point`,
      `${name}/quantized`,
      `${name}/dequantized`,
    ];
    this.initializers.push(
      { name: scaleName, dims: [], dataType: DataType.FLOAT, floatData: [scale] },
      { name: zeroName, dims: [], dataType: DataType.UINT8, int32Data: [zeroPoint] },
    );
    this.nodes.push(
      {
        opType: 'QuantizeLinear',
        name: `${name}/quantize`,
        input: [name, scaleName, zeroName],
        output: [quantized],
      },
      {
        opType: 'DequantizeLinear',
        name: `${name}/dequantize`,
        input: [quantized, scaleName, zeroName],
        output: [output],
      },
    );
    this.dequantized.set(name, output);
    return output;
  }

  /** An int8 weight (per output channel along axis 0, or per tensor); returns its DQ output and scales. */
  weight(name: string, perChannel: boolean): { output: string; scales: number[] } {
    const tensor = this.sourceInitializers.get(name);
    if (tensor === undefined || tensor.dataType !== DataType.FLOAT) return { output: name, scales: [] };
    const values = floatValues(tensor);
    const dims = (tensor.dims ?? []).map(Number);
    const channels = perChannel ? (dims[0] ?? 1) : 1;
    const perScale = values.length / channels;
    const scales: number[] = [];
    const quantized = new Int8Array(values.length);
    for (let channel = 0; channel < channels; channel += 1) {
      let largest = 0;
      for (let i = 0; i < perScale; i += 1) {
        largest = Math.max(largest, Math.abs(values[channel * perScale + i] ?? 0));
      }
      const scale = largest > 0 ? largest / INT8_MAX : 1;
      scales.push(scale);
      for (let i = 0; i < perScale; i += 1) {
        const index = channel * perScale + i;
        quantized[index] = Math.max(-INT8_MAX, Math.min(INT8_MAX, Math.round((values[index] ?? 0) / scale)));
      }
    }
    const output = `${name}/dequantized`;
    this.initializers.push(
      { name: `${name}/int8`, dims, dataType: DataType.INT8, rawData: new Uint8Array(quantized.buffer) },
      perChannel
        ? { name: `${name}/scale`, dims: [channels], dataType: DataType.FLOAT, floatData: scales }
        : { name: `${name}/scale`, dims: [], dataType: DataType.FLOAT, floatData: scales },
      perChannel
        ? {
            name: `${name}/zero_point`,
            dims: [channels],
            dataType: DataType.INT8,
            rawData: new Uint8Array(channels),
          }
        : { name: `${name}/zero_point`, dims: [], dataType: DataType.INT8, int32Data: [0] },
    );
    this.nodes.push({
      opType: 'DequantizeLinear',
      name: `${name}/dequantize`,
      input: [`${name}/int8`, `${name}/scale`, `${name}/zero_point`],
      output: [output],
      attribute: perChannel ? [axisZero()] : [],
    });
    this.quantizedWeights += 1;
    return { output, scales };
  }

  /** An int32 bias at scale input × weight (per channel), zero point 0. */
  bias(name: string, inputScale: number, weightScales: readonly number[]): string {
    const tensor = this.sourceInitializers.get(name);
    if (tensor === undefined || tensor.dataType !== DataType.FLOAT || weightScales.length === 0) return name;
    const values = floatValues(tensor);
    const scales = values.map(
      (_, index) => inputScale * (weightScales[weightScales.length === 1 ? 0 : index] ?? 1),
    );
    const quantized = Int32Array.from(values, (value, index) => Math.round(value / (scales[index] ?? 1)));
    const output = `${name}/dequantized`;
    this.initializers.push(
      {
        name: `${name}/int32`,
        dims: [values.length],
        dataType: DataType.INT32,
        rawData: new Uint8Array(quantized.buffer),
      },
      { name: `${name}/scale`, dims: [values.length], dataType: DataType.FLOAT, floatData: scales },
      {
        name: `${name}/zero_point`,
        dims: [values.length],
        dataType: DataType.INT32,
        int32Data: values.map(() => 0),
      },
    );
    this.nodes.push({
      opType: 'DequantizeLinear',
      name: `${name}/dequantize`,
      input: [`${name}/int32`, `${name}/scale`, `${name}/zero_point`],
      output: [output],
      attribute: [axisZero()],
    });
    return output;
  }
}

function axisZero(): OnnxTypes.IAttributeProto {
  return { name: 'axis', type: onnx.AttributeProto.AttributeType.INT, i: 0 };
}

/** The model with its activations, weights and biases in QDQ form. */
function rewrite(
  model: OnnxTypes.ModelProto,
  initializers: ReadonlyMap<string, TensorProto>,
  ranges: ReadonlyMap<string, readonly [number, number]>,
): Omit<QuantizeResult, 'ranges'> {
  const graph = model.graph;
  const writer = new QdqWriter(initializers, ranges);
  for (const node of graph?.node ?? []) {
    const op = node.opType ?? '';
    const inputs = node.input ?? [];
    if (WEIGHTED_OPS.has(op) && initializers.has(inputs[1] ?? '')) {
      const [data = '', weightName = '', biasName] = inputs;
      const weight = writer.weight(weightName, op === 'Conv');
      const range = ranges.get(data);
      node.input = [
        writer.activation(data),
        weight.output,
        ...(biasName === undefined || biasName === '' || range === undefined
          ? inputs.slice(2)
          : [writer.bias(biasName, activationParameters(range).scale, weight.scales)]),
      ];
    } else {
      node.input = inputs.map((name) => (initializers.has(name) ? name : writer.activation(name)));
    }
    writer.nodes.push(node);
  }
  if (graph !== null && graph !== undefined) {
    graph.node = writer.nodes;
    graph.initializer = [...(graph.initializer ?? []), ...writer.initializers];
  }
  return {
    bytes: onnx.ModelProto.encode(model).finish(),
    quantizedWeights: writer.quantizedWeights,
    quantizedActivations: writer.quantizedActivations,
  };
}

function floatValues(tensor: TensorProto): number[] {
  const raw = tensor.rawData;
  if (raw !== null && raw !== undefined && raw.length > 0) {
    const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
    return Array.from({ length: raw.byteLength / 4 }, (_, index) => view.getFloat32(index * 4, true));
  }
  return [...(tensor.floatData ?? [])];
}
