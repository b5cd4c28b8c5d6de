import type { PlannedPayload } from '../contracts/index.js';
import type { CandidateReport, Report, ReportPayload, ReportStep } from './report.js';
import type { TextTable } from './report-tables.js';

/*
 * The report's "Latency by payload" section, for runs that send a mix of payloads: each
 * candidate's figures per payload at the step its verdict rests on, so a size that is slow (or
 * fails) shows beside the others instead of vanishing into the step's percentiles. Built as plain
 * text and tables here; report.md and report.html lay them out.
 */

const NONE = '—';

/** The plan's payloads as report.json lists them: index, where, what, weight, share and size. */
export function reportPayloads(payloads: readonly PlannedPayload[]): ReportPayload[] {
  const total = payloads.reduce((sum, payload) => sum + payload.weight, 0);
  return payloads.map((payload, index) => ({
    index,
    uri: payload.uri,
    contentType: payload.contentType,
    weight: payload.weight,
    share: total > 0 ? Math.round((payload.weight / total) * 10_000) / 10_000 : 0,
    sizeBytes: payload.sizeBytes,
    ...(payload.bucket === undefined ? {} : { bucket: payload.bucket }),
  }));
}

/**
 * `#2 large.json`: the payload's number (from 1) and the last part of its key; a prompt bucket's
 * `#1 short (≤ 1000 chars, 40 prompts)`.
 */
export function payloadLabel(payload: ReportPayload): string {
  const bucket = payload.bucket;
  if (bucket !== undefined) {
    const range = bucket.maxChars === undefined ? 'longer' : `≤ ${bucket.maxChars} chars`;
    return `#${payload.index + 1} ${bucket.name} (${range}, ${payload.weight} prompts)`;
  }
  const name =
    payload.uri
      .split('/')
      .filter((part) => part !== '')
      .at(-1) ?? payload.uri;
  return `#${payload.index + 1} ${name}`;
}

/** 1,536 bytes → "1.5 KiB": sizes as people compare them. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

function formatMs(value: number): string {
  if (value < 10) return value.toFixed(2);
  if (value < 100) return value.toFixed(1);
  return value.toFixed(0);
}

/**
 * The step a candidate's breakdown shows: its sustainable step, or, when none met the SLA, the
 * last step it measured (where it broke down).
 */
export function breakdownStep(candidate: CandidateReport): ReportStep | undefined {
  const withPayloads = candidate.steps.filter((step) => step.payloads !== undefined);
  return (
    withPayloads.find((step) => step.load === candidate.sustainableStep && step.meetsSla) ??
    withPayloads.at(-1)
  );
}

/** One candidate's table: a row per payload of the mix at `breakdownStep`. */
export function payloadTable(report: Report, step: ReportStep): TextTable {
  const payloads = report.payloads ?? [];
  return {
    columns: [
      { header: 'Payload', kind: 'text' },
      { header: 'Size', kind: 'number' },
      { header: 'Weight (share)', kind: 'number' },
      { header: 'Requests', kind: 'number' },
      { header: 'Errors', kind: 'number' },
      { header: 'p50 ms', kind: 'number' },
      { header: 'p95 ms', kind: 'number' },
      { header: 'p99 ms', kind: 'number' },
    ],
    rows: payloads.map((payload) => {
      const figures = step.payloads?.find((entry) => entry.payload === payload.index);
      const measured = figures !== undefined && figures.requests > figures.errors;
      return {
        mark: 'met',
        cells: [
          payloadLabel(payload),
          formatBytes(payload.sizeBytes),
          `${payload.weight} (${(payload.share * 100).toFixed(1)}%)`,
          String(figures?.requests ?? 0),
          String(figures?.errors ?? 0),
          measured ? formatMs(figures.latencyMs.p50) : NONE,
          measured ? formatMs(figures.latencyMs.p95) : NONE,
          measured ? formatMs(figures.latencyMs.p99) : NONE,
        ],
      };
    }),
  };
}

export interface PayloadBreakdown {
  readonly candidate: CandidateReport;
  readonly step: ReportStep;
  /** e.g. "at concurrency 4, its sustainable step". */
  readonly where: string;
  readonly table: TextTable;
}

/** The section's introduction; undefined when the run sent one payload (no section). */
export function payloadBreakdownIntro(report: Report): string | undefined {
  const payloads = report.payloads;
  if (payloads === undefined || payloads.length < 2) return undefined;
  if (payloads.every((payload) => payload.bucket !== undefined)) {
    return (
      `Each request drew one prompt of the set, every prompt as likely (the same draws on every run); ` +
      `the prompts are bucketed by their length in characters (not tokens: the model's tokenizer is the ` +
      "container's). Figures are each candidate's, per bucket, at its sustainable step, or at its last " +
      'measured step when none met the SLA; latency is to the end of the response, of successful requests ' +
      'only. Time to first token is measured over all buckets together, not per bucket.'
    );
  }
  return (
    `Each request drew one of ${payloads.length} payloads at random by weight (the same draws on ` +
    "every run). Figures are each candidate's, per payload, at its sustainable step, or at its last " +
    'measured step when none met the SLA; latency counts successful requests only.'
  );
}

/** Every measured candidate's breakdown, in the report's order. */
export function payloadBreakdowns(report: Report): PayloadBreakdown[] {
  if (payloadBreakdownIntro(report) === undefined) return [];
  return report.candidates.flatMap((candidate) => {
    const step = breakdownStep(candidate);
    if (step === undefined) return [];
    const load = `${step.loadKind === 'arrival-rate' ? 'arrival rate' : 'concurrency'} ${step.load}`;
    const sustainable = step.load === candidate.sustainableStep && step.meetsSla;
    return [
      {
        candidate,
        step,
        where: `at ${load}, ${sustainable ? 'its sustainable step' : 'its last measured step'}`,
        table: payloadTable(report, step),
      },
    ];
  });
}
