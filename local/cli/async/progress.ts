/**
 * Live progress of a local async run: the workflow's phases as permanent lines, each scaling
 * activity of the endpoint as it starts and ends, and one live line of the endpoint's counts
 * (inputs sent, queued, at the model, completed, failed; instances). On a terminal the live line
 * is redrawn in place; piped, it is printed when it changes, at most once a second.
 */
import type { ScalingActivity } from '../../../core/ports/index.js';
import { AsyncInferenceStates } from '../../../core/contracts/index.js';
import { field, type ProgressOutput, ProgressLines, text } from '../progress.js';
import type { AsyncEndpointSnapshot } from '../../platform/index.js';

export interface AsyncProgressOptions {
  readonly output: ProgressOutput;
  /** Milliseconds since the run started. */
  readonly elapsedMs: () => number;
}

const PIPED_LIVE_INTERVAL_MS = 1000;

const ANNOUNCED_ON_ENTRY: Readonly<Record<string, string>> = {
  [AsyncInferenceStates.validateAsyncRun]: 'Validating the input and planning the run…',
  [AsyncInferenceStates.summarizeAsyncRun]: 'Summarizing…',
  [AsyncInferenceStates.cleanUpAsyncRun]:
    'Cleaning up: autoscaling deregistered, endpoint, config and model deleted',
  [AsyncInferenceStates.cleanUpAfterFailure]: 'Cleaning up after the failure…',
};

export class AsyncProgressReporter extends ProgressLines {
  private lastLive: { text: string; atMs: number } | undefined;
  /** Piped output: the latest counts held back by the once-a-second limit, shown before the next line. */
  private heldBack: string | undefined;
  private lastPhase: string | undefined;
  private readonly activitiesSeen = new Map<number, string>();

  constructor(options: AsyncProgressOptions) {
    super(options.output, options.elapsedMs);
  }

  /** A permanent line, after the counts held back (piped output), if any. */
  override line(text: string): void {
    const held = this.heldBack;
    this.heldBack = undefined;
    if (held !== undefined) {
      this.lastLive = { text: held, atMs: this.elapsedMs() };
      super.line(held);
    }
    super.line(text);
  }

  protected onStateEntered(stateName: string, input: unknown): void {
    const announcement = ANNOUNCED_ON_ENTRY[stateName];
    if (announcement !== undefined) this.line(announcement);
    if (stateName === AsyncInferenceStates.deployAsyncEndpoint) this.onDeploy(input);
  }

  /** The endpoint's counts: the live line. */
  onEndpoint(snapshot: AsyncEndpointSnapshot): void {
    const instances =
      snapshot.desiredInstanceCount === snapshot.instancesInService
        ? `${snapshot.instancesInService}`
        : `${snapshot.instancesInService} (→ ${snapshot.desiredInstanceCount})`;
    const text = `inputs: ${snapshot.received} sent · ${snapshot.queued} queued · ${snapshot.inFlight} at the model · ${snapshot.completed} completed · ${snapshot.failed} failed · instances ${instances}`;
    const now = this.elapsedMs();
    if (this.lastLive?.text === text) return;
    if (this.isTTY) {
      this.liveLine(text);
    } else if (this.lastLive === undefined || now - this.lastLive.atMs >= PIPED_LIVE_INTERVAL_MS) {
      this.heldBack = undefined;
      this.line(text);
    } else {
      // Not lost: the next permanent line shows it first, so the last counts are always printed.
      this.heldBack = text;
      return;
    }
    this.lastLive = { text, atMs: now };
  }

  /** Scaling activities: a line when one starts and when it ends. */
  onActivities(activities: readonly ScalingActivity[]): void {
    for (const activity of activities) {
      const seen = this.activitiesSeen.get(activity.startEpochMs);
      if (seen === activity.status) continue;
      this.activitiesSeen.set(activity.startEpochMs, activity.status);
      if (seen === undefined) this.line(`Scaling: ${activity.description}`);
      if (activity.status !== 'InProgress') {
        const took =
          activity.endEpochMs === undefined
            ? ''
            : ` after ${seconds(activity.endEpochMs - activity.startEpochMs)} s`;
        const why = activity.description.split('. Failed: ')[1];
        this.line(
          `Scaling to ${activity.toInstanceCount ?? '?'} instance(s): ${activity.status}${took}${why === undefined ? '' : ` (${why})`}`,
        );
      }
    }
  }

  private onDeploy(input: unknown): void {
    const endpoint = field(input, 'plan', 'endpoint');
    const deploy = field(endpoint, 'deploy');
    this.line(
      `Deploying async endpoint ${text(field(endpoint, 'endpointName')) ?? '?'}: ${text(field(deploy, 'instanceType')) ?? '?'}, autoscaling 0–${count(field(deploy, 'maxInstanceCount'))} instance(s), ${count(field(deploy, 'maxConcurrentInvocationsPerInstance'), '1')} concurrent invocation(s) per instance`,
    );
  }

  protected onStateExited(stateName: string, output: unknown): void {
    if (stateName === AsyncInferenceStates.validateAsyncRun) {
      const plan = field(output, 'plan');
      const batches = field(plan, 'batches');
      this.line(
        `Planned ${count(field(plan, 'itemCount'))} input(s) in ${Array.isArray(batches) ? batches.length : '?'} batch(es) on endpoint ${text(field(plan, 'endpoint', 'endpointName')) ?? '?'} (${text(field(plan, 'endpoint', 'action')) ?? '?'})${field(plan, 'benchmark') === undefined ? '' : `, benchmark burst of ${count(field(plan, 'benchmark', 'burstSize'))}`}`,
      );
      return;
    }
    if (stateName === AsyncInferenceStates.checkAsyncEndpoint) {
      const phase = text(field(output, 'endpointState', 'phase'));
      if (phase === undefined || phase === this.lastPhase) return;
      this.lastPhase = phase;
      if (phase === 'scaling-in')
        this.line('Endpoint in service; waiting for it to scale in to zero before the burst');
      if (phase === 'ready') {
        const note = text(field(output, 'endpointState', 'note'));
        const atStart = field(output, 'endpointState', 'instancesAtStart');
        this.line(
          `Endpoint ready${typeof atStart === 'number' ? ` with ${atStart} instance(s)` : ''}: invoking${note === undefined ? '' : ` (${note})`}`,
        );
      }
      return;
    }
    if (stateName === AsyncInferenceStates.recordBatchResults) {
      this.line(
        `Batch ${count(field(output, 'batchIndex'))} recorded: ${count(field(output, 'completed'))} completed, ${count(field(output, 'failed'))} failed, ${count(field(output, 'timedOut'))} timed out`,
      );
    }
  }
}

function count(value: unknown, fallback = '?'): string {
  return typeof value === 'number' ? String(value) : fallback;
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(1);
}
