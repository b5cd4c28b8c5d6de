/**
 * Small helpers over the `onnx-proto` message classes, so the model definition reads as a list of
 * layers rather than protobuf plumbing.
 */
import onnxProto from 'onnx-proto';
import type { onnx as OnnxTypes } from 'onnx-proto';

export const { onnx } = onnxProto;
export type TensorProto = OnnxTypes.ITensorProto;
export type NodeProto = OnnxTypes.INodeProto;
export type ValueInfoProto = OnnxTypes.IValueInfoProto;
export type AttributeProto = OnnxTypes.IAttributeProto;

/** A dimension is a fixed size or a symbolic name (e.g. `'N'` for a dynamic batch dimension). */
export type Dimension = number | string;

/**
 * A float32 initializer. Values go in `rawData` as little-endian bytes, as the ONNX spec requires
 * for raw data, written through a DataView so the bytes do not depend on the host's endianness.
 */
export function floatInitializer(name: string, dims: readonly number[], values: Float32Array): TensorProto {
  const expected = dims.reduce((product, dim) => product * dim, 1);
  if (values.length !== expected) {
    throw new RangeError(
      `Initializer ${name}: got ${values.length} values, expected ${expected} for dims [${dims.join(', ')}]`,
    );
  }
  const bytes = new Uint8Array(values.length * 4);
  const view = new DataView(bytes.buffer);
  values.forEach((value, index) => {
    view.setFloat32(index * 4, value, true);
  });
  return {
    name,
    dims: [...dims],
    dataType: onnx.TensorProto.DataType.FLOAT,
    rawData: bytes,
  };
}

export function intAttribute(name: string, value: number): AttributeProto {
  return { name, type: onnx.AttributeProto.AttributeType.INT, i: value };
}

export function intsAttribute(name: string, values: readonly number[]): AttributeProto {
  return { name, type: onnx.AttributeProto.AttributeType.INTS, ints: [...values] };
}

export function floatAttribute(name: string, value: number): AttributeProto {
  return { name, type: onnx.AttributeProto.AttributeType.FLOAT, f: value };
}

export function node(
  opType: string,
  name: string,
  inputs: readonly string[],
  outputs: readonly string[],
  attributes: readonly AttributeProto[] = [],
): NodeProto {
  return { opType, name, input: [...inputs], output: [...outputs], attribute: [...attributes] };
}

/** A float32 tensor graph input or output. */
export function floatTensorValueInfo(name: string, shape: readonly Dimension[]): ValueInfoProto {
  return tensorValueInfo(name, onnx.TensorProto.DataType.FLOAT, shape);
}

/** A graph input or output of any tensor element type (e.g. `INT64` token ids). */
export function tensorValueInfo(
  name: string,
  elemType: OnnxTypes.TensorProto.DataType,
  shape: readonly Dimension[],
): ValueInfoProto {
  return {
    name,
    type: {
      tensorType: {
        elemType,
        shape: {
          dim: shape.map((dim) => (typeof dim === 'number' ? { dimValue: dim } : { dimParam: dim })),
        },
      },
    },
  };
}
