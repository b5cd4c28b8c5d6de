import { instanceSpreadText } from '../serving/index.js';
import type { ServeTargetProof, ServeTarget } from '../serving/index.js';
import { figure } from './render-charts.js';
import { RAMP_HEADING, rampText } from './render-ramp.js';
import type { Report } from './report.js';
import { escapeMarkdown } from './markdown-text.js';
import { RoutingStrategies } from '../contracts/index.js';

/**
 * The "Serve X TPS" section of report.md and report.html (and the terminal's one line): what to
 * deploy for the SLA's target, what it costs there, and the autoscaling policy ready to apply.
 * Both renderers put it after the outcome and the recommendation when the report has a target
 * (`report.serveTarget`), and its autoscaling policy (requests and code) folded at the end.
 */

/** The proof when it ran and the count it tested did not carry the target within the SLA. */
export function proofNotHeld(report: Report): ServeTargetProof | undefined {
  const proof = report.serveTarget?.proof;
  return proof?.status === 'not-held' ? proof : undefined;
}

/**
 * The headline of a run whose proof did not hold: the count it tested and what it measured, so
 * that no page opens with a count its own proof disproved.
 */
export function proofNotHeldHeadline(proof: ServeTargetProof): string {
  const what = `${proof.instances ?? '?'} × ${proof.instanceType ?? proof.candidateId ?? '?'}`;
  const m = proof.measured;
  const measured =
    m === undefined ? '' : `: it served ${m.tps} TPS, p95 ${m.p95Ms} ms, error rate ${m.errorRate}`;
  return `The proof did not hold: ${what} did not carry ${proof.targetTps} TPS within the SLA${measured}`;
}

export function serveTargetHeading(st: ServeTarget): string {
  return `Serve ${st.targetTps} TPS`;
}

/** `3 × ml.c5.xlarge: $0.6120/h, $0.2833 per 1M inferences at 600 TPS (candidate c2)`. */
export function serveTargetHeadline(st: ServeTarget): string {
  if (st.proof?.status === 'not-held') return proofNotHeldHeadline(st.proof);
  const a = st.atTarget;
  if (st.candidateId === undefined || a === undefined) {
    return `No candidate that met the SLA can carry ${st.targetTps} TPS`;
  }
  const what =
    a.instances === undefined
      ? `serverless, ${a.concurrency ?? '?'} concurrent requests`
      : `${a.instances} × ${st.instanceType ?? 'the existing endpoint’s instance type'}`;
  const cost =
    a.usdPerHour === undefined || a.costPer1MUsd === undefined
      ? 'no price'
      : `$${a.usdPerHour.toFixed(4)}/h, $${a.costPer1MUsd.toFixed(4)} per 1M inferences`;
  return `${what}: ${cost} at ${st.targetTps} TPS (candidate ${st.candidateId})`;
}

/** The section's facts, one sentence each, in reading order. */
export function serveTargetFacts(st: ServeTarget): string[] {
  return [
    ...(st.atTarget === undefined ? [] : [`Sizing: ${st.atTarget.note}.`]),
    `Availability: at least ${st.minInstances} instance${st.minInstances === 1 ? '' : 's'}; headroom ${st.headroom} of each instance's sustainable TPS.`,
    ...routingFacts(st),
    `${st.provenNote.charAt(0).toUpperCase()}${st.provenNote.slice(1)}.`,
    ...proofFacts(st.proof),
    ...st.warnings.map((warning) => `Warning: ${warning}.`),
  ];
}

/** How the instances share the requests: what the deploy requests' RoutingConfig says. */
function routingFacts(st: ServeTarget): string[] {
  if (st.routingStrategy === undefined) return [];
  const how =
    st.routingStrategy === RoutingStrategies.leastOutstandingRequests
      ? 'each request goes to an instance with more capacity to process it'
      : 'each request goes to an instance chosen at random, SageMaker’s default';
  return [
    `Routing: ${st.routingStrategy} (the candidate’s routingStrategy): ${how}; the deploy requests and ` +
      'the proof carry it as the variant’s RoutingConfig.',
  ];
}

/** The proof's measured step and its spread over the instances, when it ran. */
function proofFacts(proof: ServeTargetProof | undefined): string[] {
  if (proof?.measured === undefined) return [];
  const m = proof.measured;
  const spread = `Per instance: ${instanceSpreadText(proof)}.`;
  const previous = proof.previous;
  return [
    `Proof at ${proof.targetTps} TPS on ${proof.instances ?? '?'} instance(s), ${m.workers} worker(s): ${m.tps} TPS, p95 ${m.p95Ms} ms, p99 ${m.p99Ms} ms, error rate ${m.errorRate}.`,
    spread,
    ...(previous === undefined
      ? []
      : [`Before the correction, on ${previous.instances ?? '?'} instance(s): ${previous.note}.`]),
  ];
}

/** The terminal's caveat: the proof's verdict in a few words, or why the figures are not proven. */
function proofCaveat(st: ServeTarget): string {
  if (st.candidateId === undefined) return '';
  const proof = st.proof;
  if (proof === undefined || proof.status === 'skipped')
    return ' (not proven: measured, not tested at the target)';
  const what = `${proof.instances ?? '?'} × ${proof.instanceType ?? proof.candidateId ?? '?'}`;
  const m = proof.measured;
  if (proof.status === 'held' && m !== undefined) {
    const corrected =
      proof.previous === undefined
        ? ''
        : `; corrected from ${proof.previous.instances ?? '?'}, which did not hold`;
    return ` (proven: ${what} held p95 ${m.p95Ms} ms at ${m.tps} TPS${corrected})`;
  }
  // The headline already says it did not hold, with the figures.
  if (proof.status === 'not-held') return ' (see the report)';
  return ` (proof failed: see the report)`;
}

/** The terminal's one line, e.g. `Serve 600 TPS: 3 × ml.c5.xlarge: … (proven: … held p95 …)`. */
export function serveTargetSummaryLine(report: Report): string | undefined {
  const st = report.serveTarget;
  if (st === undefined) return undefined;
  return `${serveTargetHeading(st)}: ${serveTargetHeadline(st)}${proofCaveat(st)}`;
}

function policyBlocks(st: ServeTarget): { title: string; language: string; code: string }[] {
  const policy = st.policy;
  if (policy === undefined) return [];
  return [
    {
      title: 'RegisterScalableTarget',
      language: 'json',
      code: JSON.stringify(policy.registerScalableTarget, null, 2),
    },
    { title: 'PutScalingPolicy', language: 'json', code: JSON.stringify(policy.putScalingPolicy, null, 2) },
    { title: 'CDK (aws-cdk-lib)', language: 'ts', code: policy.cdkSnippet.trimEnd() },
  ];
}

function policyIntro(st: ServeTarget): string | undefined {
  const policy = st.policy;
  if (policy === undefined) {
    return st.kind === 'serverless'
      ? 'Serverless endpoints scale themselves up to their maxConcurrency: no autoscaling policy to apply.'
      : undefined;
  }
  return (
    `Target tracking on SageMakerVariantInvocationsPerInstance: ${policy.note}. ` +
    `The requests and the snippet ${st.endpointNote ?? 'name the recommended endpoint'}.`
  );
}

/** The ramp test's part of report.md: its heading, verdict and figures; nothing without a ramp. */
function rampMarkdown(st: ServeTarget): string[] {
  if (st.ramp === undefined) return [];
  const { status, facts } = rampText(st.ramp);
  return [
    `### ${RAMP_HEADING}`,
    '',
    escapeMarkdown(status),
    '',
    ...(facts.length === 0 ? [] : [...facts.map((fact) => `- ${escapeMarkdown(fact)}`), '']),
  ];
}

/** report.md's section, or nothing when the run names no target. */
export function serveTargetMarkdown(report: Report): string[] {
  const st = report.serveTarget;
  if (st === undefined) return [];
  return [
    `## ${escapeMarkdown(serveTargetHeading(st))}`,
    '',
    `**${escapeMarkdown(serveTargetHeadline(st))}**`,
    '',
    ...serveTargetFacts(st).map((fact) => `- ${escapeMarkdown(fact)}`),
    '',
    ...rampMarkdown(st),
  ];
}

/** report.md's autoscaling policy of the target, at the end with its requests folded; or nothing. */
export function serveTargetPolicyMarkdown(report: Report): string[] {
  const st = report.serveTarget;
  if (st === undefined) return [];
  const intro = policyIntro(st);
  if (intro === undefined) return [];
  const blocks = policyBlocks(st);
  return [
    `## Autoscaling policy (${escapeMarkdown(serveTargetHeading(st))})`,
    '',
    escapeMarkdown(intro),
    '',
    ...(blocks.length === 0
      ? []
      : [
          '<details><summary>Requests and CDK code</summary>',
          '',
          // Fenced blocks hold JSON and code the project wrote from names it checked: no fence inside.
          ...blocks.flatMap(({ title, language, code }) => [
            `${escapeMarkdown(title)}:`,
            '',
            `\`\`\`${language}`,
            code,
            '```',
            '',
          ]),
          '</details>',
          '',
        ]),
  ];
}

/** The ramp test's part of report.html: report.md's sentences and the ramp's chart, when drawn. */
function rampHtml(st: ServeTarget, escapeHtml: (text: string) => string, chart: string | undefined): string {
  if (st.ramp === undefined) return '';
  const { status, facts } = rampText(st.ramp);
  return [
    `<h3>${escapeHtml(RAMP_HEADING)}</h3>`,
    `<p>${escapeHtml(status)}</p>`,
    facts.length === 0 ? '' : `<ul>${facts.map((fact) => `<li>${escapeHtml(fact)}</li>`).join('')}</ul>`,
    chart === undefined
      ? ''
      : figure(
          chart,
          'The ramp over time, per time bucket of the measurement window (figures merged over the workers): offered and served requests/s, p95 and p99 of successful requests, and the instances in service.',
          escapeHtml,
        ),
  ]
    .filter((part) => part !== '')
    .join('\n');
}

/**
 * report.html's section, or nothing when the run names no target. `escapeHtml` is render-html's,
 * passed in so that the two modules do not import each other; `rampChart` is the ramp's SVG.
 */
export function serveTargetHtml(
  report: Report,
  escapeHtml: (text: string) => string,
  rampChart?: string,
): string {
  const st = report.serveTarget;
  if (st === undefined) return '';
  const notHeld = st.proof?.status === 'not-held';
  return [
    `<h2>${escapeHtml(serveTargetHeading(st))}</h2>`,
    `<p${notHeld ? ' class="proof-not-held"' : ''}><strong>${escapeHtml(serveTargetHeadline(st))}</strong></p>`,
    `<ul>${serveTargetFacts(st)
      .map((fact) => `<li>${escapeHtml(fact)}</li>`)
      .join('')}</ul>`,
    rampHtml(st, escapeHtml, rampChart),
  ]
    .filter((part) => part !== '')
    .join('\n');
}

/** report.html's autoscaling policy of the target, at the end with its requests folded; or nothing. */
export function serveTargetPolicyHtml(report: Report, escapeHtml: (text: string) => string): string {
  const st = report.serveTarget;
  if (st === undefined) return '';
  const intro = policyIntro(st);
  if (intro === undefined) return '';
  const blocks = policyBlocks(st).map(
    ({ title, code }) => `<p>${escapeHtml(title)}:</p><pre><code>${escapeHtml(code)}</code></pre>`,
  );
  return [
    `<h2>Autoscaling policy (${escapeHtml(serveTargetHeading(st))})</h2>`,
    `<p>${escapeHtml(intro)}</p>`,
    blocks.length === 0
      ? ''
      : `<details class="policy"><summary>Requests and CDK code</summary>\n${blocks.join('\n')}\n</details>`,
  ]
    .filter((part) => part !== '')
    .join('\n');
}
