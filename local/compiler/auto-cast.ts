/**
 * The local compiler's stand-in for a Neuron compile's auto-casting (core/contracts/compiler-options.ts):
 * the FP32 operators the flags select compute on operands rounded to the lower precision, so the
 * compiled model's answers carry the same rounding a Neuron device's would.
 *
 * This CPU has no BF16, FP16 or FP8 arithmetic, so the rounding is written into the ONNX graph:
 * - weights (FP32 initializers the selected operators read) are rounded here, once, to the nearest
 *   value of the type (ties to even), and stay stored as FP32;
 * - activations the selected operators read pass through a Cast to the type and back to FP32
 *   (ONNX Cast, https://onnx.ai/onnx/operators/onnx__Cast.html), which ONNX Runtime executes;
 * - accumulation stays FP32, as on Neuron ("accumulations using FP32": Mixed Precision and
 *   Performance-accuracy Tuning (neuronx-cc),
 *   https://awsdocs-neuron.readthedocs-hosted.com/en/latest/general/appnotes/neuronx-cc/neuronx-cc-training-mixed-precision.html).
 * TF32 has no ONNX type: its weights are rounded, its activations are not. FP8 (E4M3) needs Cast's
 * FLOAT8E4M3FN, from ONNX opset 19 (IR version 9): the graph's opset is raised to it, and a graph
 * with an operator whose definition changed on the way is refused rather than silently altered.
 * The casts cost time on this CPU: the artifact shows the answers of the precision, not its speed.
 */
import onnxProto from 'onnx-proto';
import type { onnx as OnnxTypes } from 'onnx-proto';

import type { AutoCast, AutoCastType } from '../../core/contracts/index.js';
import { CompilationFailedError } from '../../core/contracts/index.js';

const { onnx } = onnxProto;
type ModelProto = OnnxTypes.ModelProto;
type NodeProto = OnnxTypes.INodeProto;
type TensorProto = OnnxTypes.ITensorProto;

const DataType = onnx.TensorProto.DataType;
/** FLOAT8E4M3FN in onnx.proto from ONNX 1.14; the bundled onnx-proto schema predates it. */
const FLOAT8E4M3FN = 17;

/** Operators that run on a Neuron device's matrix-multiply engine: `--auto-cast matmult` casts these. */
const MATMULT_OPS = new Set(['Conv', 'ConvTranspose', 'Gemm', 'MatMul']);
/** Their operands (the data and the weights); a bias is added to the FP32 accumulator. */
const MATMULT_OPERANDS = 2;

/**
 * Operators whose outputs are FP32 when their first input is: the float tensors are found by
 * walking the graph with these, so that no integer tensor (shapes, token ids) is ever cast.
 */
const FLOAT_OPS = new Set([
  ...MATMULT_OPS,
  'Add',
  'Sub',
  'Mul',
  'Div',
  'Pow',
  'Sqrt',
  'Exp',
  'Log',
  'Neg',
  'Abs',
  'Erf',
  'Tanh',
  'Sigmoid',
  'Relu',
  'LeakyRelu',
  'Softmax',
  'LogSoftmax',
  'BatchNormalization',
  'LayerNormalization',
  'GlobalAveragePool',
  'AveragePool',
  'MaxPool',
  'ReduceMean',
  'Flatten',
  'Reshape',
  'Transpose',
  'Squeeze',
  'Unsqueeze',
  'Concat',
  'Identity',
]);
/** Of those, the ones that move data without arithmetic: casting their inputs would round nothing new. */
const DATA_MOVEMENT_OPS = new Set([
  'Flatten',
  'Reshape',
  'Transpose',
  'Squeeze',
  'Unsqueeze',
  'Concat',
  'Identity',
]);

/**
 * Operators whose definition changed between opset 13 and 19 (the operator changelog,
 * https://onnx.ai/onnx/operators/): a graph using them cannot simply be declared opset 19.
 */
const CHANGED_BY_OPSET_19 = new Set([
  'ReduceMean',
  'ReduceSum',
  'ReduceMax',
  'ReduceMin',
  'ReduceProd',
  'ReduceL1',
  'ReduceL2',
  'ReduceLogSum',
  'ReduceLogSumExp',
  'ReduceSumSquare',
  'Split',
  'Pad',
  'Resize',
  'ScatterElements',
  'ScatterND',
]);
const FP8_OPSET = 19;
const FP8_IR_VERSION = 9;

/** Bits of each type: mantissa bits, smallest normal exponent, largest finite value, overflow. */
interface FloatFormat {
  readonly mantissaBits: number;
  readonly minNormalExponent: number;
  readonly maxFinite: number;
  /** FP8 E4M3FN has no infinity: Cast saturates to ±448 by default (its `saturate` attribute). */
  readonly overflow: 'infinity' | 'saturate';
  /** The ONNX type the activations are cast through; none for TF32. */
  readonly onnxType?: number;
}

const FORMATS: Readonly<Record<AutoCastType, FloatFormat>> = {
  bf16: {
    mantissaBits: 7,
    minNormalExponent: -126,
    maxFinite: 3.3895313892515355e38,
    overflow: 'infinity',
    onnxType: DataType.BFLOAT16,
  },
  fp16: {
    mantissaBits: 10,
    minNormalExponent: -14,
    maxFinite: 65504,
    overflow: 'infinity',
    onnxType: DataType.FLOAT16,
  },
  tf32: { mantissaBits: 10, minNormalExponent: -126, maxFinite: 3.4011621342146535e38, overflow: 'infinity' },
  fp8_e4m3: {
    mantissaBits: 3,
    minNormalExponent: -6,
    maxFinite: 448,
    overflow: 'saturate',
    onnxType: FLOAT8E4M3FN,
  },
};

/**
 * Read once, not per weight: under jest, modules run in a vm context, where every lookup of a
 * global such as `Math` goes through the context's global object and costs more than the rounding.
 */
const { abs, floor, fround, log2, max, sign } = Math;
const { isFinite: finite } = Number;

/** `value` rounded to the nearest value of the type (ties to even), as an FP32 number. */
export function roundToType(value: number, type: AutoCastType): number {
  const format = FORMATS[type];
  if (value === 0 || !finite(value)) return value;
  const magnitude = abs(value);
  let exponent = floor(log2(magnitude));
  // log2 can land one off next to a power of two.
  if (2 ** exponent > magnitude) exponent -= 1;
  if (2 ** (exponent + 1) <= magnitude) exponent += 1;
  const quantum = 2 ** (max(exponent, format.minNormalExponent) - format.mantissaBits);
  const steps = magnitude / quantum;
  const below = floor(steps);
  const rest = steps - below;
  const rounded = (rest > 0.5 || (rest === 0.5 && below % 2 === 1) ? below + 1 : below) * quantum;
  const limited =
    rounded <= format.maxFinite ? rounded : format.overflow === 'saturate' ? format.maxFinite : Infinity;
  return fround(sign(value) * limited);
}

export interface AutoCastResult {
  /** The model to optimize: the source itself when nothing is cast. */
  readonly bytes: Uint8Array;
  /** FP32 weight tensors rounded to the type. */
  readonly roundedWeights: number;
  /** Activation tensors passed through a Cast to the type and back. */
  readonly castActivations: number;
  /** Set when the graph's opset was raised for the type's Cast (FP8). */
  readonly opsetRaisedTo?: number;
}

/** The source model with the cast the flags ask for written into its graph. */
export function autoCastModel(source: Uint8Array, autoCast: AutoCast): AutoCastResult {
  if (autoCast.mode === 'none') return { bytes: source, roundedWeights: 0, castActivations: 0 };
  const model = onnx.ModelProto.decode(source);
  const graph = model.graph;
  if (graph === null || graph === undefined) {
    throw new CompilationFailedError('The model has no graph: expected an ONNX model with one');
  }
  const format = FORMATS[autoCast.type];
  const opsetRaisedTo = format.onnxType === FLOAT8E4M3FN ? raiseOpsetForFp8(model) : undefined;
  const initializers = new Map((graph.initializer ?? []).map((tensor) => [tensor.name ?? '', tensor]));
  const floats = floatTensors(graph.node ?? [], graph.input ?? [], initializers);

  const rounded = new Set<string>();
  const casts = new Map<string, string>();
  const nodes: NodeProto[] = [];
  for (const node of graph.node ?? []) {
    const selected = operandIndexes(node, autoCast);
    node.input = (node.input ?? []).map((name, index) => {
      if (!selected(index) || !floats.has(name)) return name;
      const initializer = initializers.get(name);
      if (initializer !== undefined) {
        if (!rounded.has(name)) roundInitializer(initializer, autoCast.type);
        rounded.add(name);
        return name;
      }
      if (format.onnxType === undefined) return name;
      let cast = casts.get(name);
      if (cast === undefined) {
        cast = `${name}/auto_cast_${autoCast.type}`;
        nodes.push(...castPair(name, cast, format.onnxType, casts.size));
        casts.set(name, cast);
      }
      return cast;
    });
    nodes.push(node);
  }
  graph.node = nodes;
  return {
    bytes: onnx.ModelProto.encode(model).finish(),
    roundedWeights: rounded.size,
    castActivations: casts.size,
    ...(opsetRaisedTo === undefined ? {} : { opsetRaisedTo }),
  };
}

/** Which inputs of a node the mode casts. */
function operandIndexes(node: NodeProto, autoCast: AutoCast): (index: number) => boolean {
  const op = node.opType ?? '';
  if (MATMULT_OPS.has(op)) {
    return autoCast.mode === 'all' ? () => true : (index) => index < MATMULT_OPERANDS;
  }
  if (autoCast.mode === 'all' && FLOAT_OPS.has(op) && !DATA_MOVEMENT_OPS.has(op)) return () => true;
  return () => false;
}

/** The FP32 tensors of the graph: its FP32 inputs and initializers, and what FLOAT_OPS make of them. */
export function floatTensors(
  nodes: readonly NodeProto[],
  inputs: readonly OnnxTypes.IValueInfoProto[],
  initializers: ReadonlyMap<string, TensorProto>,
): Set<string> {
  const floats = new Set<string>();
  for (const input of inputs) {
    if (input.type?.tensorType?.elemType === DataType.FLOAT) floats.add(input.name ?? '');
  }
  for (const [name, tensor] of initializers) if (tensor.dataType === DataType.FLOAT) floats.add(name);
  // ONNX graphs list nodes in topological order (ONNX IR, "Graphs"), so one pass suffices.
  for (const node of nodes) {
    const first = node.input?.[0];
    if (first !== undefined && floats.has(first) && FLOAT_OPS.has(node.opType ?? '')) {
      for (const output of node.output ?? []) floats.add(output);
    }
  }
  return floats;
}

function castPair(input: string, output: string, onnxType: number, index: number): NodeProto[] {
  const low = `${output}/low`;
  const to = (type: number) => [{ name: 'to', type: onnx.AttributeProto.AttributeType.INT, i: type }];
  return [
    {
      opType: 'Cast',
      name: `auto_cast_${index}_down`,
      input: [input],
      output: [low],
      attribute: to(onnxType),
    },
    {
      opType: 'Cast',
      name: `auto_cast_${index}_up`,
      input: [low],
      output: [output],
      attribute: to(DataType.FLOAT),
    },
  ];
}

/** Rewrites an FP32 initializer's values, rounded, as little-endian raw data. */
function roundInitializer(tensor: TensorProto, type: AutoCastType): void {
  const values = floatValues(tensor);
  const bytes = new Uint8Array(values.length * 4);
  const view = new DataView(bytes.buffer);
  for (let index = 0; index < values.length; index += 1) {
    view.setFloat32(index * 4, roundToType(values[index] ?? 0, type), true);
  }
  tensor.rawData = bytes;
  tensor.floatData = [];
}

function floatValues(tensor: TensorProto): Float32Array {
  const raw = tensor.rawData;
  if (raw !== null && raw !== undefined && raw.length > 0) {
    const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
    const values = new Float32Array(raw.byteLength / 4);
    for (let index = 0; index < values.length; index += 1) values[index] = view.getFloat32(index * 4, true);
    return values;
  }
  return Float32Array.from(tensor.floatData ?? []);
}

/** Declares the default domain at opset 19 (and IR 9) for Cast to FLOAT8E4M3FN; returns the opset. */
function raiseOpsetForFp8(model: ModelProto): number {
  const changed = [
    ...new Set(
      (model.graph?.node ?? []).map((node) => node.opType ?? '').filter((op) => CHANGED_BY_OPSET_19.has(op)),
    ),
  ];
  const imports = model.opsetImport;
  const current = imports.find((entry) => (entry.domain ?? '') === '');
  const version = integerOf(current?.version);
  if (version >= FP8_OPSET) return version;
  if (changed.length > 0) {
    throw new CompilationFailedError(
      `--auto-cast-type fp8_e4m3 is emulated with ONNX Cast to FLOAT8E4M3FN (opset ${FP8_OPSET}), and this model's ` +
        `opset ${version} uses ${changed.join(', ')}, whose definition changed by opset ${FP8_OPSET}: expected a model ` +
        `exported at opset ${FP8_OPSET} or later, or another --auto-cast-type`,
    );
  }
  model.opsetImport = [
    ...imports.filter((entry) => (entry.domain ?? '') !== ''),
    { domain: '', version: FP8_OPSET },
  ];
  model.irVersion = Math.max(integerOf(model.irVersion), FP8_IR_VERSION);
  return FP8_OPSET;
}

/**
 * protobufjs decodes int64 fields as `Long` objects when the `long` package is loaded, else as
 * numbers; opset and IR versions are small either way.
 */
function integerOf(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'object' && value !== null && 'toNumber' in value) {
    return (value as { toNumber(): number }).toNumber();
  }
  return 0;
}
