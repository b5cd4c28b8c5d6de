import { brokenTimeText, type RampOutcome, type RampScaleOut } from '../serving/index.js';
import type { ServeTargetRamp } from '../serving/index.js';
import type { Report } from './report.js';

/**
 * The "Ramp test" part of the "Serve X TPS" section (report.json's `serveTarget.ramp`): the verdict,
 * then what the ramp was, how long the SLA broke, each scale-out with its lag, what the ramp cost
 * and, when the SLA broke, the headroom that would have held. report.md and report.html render the
 * same sentences (render-serve-target.ts); the terminal gets one line. The chart is ramp-chart.ts.
 */

export const RAMP_HEADING = 'Ramp test';

export interface RampText {
  /** The verdict, one sentence: the ramp's note, or why it failed or was skipped. */
  readonly status: string;
  /** The measured figures, one sentence each; empty when the ramp was not judged. */
  readonly facts: readonly string[];
}

function capitalized(text: string): string {
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
}

/** `failed: <note>`, unless the note already opens with the word. */
function withStatusWord(word: 'failed' | 'skipped', note: string): string {
  return note.toLowerCase().startsWith(word) ? note : `${word}: ${note}`;
}

function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** `140 → 600 TPS over 600 s on 2–9 × ml.c5.large (candidate large)`, with what is known. */
function rampWhat(ramp: ServeTargetRamp, outcome: RampOutcome | undefined, withCandidate = true): string {
  const rates =
    ramp.fromTps === undefined || ramp.toTps === undefined
      ? 'the ramp'
      : `${ramp.fromTps} → ${ramp.toTps} TPS`;
  const over = outcome === undefined ? '' : ` over ${outcome.seconds} s`;
  const instances =
    ramp.minInstances === undefined || ramp.maxInstances === undefined
      ? ''
      : ramp.instanceType === undefined
        ? ` on ${ramp.minInstances}–${ramp.maxInstances} instances`
        : ` on ${ramp.minInstances}–${ramp.maxInstances} × ${ramp.instanceType}`;
  const candidate =
    ramp.candidateId === undefined || !withCandidate ? '' : ` (candidate ${ramp.candidateId})`;
  return `${rates}${over}${instances}${candidate}`;
}

function slaFact(outcome: RampOutcome): string {
  if (outcome.held) return `SLA: held in all ${outcome.chart.length} buckets.`;
  const breaches = outcome.breaches.map(
    (breach) => `${breach.fromSeconds}–${breach.toSeconds} s (${breach.reasons.join(', ')})`,
  );
  return `SLA: broken for ${outcome.slaBrokenMinutes} min (${outcome.slaBrokenSeconds} s): ${breaches.join('; ')}.`;
}

function scaleOutFact(scaleOut: RampScaleOut): string {
  const what = `Scale-out: ${scaleOut.fromInstances} → ${scaleOut.toInstances} instances in service at ${scaleOut.atSeconds} s`;
  return scaleOut.triggerSeconds === null || scaleOut.secondsToScaleOut === null
    ? `${what}; no trigger found (no bucket since the previous scale-out passed the policy’s target per instance).`
    : `${what}, ${scaleOut.secondsToScaleOut} s after the rate per instance passed the policy’s target (at ${scaleOut.triggerSeconds} s).`;
}

function outcomeFacts(ramp: ServeTargetRamp, outcome: RampOutcome): string[] {
  const target =
    ramp.targetInvocationsPerInstance === undefined
      ? ''
      : `; the policy’s target ${ramp.targetInvocationsPerInstance} invocations per instance per minute`;
  const headroom = outcome.held ? undefined : outcome.headroom;
  return [
    `Ramp: ${rampWhat(ramp, outcome)}${target}.`,
    slaFact(outcome),
    ...(outcome.scaleOuts.length === 0
      ? ['Scale-outs: none during the ramp.']
      : outcome.scaleOuts.map(scaleOutFact)),
    `Cost: $${outcome.costUsd.toFixed(4)} for ${outcome.instanceSeconds} instance-seconds (in service and starting).`,
    // The note is a sentence of its own: "headroom 0.2 would have held: …", "no headroom holds: …".
    ...(headroom === undefined ? [] : [sentence(capitalized(headroom.note))]),
    ...(ramp.instancesNote === undefined ? [] : [sentence(`Instances: ${ramp.instancesNote}`)]),
  ];
}

/** The part's sentences: a failed or skipped ramp is its one status line. */
export function rampText(ramp: ServeTargetRamp): RampText {
  if (ramp.status === 'failed' || ramp.status === 'skipped') {
    return { status: sentence(capitalized(withStatusWord(ramp.status, ramp.note))), facts: [] };
  }
  return {
    status: sentence(capitalized(ramp.note)),
    facts: ramp.outcome === undefined ? [] : outcomeFacts(ramp, ramp.outcome),
  };
}

/** `2 → 4 (after 200 s)`: a scale-out in the terminal's few words. */
function scaleOutWords(scaleOut: RampScaleOut): string {
  const lag =
    scaleOut.secondsToScaleOut === null
      ? 'no trigger found'
      : `after ${Math.round(scaleOut.secondsToScaleOut * 10) / 10} s`;
  return `${scaleOut.fromInstances} → ${scaleOut.toInstances} (${lag})`;
}

/**
 * The terminal's line, e.g. `Ramp test 140 → 600 TPS over 600 s: SLA broken 4 min; scale-outs
 * 2 → 4 (after 200 s): see the report`; undefined when the report has no ramp.
 */
export function rampSummaryLine(report: Report): string | undefined {
  const ramp = report.serveTarget?.ramp;
  if (ramp === undefined) return undefined;
  if (ramp.status === 'failed' || ramp.status === 'skipped') {
    return `${RAMP_HEADING} ${withStatusWord(ramp.status, ramp.note)}`;
  }
  const outcome = ramp.outcome;
  if (outcome === undefined) return `${RAMP_HEADING}: ${ramp.note}`;
  const verdict = outcome.held ? 'held' : `SLA broken ${brokenTimeText(outcome)}`;
  const scaleOuts =
    outcome.scaleOuts.length === 0
      ? 'no scale-out'
      : `scale-outs ${outcome.scaleOuts.map(scaleOutWords).join(', ')}`;
  return `${RAMP_HEADING} ${rampWhat(ramp, outcome, false)}: ${verdict}; ${scaleOuts}${outcome.held ? '' : ': see the report'}`;
}
