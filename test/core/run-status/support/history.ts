import type {
  ExecutionDescription,
  ExecutionReader,
  HistoryEventView,
  RunRef,
} from '../../../../core/run-status/ports.js';

/**
 * Execution histories shaped as Step Functions writes them (GetExecutionHistory, oldest first):
 * ids from 1, each event's `previousEventId` the event it follows, `MapStateStarted` right after
 * its `MapStateEntered`, iteration events named after their Map state.
 */
export class HistoryBuilder {
  private readonly events: HistoryEventView[] = [];

  constructor() {
    this.add({ type: 'ExecutionStarted' });
  }

  /** A Task state that invokes a Lambda and succeeds: the five events Step Functions records. */
  task(name: string): this {
    this.add({ type: 'TaskStateEntered', enteredState: name });
    for (const type of ['TaskScheduled', 'TaskStarted', 'TaskSucceeded', 'TaskStateExited'])
      this.add({ type });
    return this;
  }

  /** A Task state whose Lambda fails (the Catch takes it further). */
  failingTask(name: string): this {
    this.add({ type: 'TaskStateEntered', enteredState: name });
    for (const type of ['TaskScheduled', 'TaskStarted', 'TaskFailed']) this.add({ type });
    return this;
  }

  entered(
    type:
      | 'ParallelStateEntered'
      | 'ChoiceStateEntered'
      | 'WaitStateEntered'
      | 'PassStateEntered'
      | 'FailStateEntered'
      | 'SucceedStateEntered',
    name: string,
  ): this {
    return this.add({ type, enteredState: name });
  }

  mapStarted(name: string, itemCount: number): this {
    this.add({ type: 'MapStateEntered', enteredState: name });
    return this.add({ type: 'MapStateStarted', mapItemCount: itemCount });
  }

  iteration(mapName: string, outcome: 'Started' | 'Succeeded' | 'Failed' | 'Aborted'): this {
    return this.add({ type: `MapIteration${outcome}`, mapIterationOf: mapName });
  }

  /** `MapStateSucceeded` and `MapStateExited` (whose details name the state, unread by progress). */
  mapEnded(): this {
    this.add({ type: 'MapStateSucceeded' });
    return this.add({ type: 'MapStateExited' });
  }

  /** The events as GetExecutionHistory returns them with `reverseOrder: true`. */
  newestFirst(): HistoryEventView[] {
    return [...this.events].reverse();
  }

  /** The id of the latest `MapStateEntered` of the Map state `name`. */
  entryIdOf(name: string): number {
    const entry = this.events.findLast(
      (event) => event.type === 'MapStateEntered' && event.enteredState === name,
    );
    if (entry === undefined) throw new Error(`the history has not entered the Map ${name}`);
    return entry.id;
  }

  get length(): number {
    return this.events.length;
  }

  private add(event: Omit<HistoryEventView, 'id' | 'previousEventId'>): this {
    const id = this.events.length + 1;
    this.events.push({ id, ...(id > 1 ? { previousEventId: id - 1 } : {}), ...event });
    return this;
  }
}

/** The optimization workflow up to the point where it benchmarks candidates (one compile target). */
export function optimizationUntilBenchmark(candidates: number): HistoryBuilder {
  const compile = 'Compile model for each target';
  return new HistoryBuilder()
    .task('Validate and plan')
    .entered('ParallelStateEntered', 'Optimize')
    .task('Package model')
    .mapStarted(compile, 1)
    .iteration(compile, 'Started')
    .task('Start compilation job')
    .entered('WaitStateEntered', 'Wait for compilation')
    .task('Check compilation job')
    .entered('ChoiceStateEntered', 'Compilation finished?')
    .entered('PassStateEntered', 'Compilation ended')
    .iteration(compile, 'Succeeded')
    .mapEnded()
    .mapStarted('Benchmark each candidate', candidates);
}

/** One candidate's iteration inside "Benchmark each candidate", with its load workers' Map. */
export function benchmarkCandidate(builder: HistoryBuilder, workers: number): HistoryBuilder {
  builder
    .task('Deploy candidate')
    .entered('ChoiceStateEntered', 'Candidate skipped?')
    .entered('WaitStateEntered', 'Wait for endpoint')
    .task('Check endpoint')
    .entered('ChoiceStateEntered', 'Endpoint in service?')
    .mapStarted('Run load workers', workers);
  for (let worker = 0; worker < workers; worker += 1) builder.iteration('Run load workers', 'Started');
  for (let worker = 0; worker < workers; worker += 1) builder.task('Run load worker');
  for (let worker = 0; worker < workers; worker += 1) builder.iteration('Run load workers', 'Succeeded');
  return builder
    .mapEnded()
    .task('Aggregate load test')
    .task('Delete candidate endpoint')
    .entered('PassStateEntered', 'Candidate measured');
}

/** A reader over one execution: counts the events it hands out, to check where reading stops. */
export class FakeExecutionReader implements ExecutionReader {
  eventsRead = 0;
  readonly described: RunRef[] = [];
  private readonly description: ExecutionDescription | undefined;
  private readonly history: readonly HistoryEventView[];
  private readonly failure: Error | undefined;

  constructor(options: {
    readonly description?: ExecutionDescription;
    readonly history?: readonly HistoryEventView[];
    readonly failure?: Error;
  }) {
    this.description = options.description;
    this.history = options.history ?? [];
    this.failure = options.failure;
  }

  describe(run: RunRef): Promise<ExecutionDescription | undefined> {
    this.described.push(run);
    if (this.failure !== undefined) return Promise.reject(this.failure);
    return Promise.resolve(this.description);
  }

  async *newestEvents(): AsyncIterable<HistoryEventView> {
    for (const event of this.history) {
      this.eventsRead += 1;
      yield await Promise.resolve(event);
    }
  }
}
