/**
 * How busy this machine was around a local run. Local figures measure this machine standing in
 * for the instance types, so a run on a machine whose cores other processes take measures less
 * throughput and more latency than the same run on a quiet one, and a candidate may miss its SLA
 * for the machine's sake. The run records the load before it starts and while it runs in its
 * report (`machineLoad`), and the report and the terminal say when the machine was busy.
 *
 * Two signals, both read without privileges:
 * - the 1-minute load average (`os.loadavg()`: runnable and uninterruptible tasks, averaged), which
 *   counts other processes' demand for the cores;
 * - on Linux, CPU steal (`/proc/stat`, the 8th value of the `cpu` line, in USER_HZ ticks): time a
 *   virtual machine's cores were taken by the hypervisor, which no load average shows.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import type { ReportMachineLoad } from '../../core/report/index.js';

/**
 * Busy before the run: other tasks keep every core runnable as it starts. Counted from the tasks
 * runnable at that instant (`procs_running`, this process less), not from the 1-minute load
 * average, which still carries a run that ended a minute ago: `npm start` twice in a row on a
 * quiet machine would call the second run's machine busy. Where the count is missing (not Linux),
 * the load average stands in, against the same threshold.
 */
const BUSY_BEFORE_OTHER_TASKS_PER_CORE = 1;
/**
 * Busy during the run: a local run keeps at most about one task per core runnable (each model
 * server's threads are capped to the cores, one load generator beside it), so an average load
 * above the cores plus one means other processes shared them.
 */
const BUSY_DURING_EXTRA_TASKS = 1;
/** Busy from the hypervisor: a tenth of the CPU time stolen is well beyond a quiet host's. */
const BUSY_STEAL_PERCENT = 10;

export interface CpuTicks {
  readonly total: number;
  readonly steal: number;
}

export interface MachineLoadSample {
  /** The 1-minute load average. */
  readonly load1: number;
  /** Tasks runnable at the instant of the sample, this process included (Linux). */
  readonly running?: number;
  /** CPU counters, where the system has them (Linux). */
  readonly ticks?: CpuTicks;
}

export interface MachineLoad {
  readonly cores: number;
  /** The 1-minute load average when the run started. */
  readonly loadBefore: number;
  /** Tasks runnable when the run started, this process included, where the system reports it. */
  readonly runningBefore: number | undefined;
  /** Mean and highest 1-minute load average sampled while the run ran. */
  readonly loadDuring: { readonly mean: number; readonly max: number } | undefined;
  /** The samples taken while the run ran, and the most tasks runnable in any (where reported). */
  readonly samplesDuring: number;
  readonly maxRunningDuring: number | undefined;
  /** Share of CPU time stolen by the hypervisor while the run ran, where the system reports it. */
  readonly stealPercent: number | undefined;
  /** Why the machine counts as busy; empty when it was quiet. */
  readonly busyBecause: readonly string[];
}

/** Reads the `cpu` line of /proc/stat; undefined where there is none (not Linux). */
export function parseCpuTicks(procStat: string): CpuTicks | undefined {
  const line = procStat.split('\n').find((candidate) => candidate.startsWith('cpu '));
  if (line === undefined) return undefined;
  const values = line.trim().split(/\s+/).slice(1).map(Number);
  if (values.length < 8 || values.some((value) => !Number.isFinite(value))) return undefined;
  // user nice system idle iowait irq softirq steal [guest guest_nice]: guest time is already
  // counted in user and nice (proc(5)), so the total is the first eight.
  const firstEight = values.slice(0, 8);
  return { total: firstEight.reduce((sum, value) => sum + value, 0), steal: firstEight[7] ?? 0 };
}

/** The `procs_running` line of /proc/stat; undefined where there is none. */
export function parseRunningTasks(procStat: string): number | undefined {
  const value = /^procs_running (\d+)$/m.exec(procStat)?.[1];
  return value === undefined ? undefined : Number(value);
}

/** /proc/stat's text, or nothing where there is none (not Linux). */
function readProcStat(): string {
  try {
    return readFileSync('/proc/stat', 'utf8');
  } catch {
    return '';
  }
}

/** This machine's load now. */
export function sampleMachineLoad(): MachineLoadSample {
  const [load1 = 0] = loadavg();
  const procStat = readProcStat();
  const ticks = parseCpuTicks(procStat);
  const running = parseRunningTasks(procStat);
  return {
    load1,
    ...(ticks === undefined ? {} : { ticks }),
    ...(running === undefined ? {} : { running }),
  };
}

/** What the samples say, judged against the thresholds above. Pure, for the tests. */
export function summarizeMachineLoad(
  cores: number,
  before: MachineLoadSample,
  during: readonly MachineLoadSample[],
): MachineLoad {
  const loads = during.map((sample) => sample.load1);
  const loadDuring =
    loads.length === 0
      ? undefined
      : { mean: loads.reduce((sum, load) => sum + load, 0) / loads.length, max: Math.max(...loads) };
  const last = during.at(-1);
  const stealPercent =
    before.ticks === undefined || last?.ticks === undefined || last.ticks.total <= before.ticks.total
      ? undefined
      : (100 * (last.ticks.steal - before.ticks.steal)) / (last.ticks.total - before.ticks.total);
  const busyBecause: string[] = [];
  const othersBefore = before.running === undefined ? before.load1 : before.running - 1;
  if (othersBefore >= cores * BUSY_BEFORE_OTHER_TASKS_PER_CORE) {
    busyBecause.push(
      before.running === undefined
        ? `load average ${before.load1.toFixed(1)} on ${cores} cores before the run`
        : `${othersBefore} other task(s) running on ${cores} cores as the run started`,
    );
  }
  if (loadDuring !== undefined && loadDuring.mean > cores + BUSY_DURING_EXTRA_TASKS) {
    busyBecause.push(
      `load average ${loadDuring.mean.toFixed(1)} (up to ${loadDuring.max.toFixed(1)}) during the run, more than its own ${cores + BUSY_DURING_EXTRA_TASKS}`,
    );
  }
  if (stealPercent !== undefined && stealPercent >= BUSY_STEAL_PERCENT) {
    busyBecause.push(`${stealPercent.toFixed(0)} % of the CPU time stolen by the hypervisor`);
  }
  const running = during.flatMap((sample) => (sample.running === undefined ? [] : [sample.running]));
  return {
    cores,
    loadBefore: before.load1,
    runningBefore: before.running,
    loadDuring,
    samplesDuring: during.length,
    maxRunningDuring: running.length === 0 ? undefined : Math.max(...running),
    stealPercent,
    busyBecause,
  };
}

/** Samples the machine's load from `start()` until `stop()`, every `intervalMs`. */
export class MachineLoadMonitor {
  private readonly before: MachineLoadSample;
  private readonly samples: MachineLoadSample[] = [];
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly sample: () => MachineLoadSample = sampleMachineLoad,
    intervalMs = 5000,
    private readonly cores: number = availableParallelism(),
  ) {
    this.before = sample();
    this.timer = setInterval(() => {
      this.samples.push(this.sample());
    }, intervalMs);
    // Sampling never keeps the process alive.
    this.timer.unref();
  }

  /** The load before the run, as `start` read it. */
  get loadBefore(): number {
    return this.before.load1;
  }

  /** Stops sampling and judges the run's machine. */
  stop(): MachineLoad {
    clearInterval(this.timer);
    this.samples.push(this.sample());
    return summarizeMachineLoad(this.cores, this.before, this.samples);
  }
}

/** report.json's `machineLoad`: the figures per core, rounded for a reader. */
export function reportMachineLoad(load: MachineLoad): ReportMachineLoad {
  const perCore = (value: number): number => Math.round((value / load.cores) * 100) / 100;
  return {
    cores: load.cores,
    before: {
      loadPerCore: perCore(load.loadBefore),
      ...(load.runningBefore === undefined ? {} : { procsRunning: load.runningBefore }),
    },
    ...(load.loadDuring === undefined
      ? {}
      : {
          during: {
            samples: load.samplesDuring,
            meanLoadPerCore: perCore(load.loadDuring.mean),
            maxLoadPerCore: perCore(load.loadDuring.max),
            ...(load.maxRunningDuring === undefined ? {} : { maxProcsRunning: load.maxRunningDuring }),
          },
        }),
    ...(load.stealPercent === undefined ? {} : { stealPercent: Math.round(load.stealPercent * 10) / 10 }),
    busyBecause: load.busyBecause,
  };
}
