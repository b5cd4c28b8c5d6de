import type { InferenceSession } from 'onnxruntime-node';

import { GENERATIVE_MODEL_SIGNATURE, GENERATIVE_VOCABULARY_SIZE } from '../../example-model/index.js';
import { UnsupportedModelError } from '../errors.js';

/**
 * The hidden size the model declares, after checking it is a decoding step of the example
 * generative model (local/example-model/generative-model.ts) over this server's vocabulary.
 */
export function describeGenerativeModel(
  inputs: readonly InferenceSession.ValueMetadata[],
  outputs: readonly InferenceSession.ValueMetadata[],
): { readonly hiddenSize: number } {
  const { tokenIds, state, logits, nextState } = GENERATIVE_MODEL_SIGNATURE;
  const find = (list: readonly InferenceSession.ValueMetadata[], name: string) =>
    list.find((value) => value.name === name);
  const tokenInput = find(inputs, tokenIds);
  const stateInput = find(inputs, state);
  const logitsOutput = find(outputs, logits);
  const hidden = stateInput?.isTensor === true ? stateInput.shape[1] : undefined;
  const vocabulary = logitsOutput?.isTensor === true ? logitsOutput.shape[1] : undefined;
  const fits =
    tokenInput?.isTensor === true &&
    tokenInput.type === 'int64' &&
    stateInput?.isTensor === true &&
    stateInput.type === 'float32' &&
    vocabulary === GENERATIVE_VOCABULARY_SIZE &&
    find(outputs, nextState) !== undefined;
  if (!fits || typeof hidden !== 'number') {
    const names = (list: readonly InferenceSession.ValueMetadata[]) =>
      list.map((value) => value.name).join(', ');
    throw new UnsupportedModelError(
      `The model's inputs are [${names(inputs)}] and outputs [${names(outputs)}]: expected the example ` +
        `generative model's step (${tokenIds} int64 [N], ${state} float32 [N, H] → ${logits} float32 ` +
        `[N, ${GENERATIVE_VOCABULARY_SIZE}], ${nextState}); generate it with local/example-model`,
    );
  }
  return { hiddenSize: hidden };
}
