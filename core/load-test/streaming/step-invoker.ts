import { InvalidRunInputError, type LatencySla, streamingSlaIssues } from '../../contracts/index.js';
import type { InputIssue, LoadPlan } from '../../contracts/index.js';
import type { Clock, InvokeTransport } from '../ports.js';
import { StreamStepRecorder, createStreamingInvoker } from './step-recorder.js';
import type { StreamInvokeTransport } from './stream-transport.js';

/** How a worker sends its requests: the transport the step driver calls, and per step a recorder. */
export interface StepInvoker {
  readonly transport: InvokeTransport;
  /** A fresh recorder of the streamed figures for each step; undefined when not streaming. */
  newStreamRecorder(): StreamStepRecorder | undefined;
}

/**
 * The engine's transport for a plan: the invoke transport, or in streaming mode
 * (`loadPlan.response.mode` `stream`) the stream transport read with the plan's format. Refuses,
 * naming the field, a plan that streams without a stream transport, a buffered plan without an
 * invoke transport, and SLA bounds on TTFT or ITL for a plan that does not stream (they could not
 * be measured, so every step would breach them).
 */
export function stepInvokerOf(
  plan: LoadPlan,
  sla: LatencySla,
  transports: { readonly transport?: InvokeTransport; readonly streamTransport?: StreamInvokeTransport },
  clock: Clock,
): StepInvoker {
  const format = plan.response?.mode === 'stream' ? plan.response.format : undefined;
  const issues: InputIssue[] = streamingSlaIssues(plan, sla).map(({ path, given, message }) => ({
    field: path.join('.'),
    given: String(given),
    expected: message,
  }));
  // The run input fills a container's default format; a plan that still has none cannot be read.
  if (plan.response?.mode === 'stream' && format === undefined) {
    issues.push({
      field: 'loadPlan.response.format',
      given: 'nothing',
      expected: 'the stream format the container emits, with mode "stream"',
    });
  }
  if (format !== undefined && transports.streamTransport === undefined) {
    issues.push({
      field: 'streamTransport',
      given: 'nothing',
      expected: `a StreamInvokeTransport to the endpoint, since loadPlan.response.mode is "stream" (format ${format})`,
    });
  }
  if (format === undefined && transports.transport === undefined) {
    issues.push({
      field: 'transport',
      given: 'nothing',
      expected: 'an InvokeTransport to the endpoint (loadPlan.response.mode is not "stream")',
    });
  }
  const { transport, streamTransport } = transports;
  if (issues.length === 0) {
    if (format !== undefined && streamTransport !== undefined) {
      return {
        transport: createStreamingInvoker(streamTransport, format, clock),
        newStreamRecorder: () => new StreamStepRecorder(format),
      };
    }
    if (transport !== undefined) return { transport, newStreamRecorder: () => undefined };
  }
  throw new InvalidRunInputError(issues);
}
