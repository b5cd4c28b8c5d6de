import { describe, expect, it } from '@jest/globals';
import {
  MachineLoadMonitor,
  type MachineLoadSample,
  parseCpuTicks,
  parseRunningTasks,
  reportMachineLoad,
  summarizeMachineLoad,
} from '../../../local/platform/machine-load.js';
import { busyMachineNote } from '../../../core/report/render-markdown.js';

const QUIET: MachineLoadSample = { load1: 0.2, ticks: { total: 10_000, steal: 10 } };

describe('parseCpuTicks', () => {
  it('reads the total and the steal of the cpu line, guest time left out of the total', () => {
    // Act
    const ticks = parseCpuTicks('cpu  100 0 50 800 10 0 5 35 7 0\ncpu0 50 0 25 400 5 0 2 18 0 0\n');

    // Assert
    expect(ticks).toEqual({ total: 1000, steal: 35 });
  });

  it('is undefined where there is no cpu line', () => {
    expect(parseCpuTicks('intr 1 2 3\n')).toBeUndefined();
  });
});

describe('parseRunningTasks', () => {
  it('reads the tasks runnable now, or nothing where /proc/stat has no count', () => {
    expect([
      parseRunningTasks('cpu  1 2 3 4 5 6 7 8\nprocs_running 3\nprocs_blocked 0\n'),
      parseRunningTasks(''),
    ]).toEqual([3, undefined]);
  });
});

describe('summarizeMachineLoad', () => {
  it('calls a quiet machine quiet while the run uses its cores', () => {
    // Act
    const load = summarizeMachineLoad(2, QUIET, [
      { load1: 2.4, ticks: { total: 12_000, steal: 12 } },
      { load1: 2.8, ticks: { total: 14_000, steal: 14 } },
    ]);

    // Assert
    expect({ ...load, loadDuring: undefined }).toEqual({
      cores: 2,
      loadBefore: 0.2,
      runningBefore: undefined,
      loadDuring: undefined,
      samplesDuring: 2,
      maxRunningDuring: undefined,
      stealPercent: 0.1,
      busyBecause: [],
    });
    expect([load.loadDuring?.mean, load.loadDuring?.max]).toEqual([expect.closeTo(2.6, 9), 2.8]);
    expect(busyMachineNote({ machineLoad: reportMachineLoad(load) })).toBeUndefined();
  });

  it('calls the machine busy when other tasks keep every core runnable as the run starts', () => {
    // Act
    const load = summarizeMachineLoad(2, { load1: 0.3, running: 3 }, [{ load1: 2.5 }]);

    // Assert
    expect(load.busyBecause).toEqual(['2 other task(s) running on 2 cores as the run started']);
  });

  it('does not call a quiet machine busy for the load average a run that just ended left', () => {
    // Prepare: npm start twice in a row: the 1-minute average still carries the first run.
    const before: MachineLoadSample = { load1: 2.4, running: 1 };

    // Act
    const load = summarizeMachineLoad(2, before, [{ load1: 2.6 }]);

    // Assert
    expect(load.busyBecause).toEqual([]);
  });

  it('falls back on the load average where the running tasks are not counted', () => {
    // Act
    const load = summarizeMachineLoad(2, { load1: 2.5 }, [{ load1: 2.5 }]);

    // Assert
    expect(load.busyBecause).toEqual(['load average 2.5 on 2 cores before the run']);
  });

  it('calls the machine busy when the load during the run exceeds what the run itself makes', () => {
    // Act
    const load = summarizeMachineLoad(2, QUIET, [{ load1: 5 }, { load1: 7 }]);

    // Assert
    expect(load.busyBecause).toEqual(['load average 6.0 (up to 7.0) during the run, more than its own 3']);
  });

  it('calls the machine busy when the hypervisor stole a tenth of the CPU time', () => {
    // Act
    const load = summarizeMachineLoad(2, QUIET, [{ load1: 1, ticks: { total: 20_000, steal: 1_510 } }]);

    // Assert
    expect(load.busyBecause).toEqual(['15 % of the CPU time stolen by the hypervisor']);
  });

  it("says a miss may be the machine's when it was busy", () => {
    // Act
    const text = busyMachineNote({
      machineLoad: reportMachineLoad(summarizeMachineLoad(2, { load1: 4 }, [])),
    });

    // Assert
    expect(text).toMatch(
      /^The machine was busy \(load average 4\.0 on 2 cores before the run\): a miss may be the machine's, not the candidate's\./,
    );
  });
});

describe('reportMachineLoad', () => {
  it('records the load per core, the tasks running and the steal, before and during the run', () => {
    // Prepare: injected readings, never this machine's.
    const load = summarizeMachineLoad(2, { load1: 1, running: 2, ticks: { total: 10_000, steal: 0 } }, [
      { load1: 3, running: 5, ticks: { total: 11_000, steal: 50 } },
      { load1: 5, running: 4, ticks: { total: 12_000, steal: 100 } },
    ]);

    // Act
    const recorded = reportMachineLoad(load);

    // Assert
    expect(recorded).toEqual({
      cores: 2,
      before: { loadPerCore: 0.5, procsRunning: 2 },
      during: { samples: 2, meanLoadPerCore: 2, maxLoadPerCore: 2.5, maxProcsRunning: 5 },
      stealPercent: 5,
      busyBecause: ['load average 4.0 (up to 5.0) during the run, more than its own 3'],
    });
  });

  it('leaves out what the system does not report (no /proc/stat, no samples during the run)', () => {
    // Act
    const recorded = reportMachineLoad(summarizeMachineLoad(4, { load1: 0.4 }, []));

    // Assert
    expect(recorded).toEqual({ cores: 4, before: { loadPerCore: 0.1 }, busyBecause: [] });
  });
});

describe('MachineLoadMonitor', () => {
  it('samples before the run and once more when stopped', () => {
    // Prepare
    const samples = [{ load1: 3 }, { load1: 4 }];
    const monitor = new MachineLoadMonitor(() => samples.shift() ?? { load1: 0 }, 60_000, 2);

    // Act
    const load = monitor.stop();

    // Assert
    expect([monitor.loadBefore, load.loadBefore, load.loadDuring]).toEqual([3, 3, { mean: 4, max: 4 }]);
  });
});
