/**
 * What the server needs to know about a model's input and output, derived from the ONNX Runtime
 * session metadata once at start-up. The server serves single-input float32 models whose first
 * dimension is the batch dimension: the shape of the example model and of most vision models.
 */
import type { InferenceSession } from 'onnxruntime-node';

import { UnsupportedModelError } from './errors.js';

export interface InputSignature {
  readonly name: string;
  /** Shape of one sample: the input shape without its batch dimension. */
  readonly sampleShape: readonly number[];
  /** Values in one sample (product of sampleShape). */
  readonly sampleSize: number;
  /** `'dynamic'` for a symbolic batch dimension, else the only batch size the model accepts. */
  readonly batchDimension: 'dynamic' | number;
}

export interface OutputSignature {
  readonly name: string;
  /** Declared shape, symbolic dimensions as their names (e.g. `['N', 10]`). */
  readonly shape: readonly (number | string)[];
}

export interface ModelSignature {
  readonly input: InputSignature;
  /** The output the server returns: the model's first output. */
  readonly output: OutputSignature;
}

export function describeModel(
  inputs: readonly InferenceSession.ValueMetadata[],
  outputs: readonly InferenceSession.ValueMetadata[],
): ModelSignature {
  const [input, ...otherInputs] = inputs;
  if (input === undefined || otherInputs.length > 0) {
    throw new UnsupportedModelError(
      `The model has ${inputs.length} inputs (${inputs.map((i) => i.name).join(', ')}): expected exactly one float32 tensor input`,
    );
  }
  const inputTensor = requireFloat32Tensor(input, 'input');
  const [batchDimension, ...sampleDims] = inputTensor.shape;
  if (batchDimension === undefined) {
    throw new UnsupportedModelError(
      `Model input "${input.name}" is a scalar: expected a tensor whose first dimension is the batch dimension`,
    );
  }
  const sampleShape = sampleDims.map((dim, index) => {
    if (typeof dim !== 'number') {
      throw new UnsupportedModelError(
        `Model input "${input.name}" has a symbolic dimension "${dim}" at position ${index + 1}: expected fixed sizes after the batch dimension, got shape [${inputTensor.shape.join(', ')}]`,
      );
    }
    return dim;
  });

  const [output] = outputs;
  if (output === undefined) throw new UnsupportedModelError('The model has no outputs');
  const outputTensor = requireFloat32Tensor(output, 'output');

  return {
    input: {
      name: input.name,
      sampleShape,
      sampleSize: sampleShape.reduce((product, dim) => product * dim, 1),
      batchDimension: typeof batchDimension === 'number' ? batchDimension : 'dynamic',
    },
    output: { name: output.name, shape: outputTensor.shape },
  };
}

function requireFloat32Tensor(
  value: InferenceSession.ValueMetadata,
  role: 'input' | 'output',
): InferenceSession.TensorValueMetadata {
  if (!value.isTensor || value.type !== 'float32') {
    const given = value.isTensor ? `a ${value.type} tensor` : 'a non-tensor value';
    throw new UnsupportedModelError(`Model ${role} "${value.name}" is ${given}: expected a float32 tensor`);
  }
  return value;
}
