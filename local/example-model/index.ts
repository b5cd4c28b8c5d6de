/**
 * What other rooms import from local/example-model/: they enter the room here, never by one of its modules
 * (test/architecture.test.ts).
 */
export { EXAMPLE_MODEL_SAMPLE_SIZE, generateExampleModel } from './example-model.js';
export { GENERATIVE_MODEL_SIGNATURE, generateGenerativeModel } from './generative-model.js';
export {
  EOS_TOKEN_ID,
  GENERATIVE_VOCABULARY_SIZE,
  encodePrompt,
  isSpecialToken,
  tokenText,
} from './generative-vocabulary.js';
export { onnx } from './onnx-builder.js';
