import { QUALITY_LIMITS } from '../contracts/index.js';
import { qualityCellText, qualityFiguresText } from './quality-text.js';
import type { Report } from './report.js';
import type { TextColumn, TextTable } from './report-tables.js';

/**
 * The report's "Output quality" section as tables both renderers lay out: the rule and the
 * reference in one sentence, each candidate's verdict with its figures, and the worst answers of
 * each candidate that kept any (input, distance, the reference's answer, the candidate's).
 */
export interface QualitySection {
  readonly intro: string;
  readonly verdicts: TextTable;
  readonly examples: readonly {
    readonly candidateId: string;
    readonly heading: string;
    readonly table: TextTable;
  }[];
}

const VERDICT_COLUMNS: readonly TextColumn[] = [
  { header: 'Candidate', kind: 'text' },
  { header: 'Quality', kind: 'text' },
  { header: 'Figures', kind: 'text' },
  { header: 'Inputs compared', kind: 'number' },
  { header: 'Notes', kind: 'text' },
];

const EXAMPLE_COLUMNS: readonly TextColumn[] = [
  { header: 'Input', kind: 'code' },
  { header: 'Distance', kind: 'number' },
  { header: 'Reference answered', kind: 'code' },
  { header: 'Candidate answered', kind: 'code' },
  { header: 'Problem', kind: 'text' },
];

function distanceText(distance: number | null): string {
  if (distance === null) return 'not comparable';
  return Math.abs(distance) < 1e-3 && distance !== 0 ? distance.toExponential(2) : distance.toPrecision(3);
}

/** The section, or undefined when the run had no quality guard. */
export function qualitySection(report: Report): QualitySection | undefined {
  const { quality } = report;
  if (quality === undefined) return undefined;
  const intro =
    `Each candidate's answers to the same inputs, sent once and deterministically, compared with those of ` +
    `${quality.referenceCandidateId} (the reference) by the rule ${quality.ruleText}. ` +
    (quality.allowUnknown
      ? 'A candidate whose answers could not be judged may still be recommended (quality.allowUnknown).'
      : 'A candidate whose answers fail the rule, or could not be judged, is not recommended.') +
    ` An example's distance: ${quality.distanceUnit}.`;
  const verdicts: TextTable = {
    columns: VERDICT_COLUMNS,
    rows: report.candidates.map((candidate) => {
      const isReference = candidate.id === quality.referenceCandidateId;
      const verdict = candidate.quality;
      return {
        mark: candidate.verdict,
        cells: [
          candidate.id,
          isReference ? 'reference' : (verdict?.verdict ?? 'not compared'),
          isReference || verdict === undefined ? '–' : qualityFiguresText(verdict.figures, quality.rule),
          verdict === undefined ? '–' : String(verdict.figures.inputsCompared),
          [verdict?.reason, ...(verdict?.notes ?? [])].filter((note) => note !== undefined).join('; ') || '–',
        ],
      };
    }),
  };
  const examples = report.candidates.flatMap((candidate) => {
    const verdict = candidate.quality;
    const worst = candidate.qualityExamples ?? [];
    if (verdict === undefined || worst.length === 0) return [];
    return [
      {
        candidateId: candidate.id,
        heading: `${candidate.id}: ${qualityCellText(verdict, false, quality.rule)}; its ${worst.length} worst answers (each cut to ${QUALITY_LIMITS.exampleChars} characters)`,
        table: {
          columns: EXAMPLE_COLUMNS,
          rows: worst.map((example) => ({
            mark: candidate.verdict,
            cells: [
              example.inputId,
              distanceText(example.distance),
              example.reference,
              example.candidate,
              example.problem ?? '–',
            ],
          })),
        },
      },
    ];
  });
  return { intro, verdicts, examples };
}
