import type { StreamStepResult } from './stream-figures.js';
import type { LatencySla } from '../../contracts/index.js';

function formatMs(ms: number): string {
  return `${ms.toFixed(3)} ms`;
}

/**
 * The ways a step misses the SLA's streaming bounds (`ttftP95Ms`, `itlP95Ms`), each as a sentence
 * in the style of `slaBreaches`. A bound the step cannot be judged on is a breach, not a pass: a
 * step that was not streamed, or whose successful responses held no visible token, has no TTFT.
 */
export function streamSlaBreaches(stream: StreamStepResult | undefined, sla: LatencySla): string[] {
  const bounds = [
    { label: 'TTFT', bound: sla.ttftP95Ms, p95: stream?.ttftMs.p95 },
    { label: 'ITL', bound: sla.itlP95Ms, p95: stream?.itlMs.p95 },
  ];
  const breaches: string[] = [];
  for (const { label, bound, p95 } of bounds) {
    if (bound === undefined) continue;
    if (stream === undefined || p95 === undefined) {
      breaches.push(`${label} p95 not measured: the step's responses were not streamed`);
    } else if (label === 'TTFT' && stream.withoutToken > 0 && stream.ttftMs.max === 0) {
      breaches.push(
        `TTFT p95 not measured: none of the ${stream.withoutToken} successful responses held a visible token`,
      );
    } else if (p95 > bound) {
      breaches.push(`${label} p95 ${formatMs(p95)} > SLA ${bound} ms`);
    }
  }
  return breaches;
}
