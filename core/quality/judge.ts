import {
  QUALITY_LIMITS,
  QUALITY_VERDICTS,
  type ClassifierRule,
  type GenerativeRule,
  type QualityExample,
  type QualityFigures,
  type QualityInput,
  type QualityRule,
  type QualityVerdict,
  type QualityVerdictStatus,
  type TensorRule,
} from '../contracts/index.js';
import type { TensorAnswer } from './tensor-answer.js';
import {
  classifierReferenceProblem,
  compareClassifiers,
  compareTensors,
  sameClassification,
  sameTensorAnswer,
  showTensor,
  tensorReferenceProblem,
} from './tensor-rules.js';
import { compareTokens, type TokenAnswer } from './token-overlap.js';

/**
 * A candidate's verdict from its answers and the reference's, by the rule:
 * - the reference asks each input one or more times; an input whose answers disagree by the rule
 *   (no deterministic answer), or whose answer cannot serve (none, unreadable, not finite), is left
 *   out and said so in the notes; with no input left, or a reference that failed, the verdict is
 *   "unknown";
 * - "quality-failed" when an answer cannot be compared with the reference's (different shapes, an
 *   empty or unreadable answer, a value that is not a finite number) or the figures are beyond the
 *   rule; this wins over "unknown", as a candidate shown to answer wrongly once is wrong;
 * - "unknown" when an answer is missing (the candidate failed to answer, the scorer failed): it is
 *   not judged, and it is recommended only when the input allows it.
 */

/** What the reference answered to one input: its answers when asked once or more, or why none. */
export type ReferenceInput<A> =
  | { readonly inputId: string; readonly answers: readonly A[] }
  | { readonly inputId: string; readonly unanswered: string }
  | { readonly inputId: string; readonly unreadable: string };

export type ReferenceAnswers<A> =
  | { readonly outcome: 'answered'; readonly inputs: readonly ReferenceInput<A>[] }
  /** It did not deploy, or did not answer at all: nothing to compare with. */
  | { readonly outcome: 'failed'; readonly reason: string };

/** What the candidate answered to one input. */
export type CandidateInput<A> =
  | { readonly inputId: string; readonly answer: A }
  /** An error instead of an answer (HTTP status, timeout): not judged. */
  | { readonly inputId: string; readonly unanswered: string }
  /** An answer that is not one of the rule's (not a tensor, not JSON): judged wrong. */
  | { readonly inputId: string; readonly unreadable: string };

/** The user's scorer's results: one score from 0 to 1 per input, or why it gave none. */
export type ScorerResults =
  | {
      readonly outcome: 'scored';
      readonly scores: readonly { readonly inputId: string; readonly score: number }[];
    }
  | { readonly outcome: 'failed'; readonly reason: string };

export interface Judged<A> {
  readonly candidateId: string;
  readonly referenceId: string;
  readonly reference: ReferenceAnswers<A>;
  readonly candidate: readonly CandidateInput<A>[];
  readonly quality: Pick<QualityInput, 'worstExamples'>;
}

/** One input's outcome under a rule, before the figures over the payload set. */
interface InputOutcome {
  readonly inputId: string;
  /** A problem that fails the candidate whatever the figures. */
  readonly problem?: string;
  readonly distance: number | null;
  readonly reference: string;
  readonly candidate: string;
}

/** What a rule says of the reference's own answers: whether one can serve, whether two agree. */
interface ReferenceChecks<A> {
  referenceProblem(answer: A): string | undefined;
  same(first: A, second: A): boolean;
}

interface Usable<A> {
  readonly inputId: string;
  readonly reference: A;
  readonly candidate: A | { readonly unreadable: string };
}

interface Prepared<A> {
  readonly usable: readonly Usable<A>[];
  readonly unanswered: readonly string[];
  readonly leftOut: number;
  readonly notes: readonly string[];
  /** Why nothing can be judged. */
  readonly unknown?: string;
}

const MAX_IDS_IN_TEXT = 5;

function listIds(ids: readonly string[]): string {
  const shown = ids.slice(0, MAX_IDS_IN_TEXT).join(', ');
  return ids.length > MAX_IDS_IN_TEXT ? `${shown} and ${ids.length - MAX_IDS_IN_TEXT} more` : shown;
}

/** A text cut to `max` characters, "…" in place of what was cut. */
export function cutText(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** The reference's usable answers paired with the candidate's, and what was left out and why. */
function prepare<A>(judged: Judged<A>, rules: ReferenceChecks<A>): Prepared<A> {
  const { reference } = judged;
  if (reference.outcome === 'failed') {
    return {
      usable: [],
      unanswered: [],
      leftOut: 0,
      notes: [],
      unknown: `the reference ${judged.referenceId} failed (${reference.reason}): there is nothing to compare with`,
    };
  }
  const leftOut = new Map<string, string[]>();
  const leave = (why: string, inputId: string) => leftOut.set(why, [...(leftOut.get(why) ?? []), inputId]);
  const candidates = new Map(judged.candidate.map((answer) => [answer.inputId, answer]));
  const usable: Usable<A>[] = [];
  const unanswered: string[] = [];
  for (const input of reference.inputs) {
    if ('unanswered' in input) {
      leave('the reference did not answer them', input.inputId);
      continue;
    }
    if ('unreadable' in input) {
      leave(`the reference's answer is unreadable (${input.unreadable})`, input.inputId);
      continue;
    }
    const [first, ...repeats] = input.answers;
    if (first === undefined) {
      leave('no answer of the reference was recorded', input.inputId);
      continue;
    }
    const problem = rules.referenceProblem(first);
    if (problem !== undefined) {
      leave(problem, input.inputId);
      continue;
    }
    if (repeats.some((repeat) => !rules.same(first, repeat))) {
      leave(
        'the reference answered them differently when asked again (no deterministic answer)',
        input.inputId,
      );
      continue;
    }
    const answer = candidates.get(input.inputId);
    if (answer === undefined || 'unanswered' in answer) {
      unanswered.push(
        `${input.inputId} (${answer === undefined ? 'no answer recorded' : answer.unanswered})`,
      );
      continue;
    }
    usable.push({
      inputId: input.inputId,
      reference: first,
      candidate: 'answer' in answer ? answer.answer : { unreadable: answer.unreadable },
    });
  }
  const total = reference.inputs.length;
  // Reasons can be per input (the element a NaN is at): a prompt set of thousands must not make a
  // verdict too large for a state, so the first few are spelled out and the rest counted.
  const groups = [...leftOut];
  const notes = groups
    .slice(0, MAX_IDS_IN_TEXT)
    .map(([why, ids]) => `${ids.length} of ${total} inputs left out, as ${why}: ${listIds(ids)}`);
  const leftOutCount = [...leftOut.values()].reduce((sum, ids) => sum + ids.length, 0);
  if (groups.length > MAX_IDS_IN_TEXT) {
    const rest = groups.slice(MAX_IDS_IN_TEXT).reduce((sum, [, ids]) => sum + ids.length, 0);
    notes.push(`${rest} more inputs left out, for ${groups.length - MAX_IDS_IN_TEXT} other reasons`);
  }
  if (usable.length === 0 && unanswered.length === 0) {
    return {
      usable,
      unanswered,
      leftOut: leftOutCount,
      notes,
      unknown:
        total === 0
          ? 'the reference answered no input: there is nothing to compare with'
          : `no input has a reference answer to compare with: ${notes.join('; ')}`,
    };
  }
  return { usable, unanswered, leftOut: leftOutCount, notes };
}

/** The worst outcomes, worst first: incomparable ones, then by distance; equal answers never. */
function worstExamples(outcomes: readonly InputOutcome[], count: number): QualityExample[] {
  const chars = QUALITY_LIMITS.exampleChars;
  return outcomes
    .filter((outcome) => outcome.distance === null || outcome.distance > 0)
    .sort((a, b) => (b.distance ?? Number.POSITIVE_INFINITY) - (a.distance ?? Number.POSITIVE_INFINITY))
    .slice(0, count)
    .map(({ inputId, distance, reference, candidate, problem }) => ({
      inputId,
      distance,
      reference: cutText(reference, chars),
      candidate: cutText(candidate, chars),
      ...(problem === undefined ? {} : { problem }),
    }));
}

function verdictOf(
  judged: Judged<unknown>,
  rule: QualityRule,
  parts: {
    readonly verdict: QualityVerdictStatus;
    readonly reason?: string | undefined;
    readonly figures: QualityFigures;
    readonly outcomes: readonly InputOutcome[];
    readonly notes: readonly string[];
  },
): QualityVerdict {
  return {
    candidateId: judged.candidateId,
    referenceId: judged.referenceId,
    verdict: parts.verdict,
    ...(parts.reason === undefined ? {} : { reason: parts.reason }),
    rule,
    figures: parts.figures,
    worstExamples: worstExamples(parts.outcomes, judged.quality.worstExamples),
    exampleChars: QUALITY_LIMITS.exampleChars,
    notes: parts.notes,
  };
}

/** "quality-failed" for the failures, else "unknown" for the unanswered, else "passed". */
function decide(
  failures: readonly string[],
  unknowns: readonly string[],
): { verdict: QualityVerdictStatus; reason?: string } {
  if (failures.length > 0) return { verdict: QUALITY_VERDICTS.qualityFailed, reason: failures.join('; ') };
  if (unknowns.length > 0) return { verdict: QUALITY_VERDICTS.unknown, reason: unknowns.join('; ') };
  return { verdict: QUALITY_VERDICTS.passed };
}

function unansweredReason(unanswered: readonly string[]): string[] {
  return unanswered.length === 0
    ? []
    : [
        `the candidate did not answer ${unanswered.length} input(s), which are not judged: ${listIds(unanswered)}`,
      ];
}

/** Incomparable answers, as one failure naming the first few. */
function problemReason(outcomes: readonly InputOutcome[]): string[] {
  const problems = outcomes.filter((outcome) => outcome.problem !== undefined);
  if (problems.length === 0) return [];
  const first = problems
    .slice(0, MAX_IDS_IN_TEXT)
    .map((outcome) => `${outcome.inputId}: ${outcome.problem ?? ''}`)
    .join('; ');
  return [`${problems.length} answer(s) cannot be compared with the reference's (${first})`];
}

function unreadableOutcome<A>(
  usable: Usable<A>,
  show: (answer: A) => string,
  unreadable: string,
): InputOutcome {
  return {
    inputId: usable.inputId,
    problem: `an unreadable answer (${unreadable})`,
    distance: null,
    reference: show(usable.reference),
    candidate: '',
  };
}

function unknownVerdict(
  judged: Judged<unknown>,
  rule: QualityRule,
  prepared: Prepared<unknown>,
): QualityVerdict {
  return verdictOf(judged, rule, {
    verdict: QUALITY_VERDICTS.unknown,
    reason: prepared.unknown,
    figures: { inputsCompared: 0, inputsLeftOut: prepared.leftOut },
    outcomes: [],
    notes: prepared.notes,
  });
}

const format = (value: number): string => String(Number(value.toPrecision(3)));

/** The tensor rule: every element of every answer within numpy's `isclose` tolerance. */
export function judgeTensors(judged: Judged<TensorAnswer>, rule: TensorRule): QualityVerdict {
  const show = (answer: TensorAnswer) => showTensor(answer, QUALITY_LIMITS.exampleChars);
  const prepared = prepare(judged, {
    referenceProblem: tensorReferenceProblem,
    same: (first, second) => sameTensorAnswer(first, second, rule),
  });
  if (prepared.unknown !== undefined) return unknownVerdict(judged, rule, prepared);
  let maxAbsoluteDifference = 0;
  let maxRelativeDifference: number | undefined;
  const beyond: string[] = [];
  const outcomes = prepared.usable.map((usable): InputOutcome => {
    if ('unreadable' in usable.candidate) return unreadableOutcome(usable, show, usable.candidate.unreadable);
    const comparison = compareTensors(usable.reference, usable.candidate, rule);
    const shown = {
      inputId: usable.inputId,
      reference: show(usable.reference),
      candidate: show(usable.candidate),
    };
    if (!comparison.comparable) return { ...shown, problem: comparison.problem, distance: null };
    maxAbsoluteDifference = Math.max(maxAbsoluteDifference, comparison.maxAbsoluteDifference);
    if (comparison.maxRelativeDifference !== undefined) {
      maxRelativeDifference = Math.max(maxRelativeDifference ?? 0, comparison.maxRelativeDifference);
    }
    if (comparison.distance > 1) beyond.push(usable.inputId);
    return { ...shown, distance: comparison.distance };
  });
  const failures = [
    ...problemReason(outcomes),
    ...(beyond.length === 0
      ? []
      : [
          `${beyond.length} of ${outcomes.length} answers beyond tolerance (|candidate − reference| ≤ ` +
            `${rule.maxAbsoluteDifference} + ${rule.maxRelativeDifference} × |reference|): ${listIds(beyond)}; ` +
            `largest difference ${format(maxAbsoluteDifference)}`,
        ]),
  ];
  return verdictOf(judged, rule, {
    ...decide(failures, unansweredReason(prepared.unanswered)),
    figures: {
      inputsCompared: outcomes.length,
      inputsLeftOut: prepared.leftOut,
      maxAbsoluteDifference,
      ...(maxRelativeDifference === undefined ? {} : { maxRelativeDifference }),
    },
    outcomes,
    notes: prepared.notes,
  });
}

/** The classifier rule: the share of rows whose top classes agree, at least `minAgreementRate`. */
export function judgeClassifiers(judged: Judged<TensorAnswer>, rule: ClassifierRule): QualityVerdict {
  const show = (answer: TensorAnswer) => showTensor(answer, QUALITY_LIMITS.exampleChars);
  const prepared = prepare(judged, {
    referenceProblem: (answer) => classifierReferenceProblem(answer, rule),
    same: (first, second) => sameClassification(first, second, rule),
  });
  if (prepared.unknown !== undefined) return unknownVerdict(judged, rule, prepared);
  let rows = 0;
  let agreeingRows = 0;
  const outcomes = prepared.usable.map((usable): InputOutcome => {
    if ('unreadable' in usable.candidate) return unreadableOutcome(usable, show, usable.candidate.unreadable);
    const comparison = compareClassifiers(usable.reference, usable.candidate, rule);
    const shown = {
      inputId: usable.inputId,
      reference: show(usable.reference),
      candidate: show(usable.candidate),
    };
    if (!comparison.comparable) return { ...shown, problem: comparison.problem, distance: null };
    rows += comparison.rows;
    agreeingRows += comparison.agreeingRows;
    return { ...shown, distance: comparison.distance };
  });
  const agreementRate = rows === 0 ? 1 : agreeingRows / rows;
  const failures = [
    ...problemReason(outcomes),
    ...(agreementRate < rule.minAgreementRate
      ? [
          `top-${rule.topK} agreement ${format(agreementRate)} (${agreeingRows} of ${rows} rows), below the ` +
            `rule's ${rule.minAgreementRate}`,
        ]
      : []),
  ];
  return verdictOf(judged, rule, {
    ...decide(failures, unansweredReason(prepared.unanswered)),
    figures: {
      inputsCompared: outcomes.length,
      inputsLeftOut: prepared.leftOut,
      agreementRate,
      rowsCompared: rows,
    },
    outcomes,
    notes: prepared.notes,
  });
}

/** A scorer's scores by input, or why they cannot be used. */
function scoresByInput(
  scores: ScorerResults | undefined,
  inputIds: readonly string[],
): { readonly scores: ReadonlyMap<string, number> } | { readonly unknown: string } {
  if (scores === undefined) return { unknown: 'the scorer was not run' };
  if (scores.outcome === 'failed') return { unknown: `the scorer failed (${scores.reason})` };
  const byInput = new Map(scores.scores.map(({ inputId, score }) => [inputId, score]));
  const missing = inputIds.filter((inputId) => !byInput.has(inputId));
  if (missing.length > 0) return { unknown: `the scorer gave no score for ${listIds(missing)}` };
  const wrong = inputIds.find((inputId) => {
    const score = byInput.get(inputId) ?? Number.NaN;
    return !Number.isFinite(score) || score < 0 || score > 1;
  });
  if (wrong !== undefined) {
    return {
      unknown: `the scorer gave ${String(byInput.get(wrong))} for ${wrong}: expected a score from 0 to 1`,
    };
  }
  return { scores: byInput };
}

/**
 * The generative rule on greedy answers: the exact-match rate and the mean token-level F1 of the
 * first `firstTokens` tokens, and the scorer's mean score, each at least the rule's.
 */
export function judgeGenerations(
  judged: Judged<TokenAnswer>,
  rule: GenerativeRule,
  scorer?: ScorerResults,
): QualityVerdict {
  const show = (answer: TokenAnswer) => JSON.stringify(answer.tokens.slice(0, rule.firstTokens));
  const prepared = prepare(judged, {
    referenceProblem: () => undefined,
    same: (first, second) => compareTokens(first, second, rule.firstTokens).exactMatch,
  });
  if (prepared.unknown !== undefined) return unknownVerdict(judged, rule, prepared);
  let exact = 0;
  let f1Sum = 0;
  const outcomes = prepared.usable.map((usable): InputOutcome => {
    if ('unreadable' in usable.candidate) return unreadableOutcome(usable, show, usable.candidate.unreadable);
    const comparison = compareTokens(usable.reference, usable.candidate, rule.firstTokens);
    if (comparison.exactMatch) exact += 1;
    f1Sum += comparison.f1;
    // An empty answer scores 0 and does not match: the figures judge it, as any other answer.
    return {
      inputId: usable.inputId,
      distance: 1 - comparison.f1,
      reference: show(usable.reference),
      candidate: show(usable.candidate),
    };
  });
  const compared = outcomes.length;
  const exactMatchRate = compared === 0 ? 1 : exact / compared;
  const meanTokenF1 = compared === 0 ? 1 : f1Sum / compared;
  const failures = problemReason(outcomes);
  if (rule.minExactMatchRate !== undefined && exactMatchRate < rule.minExactMatchRate) {
    failures.push(
      `exact match of the first ${rule.firstTokens} tokens ${format(exactMatchRate)} (${exact} of ${compared}), below the rule's ${rule.minExactMatchRate}`,
    );
  }
  if (rule.minMeanTokenF1 !== undefined && meanTokenF1 < rule.minMeanTokenF1) {
    failures.push(`mean token F1 ${format(meanTokenF1)}, below the rule's ${rule.minMeanTokenF1}`);
  }
  const unknowns = unansweredReason(prepared.unanswered);
  let meanScore: number | undefined;
  if (rule.scorer !== undefined && compared > 0) {
    const scoredIds = outcomes
      .filter((outcome) => outcome.distance !== null)
      .map((outcome) => outcome.inputId);
    const scored = scoresByInput(scorer, scoredIds);
    if ('unknown' in scored) unknowns.push(scored.unknown);
    else if (scoredIds.length > 0) {
      meanScore =
        scoredIds.reduce((sum, inputId) => sum + (scored.scores.get(inputId) ?? 0), 0) / scoredIds.length;
      if (meanScore < rule.scorer.minMeanScore) {
        failures.push(
          `the scorer's mean score ${format(meanScore)}, below the rule's ${rule.scorer.minMeanScore}`,
        );
      }
    }
  }
  return verdictOf(judged, rule, {
    ...decide(failures, unknowns),
    figures: {
      inputsCompared: compared,
      inputsLeftOut: prepared.leftOut,
      exactMatchRate,
      meanTokenF1,
      ...(meanScore === undefined ? {} : { meanScore }),
    },
    outcomes,
    notes: prepared.notes,
  });
}
