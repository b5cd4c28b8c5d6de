import {
  InvalidRunInputError,
  s3Uri,
  CandidateStatuses,
  type CandidateOutcome,
  type JudgeQualityEvent,
  OptimizationStates,
  type QualityPassEvent,
  type RecordAnswersEvent,
  type RunPlan,
  type PlannedQuality,
  type QualityVerdict,
  type QualityVerdictSummary,
  type RecordedAnswers,
  type RecordedInput,
  REFERENCE_ASKS,
  type StoredNumber,
  type StoredTensor,
  VERDICT_MAX_NOTES,
  VERDICT_NOTE_CHARS,
  VERDICT_TEXT_CHARS,
} from '../../contracts/index.js';
import {
  type CandidateInput,
  cutText,
  decodeTensorAnswer,
  judgeClassifiers,
  judgeTensors,
  type ReferenceAnswers,
  type TensorAnswer,
} from '../../quality/index.js';
import type { EndpointAnswerer, Logger, ObjectStore } from '../../ports/index.js';
import { refuseRedrive } from './redrive.js';

/**
 * State "Record candidate answers" and state "Judge output quality": the output-quality guard's
 * two halves, one Lambda.
 *
 * Recording runs after a candidate's load test, while its endpoint is still up: the payload set is
 * sent once, one request at a time (the reference twice, to see which inputs it answers
 * deterministically), and each answer is decoded and stored under the run's prefix. After the load
 * test rather than before it, because "Check endpoint" has already set the workers' shared start,
 * and a pass in between would make them late; and once per candidate whatever its re-runs,
 * segments and rounds.
 *
 * Judging runs once every candidate is measured, before "Recommend": the candidates are measured
 * side by side (`maxConcurrentCandidates`), so only then are the reference's answers sure to be
 * recorded, whichever candidate finished first; judging needs no endpoint, so nothing is billed
 * while it runs. Each verdict goes into its candidate's outcome, cut to a summary (the worst
 * examples stay in the object store, for the report).
 */

export interface QualityPassDeps {
  readonly store: ObjectStore;
  readonly answerer: EndpointAnswerer;
  readonly logger: Logger;
  /**
   * When the step must have returned (a Lambda's remaining time): the inputs not yet asked by then
   * are recorded as unanswered, so a slow endpoint makes its verdict "unknown", never a timeout.
   */
  readonly deadlineEpochMs?: number;
  /** @default Date.now */
  readonly nowEpochMs?: () => number;
}

/** Where a candidate's answers are kept; the verdict beside them. */
export function answersUri(plan: Pick<RunPlan, 'runId' | 'artifactsBucket'>, candidateId: string): string {
  return s3Uri(plan.artifactsBucket, `runs/${plan.runId}/quality/${candidateId}/answers.json`);
}

export function verdictUri(plan: Pick<RunPlan, 'runId' | 'artifactsBucket'>, candidateId: string): string {
  return s3Uri(plan.artifactsBucket, `runs/${plan.runId}/quality/${candidateId}/verdict.json`);
}

export interface RecordedAnswersPointer {
  readonly answersUri: string;
  readonly inputs: number;
  readonly unanswered: number;
}

export async function qualityPass(
  event: QualityPassEvent,
  deps: QualityPassDeps,
): Promise<RecordedAnswersPointer | CandidateOutcome[]> {
  return event.action === 'record' ? recordCandidateAnswers(event, deps) : judgeOutputQuality(event, deps);
}

function guardOf(plan: { readonly quality?: PlannedQuality | undefined }): PlannedQuality {
  if (plan.quality !== undefined) return plan.quality;
  // The workflow runs these states only for a plan with a guard ("Quality guarded?").
  throw new InvalidRunInputError([
    {
      field: 'quality',
      given: 'nothing',
      expected: 'a quality block: the guard runs only for a run that has one',
    },
  ]);
}

function toStored(values: Float64Array): StoredNumber[] {
  return Array.from(values, (value): StoredNumber => {
    if (Number.isFinite(value)) return value;
    if (Number.isNaN(value)) return 'NaN';
    return value > 0 ? 'Infinity' : '-Infinity';
  });
}

function fromStored(tensor: StoredTensor): TensorAnswer {
  const values = Float64Array.from(tensor.values, (value) =>
    typeof value === 'number' ? value : Number(value),
  );
  return { shape: tensor.shape, values };
}

/** The input ids a verdict names: the payload's place in the plan's mix, from 1. */
const inputIdOf = (index: number): string => `payload-${index + 1}`;

/**
 * "Record candidate answers": each payload of the plan sent to the candidate's endpoint, in order,
 * one at a time (a load test is over: these requests measure nothing); what each answer is, or why
 * there is none, stored as the candidate's answers document. An endpoint error is an answer's
 * outcome, never the step's: the verdict reads it.
 */
export async function recordCandidateAnswers(
  event: RecordAnswersEvent,
  deps: QualityPassDeps,
): Promise<RecordedAnswersPointer> {
  refuseRedrive(event, OptimizationStates.recordCandidateAnswers);
  const { plan, candidateId } = event;
  const quality = guardOf(plan);
  const asks = candidateId === quality.referenceCandidateId ? REFERENCE_ASKS : 1;
  const inputs: RecordedInput[] = [];
  const now = deps.nowEpochMs ?? Date.now;
  const timeoutMs = plan.loadPlan.requestTimeoutMs;
  for (const [index, payload] of plan.payloads.entries()) {
    const inputId = inputIdOf(index);
    if (deps.deadlineEpochMs !== undefined && now() + asks * timeoutMs > deps.deadlineEpochMs) {
      inputs.push({ inputId, unanswered: "not asked: the step's time ran out before it" });
      continue;
    }
    const request = {
      body: await deps.store.getBytes(payload.uri),
      contentType: payload.contentType,
      ...(payload.accept === undefined ? {} : { accept: payload.accept }),
    };
    const answers: StoredTensor[] = [];
    let outcome: RecordedInput | undefined;
    for (let ask = 0; ask < asks && outcome === undefined; ask += 1) {
      const answer = await deps.answerer.answer(event.deployment.endpointName, request, timeoutMs);
      if (!answer.ok) {
        outcome = { inputId, unanswered: cutText(answer.problem, VERDICT_TEXT_CHARS) };
        continue;
      }
      const decoded = decodeTensorAnswer(answer);
      if (!decoded.ok) outcome = { inputId, unreadable: cutText(decoded.problem, VERDICT_TEXT_CHARS) };
      else answers.push({ shape: decoded.tensor.shape, values: toStored(decoded.tensor.values) });
    }
    inputs.push(outcome ?? { inputId, answers });
  }
  const document: RecordedAnswers = {
    candidateId,
    endpointName: event.deployment.endpointName,
    inputs,
  };
  const uri = answersUri(plan, candidateId);
  await deps.store.putBytes(uri, new TextEncoder().encode(JSON.stringify(document)), 'application/json');
  const unanswered = inputs.filter((input) => 'unanswered' in input).length;
  deps.logger.info('Candidate answers recorded', { candidateId, inputs: inputs.length, unanswered, asks });
  return { answersUri: uri, inputs: inputs.length, unanswered };
}

async function readAnswers(store: ObjectStore, uri: string): Promise<RecordedAnswers | undefined> {
  if ((await store.head(uri)) === undefined) return undefined;
  return JSON.parse(new TextDecoder().decode(await store.getBytes(uri))) as RecordedAnswers;
}

const NOT_MEASURED: ReadonlySet<string> = new Set([CandidateStatuses.failed, CandidateStatuses.skipped]);

/** Why a candidate has no answers to judge, from its outcome. */
function noAnswersReason(outcome: CandidateOutcome | undefined): string {
  if (outcome === undefined) return 'it is not among the measured candidates';
  if (outcome.status === CandidateStatuses.skipped)
    return `it was skipped (${outcome.skipReason ?? 'no reason given'})`;
  if (outcome.status === CandidateStatuses.failed) {
    return `it failed (${outcome.error?.Error ?? 'error'}: ${cutText(outcome.error?.Cause ?? 'no cause given', 300)})`;
  }
  if (outcome.answersError !== undefined) {
    return `recording its answers failed (${outcome.answersError.Error}: ${cutText(outcome.answersError.Cause ?? 'no cause given', 300)})`;
  }
  return 'no answers of it were recorded';
}

async function referenceAnswers(
  store: ObjectStore,
  plan: JudgeQualityEvent['plan'],
  outcome: CandidateOutcome | undefined,
): Promise<ReferenceAnswers<TensorAnswer>> {
  const recorded =
    outcome === undefined || NOT_MEASURED.has(outcome.status)
      ? undefined
      : await readAnswers(store, answersUri(plan, outcome.candidateId));
  if (recorded === undefined) return { outcome: 'failed', reason: noAnswersReason(outcome) };
  return {
    outcome: 'answered',
    inputs: recorded.inputs.map((input) =>
      'answers' in input ? { inputId: input.inputId, answers: input.answers.map(fromStored) } : input,
    ),
  };
}

function candidateAnswers(
  recorded: RecordedAnswers | undefined,
  outcome: CandidateOutcome,
): CandidateInput<TensorAnswer>[] {
  if (recorded === undefined) return [];
  return recorded.inputs.map((input): CandidateInput<TensorAnswer> => {
    if (!('answers' in input)) return input;
    const [first] = input.answers;
    return first === undefined
      ? { inputId: input.inputId, unanswered: `no answer of ${outcome.candidateId} was recorded` }
      : { inputId: input.inputId, answer: fromStored(first) };
  });
}

/** The verdict as the state carries it: no examples, texts cut (QualityVerdictSummary). */
export function summarizeVerdict(verdict: QualityVerdict, uri: string | undefined): QualityVerdictSummary {
  const { worstExamples, rule: _rule, exampleChars: _chars, reason, notes, ...rest } = verdict;
  return {
    ...rest,
    ...(reason === undefined ? {} : { reason: cutText(reason, VERDICT_TEXT_CHARS) }),
    notes: notes.slice(0, VERDICT_MAX_NOTES).map((note) => cutText(note, VERDICT_NOTE_CHARS)),
    ...(uri === undefined ? {} : { verdictUri: uri }),
    worstExampleCount: worstExamples.length,
  };
}

/**
 * "Judge output quality": each measured candidate's answers against the reference's, by the plan's
 * rule. A candidate that failed or was skipped keeps its outcome as it is (it is not recommended
 * anyway); one without answers (its recording failed) is "unknown"; with no reference answers (the
 * reference failed, was skipped, or its recording failed) every candidate is "unknown", naming why.
 */
export async function judgeOutputQuality(
  event: JudgeQualityEvent,
  deps: QualityPassDeps,
): Promise<CandidateOutcome[]> {
  const { plan } = event;
  const quality = guardOf(plan);
  const { rule } = quality;
  if (rule.kind === 'generative') {
    throw new InvalidRunInputError([
      {
        field: 'quality.rule.kind',
        given: 'generative',
        expected: 'tensor or classifier (refused at planning)',
      },
    ]);
  }
  const referenceId = quality.referenceCandidateId;
  const reference = await referenceAnswers(
    deps.store,
    plan,
    event.candidates.find((outcome) => outcome.candidateId === referenceId),
  );
  const judged: CandidateOutcome[] = [];
  for (const outcome of event.candidates) {
    if (NOT_MEASURED.has(outcome.status)) {
      judged.push(outcome);
      continue;
    }
    const recorded = await readAnswers(deps.store, answersUri(plan, outcome.candidateId));
    const answers = candidateAnswers(recorded, outcome);
    const input = {
      candidateId: outcome.candidateId,
      referenceId,
      reference,
      candidate: answers,
      quality,
    };
    const verdict = rule.kind === 'tensor' ? judgeTensors(input, rule) : judgeClassifiers(input, rule);
    const explained: QualityVerdict =
      recorded === undefined && reference.outcome === 'answered'
        ? {
            ...verdict,
            verdict: 'unknown',
            reason: `${outcome.candidateId} cannot be judged: ${noAnswersReason(outcome)}`,
          }
        : verdict;
    const uri = verdictUri(plan, outcome.candidateId);
    await deps.store.putBytes(uri, new TextEncoder().encode(JSON.stringify(explained)), 'application/json');
    judged.push({ ...outcome, quality: summarizeVerdict(explained, uri) });
  }
  deps.logger.info('Output quality judged', {
    referenceId,
    verdicts: Object.fromEntries(
      judged.map((outcome) => [outcome.candidateId, outcome.quality?.verdict ?? 'none']),
    ),
  });
  return judged;
}
