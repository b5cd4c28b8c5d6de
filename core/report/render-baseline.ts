import type { Report } from './report.js';

/**
 * The report's "Compared with the last approved version" section, for a run that names a Model
 * Registry package (registry-baseline.ts): the package, the verdict in one sentence, then each
 * candidate both runs measured and what weakens the comparison. Nothing for other runs. The
 * escapers are passed in, as for the other sections, so this module imports no renderer.
 */

const HEADING = 'Compared with the last approved version';

/** Plain-text lines under the verdict: one per candidate, then the notes and the baseline's report. */
export function baselineDetailLines(report: Report): string[] {
  const found = report.baselineComparison;
  if (found === undefined) return [];
  const comparison = found.comparison;
  const lines: string[] = [];
  if (comparison !== undefined) {
    for (const candidate of comparison.candidates) {
      lines.push(`${candidate.id}: ${candidate.change}: ${candidate.reason}`);
      if (candidate.configurationNote !== undefined)
        lines.push(`${candidate.id}: ${candidate.configurationNote}`);
    }
    if (comparison.onlyInBase.length > 0)
      lines.push(`Only in the baseline: ${comparison.onlyInBase.join(', ')}`);
    if (comparison.onlyInNew.length > 0) lines.push(`Only in this run: ${comparison.onlyInNew.join(', ')}`);
    lines.push(...comparison.notes.map((note) => `Note: ${note}`));
  }
  if (found.baseline !== undefined)
    lines.push(`Baseline report: ${found.baselineReportFile ?? found.baseline.reportUri}`);
  return lines;
}

function packageText(report: Report): string | undefined {
  const modelPackage = report.modelPackage;
  return modelPackage === undefined
    ? undefined
    : `Model package ${modelPackage.groupName} version ${modelPackage.version} (${modelPackage.arn}).`;
}

export function baselineMarkdown(report: Report, escape: (text: string) => string): string[] {
  const found = report.baselineComparison;
  const modelPackage = packageText(report);
  if (found === undefined || modelPackage === undefined) return [];
  const details = baselineDetailLines(report);
  return [
    `## ${HEADING}`,
    '',
    escape(modelPackage),
    '',
    `**${escape(found.text)}** (comparison \`${found.verdict}\`)`,
    '',
    ...(details.length === 0 ? [] : [...details.map((line) => `- ${escape(line)}`), '']),
  ];
}

export function baselineHtml(report: Report, escape: (text: string) => string): string {
  const found = report.baselineComparison;
  const modelPackage = packageText(report);
  if (found === undefined || modelPackage === undefined) return '';
  const details = baselineDetailLines(report);
  return [
    `<h2>${HEADING}</h2>`,
    `<p>${escape(modelPackage)}</p>`,
    `<p class="comparison"><strong>${escape(found.text)}</strong> (comparison <code>${escape(found.verdict)}</code>)</p>`,
    ...(details.length === 0
      ? []
      : [`<ul>${details.map((line) => `<li>${escape(line)}</li>`).join('')}</ul>`]),
  ].join('\n');
}
