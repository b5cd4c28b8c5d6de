import { describeError } from '../contracts/index.js';
import type { EndpointMetricsQuery, InvocationsPerInstanceReader, Logger } from '../ports/index.js';
import { imbalanceOf, type InstanceSpread } from '../serving/index.js';

/**
 * Reads the spread over a test's window. Context, never the verdict: a reader that fails or finds
 * nothing leaves a note instead of failing the step. `window` names the test in that note
 * ("the proof’s window", "the test window").
 */
export async function readInstanceSpread(
  reader: InvocationsPerInstanceReader | undefined,
  query: EndpointMetricsQuery,
  logger: Logger,
  window: string,
): Promise<InstanceSpread> {
  if (reader === undefined) return { perInstanceNote: 'not read: no per-instance reader here' };
  try {
    const found = await reader.read(query);
    if (found === undefined) {
      return { perInstanceNote: `none recorded for ${window} yet (CloudWatch can lag a minute or two)` };
    }
    const imbalance = found.scope === 'instance' ? imbalanceOf(found.instances) : undefined;
    return {
      perInstance: found.instances,
      ...(imbalance === undefined ? {} : { perInstanceImbalance: imbalance }),
      perInstanceNote: found.note,
    };
  } catch (error) {
    logger.warn('Invocations per instance unavailable', {
      endpointName: query.endpointName,
      error: describeError(error),
    });
    return { perInstanceNote: `unavailable (${describeError(error)})` };
  }
}
