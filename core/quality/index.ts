/**
 * The output-quality guard's arithmetic: a candidate's answers against the reference's, by the run
 * input's rule (core/contracts/quality.ts), into a verdict. Pure: the pass that sends the
 * payloads and records the answers gives them here.
 */
export {
  decodeTensorAnswer,
  type DecodedTensor,
  type TensorAnswer,
  type TensorResponse,
} from './tensor-answer.js';
export { compareClassifiers, compareTensors, topClasses } from './tensor-rules.js';
export { compareTokens, tokenF1, type TokenAnswer, type TokenComparison } from './token-overlap.js';
export {
  cutText,
  judgeClassifiers,
  judgeGenerations,
  judgeTensors,
  type CandidateInput,
  type Judged,
  type ReferenceAnswers,
  type ReferenceInput,
  type ScorerResults,
} from './judge.js';
