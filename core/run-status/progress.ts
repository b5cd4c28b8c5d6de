import type { HistoryEventView } from './ports.js';
import type { ItemsProgress, RunProgress } from '../contracts/index.js';

/**
 * A run's progress from its execution history, read newest first. DescribeExecution says only
 * RUNNING; the history says which phase the run entered last and how far the workflow's Maps have
 * got: Map iteration events carry the Map's name, and `MapStateStarted` carries the item count and
 * follows the Map's `MapStateEntered`, which its `previousEventId` names.
 *
 * Reading newest first lets the reader stop once nothing older can change the answer: when the
 * outermost counted Map's entry has been read, every event of its iterations has too. A history
 * holds at most 25,000 events (Step Functions quotas), so even a full read stays bounded.
 */

/** Which states tell a workflow's progress. */
export interface ProgressProfile {
  /** What the main Map iterates over, for people: `candidates`, `inputs`. */
  readonly itemsLabel: string;
  /**
   * The main Map state's name. When absent, the first Map state the execution entered is taken,
   * which needs the whole history.
   */
  readonly itemsMapState?: string;
  /**
   * A Map whose every iteration runs the items Map once (e.g. batches of inputs): its iterations
   * are counted too, and the items' total is known once every group has entered the items Map.
   */
  readonly groups?: { readonly label: string; readonly mapState: string };
  /** States that mark a phase of the run, in any order. When absent, every entered state does. */
  readonly phaseStates?: readonly string[];
}

const ENTERED_MAP = 'MapStateEntered';
const STARTED_MAP = 'MapStateStarted';

interface IterationCounts {
  started: number;
  succeeded: number;
  failed: number;
}

interface MapEntries {
  /** How many times the Map was entered (in the part of the history read). */
  count: number;
  /** The sum of the item counts of those entries. */
  items: number;
  /** Entries whose `MapStateStarted` (with the item count) was not read, e.g. not written yet. */
  uncounted: number;
  /** The id of the oldest entry read. */
  oldestId: number;
}

/** Folds history events, newest first, into a `RunProgress`. */
export class ProgressTracker {
  private readonly profile: ProgressProfile;
  private phase: string | undefined;
  private eventsRead = 0;
  private readonly iterations = new Map<string, IterationCounts>();
  /** `MapStateStarted` item counts, keyed by the id of the `MapStateEntered` they follow. */
  private readonly itemCountsByEntry = new Map<number, number>();
  private readonly entries = new Map<string, MapEntries>();
  /**
   * Set once the entry of the outermost counted Map is read: older Map events belong to an earlier
   * attempt (before a redrive) and are left out; only the phase may still be missing.
   */
  private outermostEntered = false;

  constructor(profile: ProgressProfile) {
    this.profile = profile;
  }

  /** Takes the next older event; `false` once older events cannot change the progress. */
  add(event: HistoryEventView): boolean {
    this.eventsRead += 1;
    this.notePhase(event);
    if (!this.outermostEntered) this.noteMapEvent(event);
    return !(this.outermostEntered && this.phase !== undefined);
  }

  result(): RunProgress {
    const items = this.itemsProgress();
    const groups = this.groupsProgress();
    return {
      ...(this.phase === undefined ? {} : { phase: this.phase }),
      ...(items === undefined ? {} : { items }),
      ...(groups === undefined ? {} : { groups }),
      historyEventsRead: this.eventsRead,
    };
  }

  /** The Map whose entry ends the reading: the groups' Map, else the items' (when named). */
  private outermostMap(): string | undefined {
    return this.profile.groups?.mapState ?? this.profile.itemsMapState;
  }

  private notePhase(event: HistoryEventView): void {
    if (this.phase !== undefined || event.enteredState === undefined) return;
    const phases = this.profile.phaseStates;
    if (phases === undefined || phases.includes(event.enteredState)) this.phase = event.enteredState;
  }

  private noteMapEvent(event: HistoryEventView): void {
    if (event.mapIterationOf !== undefined) {
      const counts = this.iterations.get(event.mapIterationOf) ?? { started: 0, succeeded: 0, failed: 0 };
      if (event.type === 'MapIterationStarted') counts.started += 1;
      else if (event.type === 'MapIterationSucceeded') counts.succeeded += 1;
      else if (event.type === 'MapIterationFailed' || event.type === 'MapIterationAborted')
        counts.failed += 1;
      this.iterations.set(event.mapIterationOf, counts);
    }
    if (
      event.type === STARTED_MAP &&
      event.previousEventId !== undefined &&
      event.mapItemCount !== undefined
    ) {
      this.itemCountsByEntry.set(event.previousEventId, event.mapItemCount);
    }
    if (event.type === ENTERED_MAP && event.enteredState !== undefined) {
      const entries = this.entries.get(event.enteredState) ?? {
        count: 0,
        items: 0,
        uncounted: 0,
        oldestId: event.id,
      };
      const itemCount = this.itemCountsByEntry.get(event.id);
      entries.count += 1;
      if (itemCount === undefined) entries.uncounted += 1;
      else entries.items += itemCount;
      entries.oldestId = event.id;
      this.entries.set(event.enteredState, entries);
      if (event.enteredState === this.outermostMap()) this.outermostEntered = true;
    }
  }

  private itemsMapName(): string | undefined {
    if (this.profile.itemsMapState !== undefined) return this.profile.itemsMapState;
    let first: { readonly name: string; readonly id: number } | undefined;
    for (const [name, entries] of this.entries) {
      if (first === undefined || entries.oldestId < first.id) first = { name, id: entries.oldestId };
    }
    return first?.name;
  }

  private itemsProgress(): ItemsProgress | undefined {
    const name = this.itemsMapName();
    const entries = name === undefined ? undefined : this.entries.get(name);
    if (name === undefined || entries === undefined) return undefined;
    const groups = this.profile.groups;
    const groupEntries = groups === undefined ? undefined : this.entries.get(groups.mapState);
    // With groups, the total is known once every group has entered the items Map.
    const complete =
      entries.uncounted === 0 &&
      (groups === undefined || (groupEntries?.uncounted === 0 && entries.count === groupEntries.items));
    return progressOf(
      this.profile.itemsLabel,
      this.iterations.get(name),
      complete ? entries.items : undefined,
    );
  }

  private groupsProgress(): ItemsProgress | undefined {
    const groups = this.profile.groups;
    const entries = groups === undefined ? undefined : this.entries.get(groups.mapState);
    if (groups === undefined || entries === undefined) return undefined;
    const total = entries.uncounted === 0 ? entries.items : undefined;
    return progressOf(groups.label, this.iterations.get(groups.mapState), total);
  }
}

function progressOf(
  label: string,
  counts: IterationCounts | undefined,
  total: number | undefined,
): ItemsProgress {
  const { started, succeeded, failed } = counts ?? { started: 0, succeeded: 0, failed: 0 };
  return {
    label,
    ...(total === undefined ? {} : { total }),
    started,
    succeeded,
    failed,
    running: Math.max(0, started - succeeded - failed),
  };
}

/** Reads `events` (newest first) until the tracker has what it needs. */
export async function readProgress(
  events: AsyncIterable<HistoryEventView>,
  profile: ProgressProfile,
): Promise<RunProgress> {
  const tracker = new ProgressTracker(profile);
  for await (const event of events) {
    if (!tracker.add(event)) break;
  }
  return tracker.result();
}
