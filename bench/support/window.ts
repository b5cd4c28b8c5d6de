import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * Timing a load generator from outside: the server's count of responses and the client process's
 * CPU time, sampled by the bench's parent at the start and end of a window it chooses after the
 * client's warm-up. Every tool is then measured over the same kind of warm window, by the same
 * counter, whatever its own report counts (autocannon's own figure includes its cold start).
 */
export interface WindowSample {
  /** Epoch ms when the sample was taken. */
  readonly atEpochMs: number;
  /** Responses the server had ended. */
  readonly served: number;
  /** CPU time (user + system) the client process had used, µs. */
  readonly clientCpuUs: number;
}

export interface WindowFigures {
  readonly requestsPerSecond: number;
  readonly cpuUsPerRequest: number;
  readonly requests: number;
  readonly seconds: number;
  /** The window ended before the client stopped sending: otherwise its figures hold the wind-down. */
  readonly insideRun: boolean;
}

/** Figures over [start, end]; NaN where the window saw no request, so that every goal fails. */
export function windowFigures(
  start: WindowSample,
  end: WindowSample,
  clientLoadEndedAtEpochMs: number,
): WindowFigures {
  const requests = end.served - start.served;
  const seconds = (end.atEpochMs - start.atEpochMs) / 1000;
  return {
    requestsPerSecond: requests > 0 && seconds > 0 ? requests / seconds : Number.NaN,
    cpuUsPerRequest: requests > 0 ? (end.clientCpuUs - start.clientCpuUs) / requests : Number.NaN,
    requests,
    seconds,
    insideRun: end.atEpochMs <= clientLoadEndedAtEpochMs,
  };
}

let ticksPerSecond: number | undefined;

/**
 * CPU time a process has used (user + system, all its threads), µs, from /proc/<pid>/stat
 * (fields 14 and 15, in clock ticks: proc(5)). Linux only, as the bench's machine is.
 */
export function processCpuUs(pid: number): number {
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) is in parentheses and may hold spaces: count from after it.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1_000_000) / ticksPerSecond;
}

/** One sample: the client's CPU first, then the server's count, then the time. */
export async function sampleWindow(serverOrigin: string, clientPid: number): Promise<WindowSample> {
  const clientCpuUs = processCpuUs(clientPid);
  const response = await fetch(`${serverOrigin}/served`);
  const { served } = (await response.json()) as { served: number };
  return { atEpochMs: Date.now(), served, clientCpuUs };
}
