/**
 * What local async endpoints record of themselves, and `LocalAsyncEndpointObserver`, which answers
 * from it what CloudWatch and Application Auto Scaling answer on AWS: scaling activities, the time
 * requests waited in the queue (`TimeInBacklog`) and the largest backlog (`ApproximateBacklogSize`:
 * requests queued or being processed). Records outlive their endpoint, so a run's summary can
 * still read them after the endpoint was deleted.
 */
import type {
  AsyncBacklogMetrics,
  AsyncEndpointObserver,
  BacklogSample,
  ScalingActivity,
} from '../../core/ports/index.js';

interface MutableActivity {
  readonly variantName: string;
  readonly startEpochMs: number;
  endEpochMs?: number;
  readonly toInstanceCount: number;
  status: 'InProgress' | 'Successful' | 'Failed';
  description: string;
}

interface QueueWait {
  readonly receivedEpochMs: number;
  readonly takenEpochMs: number;
}

interface EndpointRecords {
  readonly activities: MutableActivity[];
  readonly waits: QueueWait[];
  readonly backlog: BacklogSample[];
}

/** A scaling activity in progress, as the endpoint that started it updates it. */
export interface ActivityHandle {
  readonly toInstanceCount: number;
  succeed(atEpochMs: number): void;
  fail(atEpochMs: number, reason: string): void;
  readonly inProgress: boolean;
}

export class AsyncEndpointTelemetry {
  private readonly endpoints = new Map<string, EndpointRecords>();

  startActivity(
    endpointName: string,
    variantName: string,
    activity: { readonly atEpochMs: number; readonly toInstanceCount: number; readonly cause: string },
  ): ActivityHandle {
    const record: MutableActivity = {
      variantName,
      startEpochMs: activity.atEpochMs,
      toInstanceCount: activity.toInstanceCount,
      status: 'InProgress',
      // Application Auto Scaling's wording, with the cause it would give in `Cause`.
      description: `Setting desired instance count to ${activity.toInstanceCount}. Cause: ${activity.cause}`,
    };
    this.of(endpointName).activities.push(record);
    return {
      toInstanceCount: activity.toInstanceCount,
      get inProgress() {
        return record.status === 'InProgress';
      },
      succeed(atEpochMs) {
        if (record.status !== 'InProgress') return;
        record.status = 'Successful';
        record.endEpochMs = atEpochMs;
      },
      fail(atEpochMs, reason) {
        if (record.status !== 'InProgress') return;
        record.status = 'Failed';
        record.endEpochMs = atEpochMs;
        record.description = `${record.description}. Failed: ${reason}`;
      },
    };
  }

  /** One request left the queue for an instance. */
  recordQueueWait(endpointName: string, receivedEpochMs: number, takenEpochMs: number): void {
    this.of(endpointName).waits.push({ receivedEpochMs, takenEpochMs });
  }

  /** The backlog changed to `size`. */
  recordBacklog(endpointName: string, atEpochMs: number, size: number): void {
    const samples = this.of(endpointName).backlog;
    if (samples.at(-1)?.size === size) return;
    samples.push({ atEpochMs, size });
  }

  activities(endpointName: string, variantName: string, sinceEpochMs: number): ScalingActivity[] {
    return (this.endpoints.get(endpointName)?.activities ?? [])
      .filter((activity) => activity.variantName === variantName && activity.startEpochMs >= sinceEpochMs)
      .map((activity) => ({
        startEpochMs: activity.startEpochMs,
        ...(activity.endEpochMs === undefined ? {} : { endEpochMs: activity.endEpochMs }),
        toInstanceCount: activity.toInstanceCount,
        status: activity.status,
        description: activity.description,
      }));
  }

  backlogMetrics(endpointName: string, startEpochMs: number, endEpochMs: number): AsyncBacklogMetrics {
    const records = this.endpoints.get(endpointName);
    if (records === undefined) return {};
    const waits = records.waits
      .filter((wait) => wait.takenEpochMs >= startEpochMs && wait.takenEpochMs <= endEpochMs)
      .map((wait) => Math.max(0, wait.takenEpochMs - wait.receivedEpochMs));
    // The sample in effect when the window opened counts too, then every change inside it.
    const before = records.backlog.filter((sample) => sample.atEpochMs < startEpochMs).at(-1);
    const inside = records.backlog.filter(
      (sample) => sample.atEpochMs >= startEpochMs && sample.atEpochMs <= endEpochMs,
    );
    const sizes = [...(before === undefined ? [] : [before.size]), ...inside.map((sample) => sample.size)];
    return {
      ...(waits.length === 0
        ? {}
        : {
            timeInBacklogMs: {
              average: waits.reduce((sum, wait) => sum + wait, 0) / waits.length,
              maximum: Math.max(...waits),
            },
          }),
      ...(sizes.length === 0 ? {} : { maxBacklogSize: Math.max(...sizes) }),
    };
  }

  /** Every change of the backlog in the window, after the size in effect when it opened. */
  backlogSeries(endpointName: string, startEpochMs: number, endEpochMs: number): BacklogSample[] {
    const samples = this.endpoints.get(endpointName)?.backlog ?? [];
    const before = samples.filter((sample) => sample.atEpochMs < startEpochMs).at(-1);
    const inside = samples.filter(
      (sample) => sample.atEpochMs >= startEpochMs && sample.atEpochMs <= endEpochMs,
    );
    return [...(before === undefined ? [] : [{ atEpochMs: startEpochMs, size: before.size }]), ...inside];
  }

  private of(endpointName: string): EndpointRecords {
    let records = this.endpoints.get(endpointName);
    if (records === undefined) {
      records = { activities: [], waits: [], backlog: [] };
      this.endpoints.set(endpointName, records);
    }
    return records;
  }
}

/** `AsyncEndpointObserver` over what local endpoints recorded: complete and immediate. */
export class LocalAsyncEndpointObserver implements AsyncEndpointObserver {
  constructor(private readonly telemetry: AsyncEndpointTelemetry) {}

  scalingActivities(
    endpointName: string,
    variantName: string,
    sinceEpochMs: number,
  ): Promise<readonly ScalingActivity[]> {
    return Promise.resolve(this.telemetry.activities(endpointName, variantName, sinceEpochMs));
  }

  backlogMetrics(
    endpointName: string,
    startEpochMs: number,
    endEpochMs: number,
  ): Promise<AsyncBacklogMetrics> {
    return Promise.resolve(this.telemetry.backlogMetrics(endpointName, startEpochMs, endEpochMs));
  }

  backlogSeries(
    endpointName: string,
    startEpochMs: number,
    endEpochMs: number,
  ): Promise<readonly BacklogSample[]> {
    return Promise.resolve(this.telemetry.backlogSeries(endpointName, startEpochMs, endEpochMs));
  }
}
