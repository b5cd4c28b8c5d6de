/**
 * `node --import tsx bench/profile-summary.ts <file.cpuprofile> [top]`: the functions with the most
 * self time in a V8 CPU profile (`node --cpu-prof`), as a share of the profile and grouped by
 * function and place, with the share per file (node internals, undici, the engine) below.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: {
    readonly functionName: string;
    readonly url: string;
    readonly lineNumber: number;
  };
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** Self time (µs) by key, from the samples: each sample's delta goes to the node it landed in. */
export function selfTimes(profile: CpuProfile, keyOf: (node: ProfileNode) => string): Map<string, number> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const times = new Map<string, number>();
  profile.samples.forEach((id, index) => {
    const node = byId.get(id);
    if (node === undefined) return;
    const key = keyOf(node);
    times.set(key, (times.get(key) ?? 0) + (profile.timeDeltas[index] ?? 0));
  });
  return times;
}

const shortUrl = (url: string): string =>
  url.replace(/^file:\/\/.*\/node_modules\//, '').replace(/^file:\/\/.*?\/(handlers|local|bench)\//, '$1/');

function printTop(title: string, times: Map<string, number>, top: number): void {
  const total = [...times.values()].reduce((sum, value) => sum + value, 0);
  console.log(`\n${title} (total ${(total / 1000).toFixed(0)} ms)`);
  for (const [key, us] of [...times].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${((100 * us) / total).toFixed(1).padStart(5)} %  ${key}`);
  }
}

const [file, topArg] = process.argv.slice(2);
if (file === undefined) {
  console.error('usage: profile-summary.ts <file.cpuprofile> [top]');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
const top = Number(topArg ?? 30);
printTop(
  'self time by function',
  selfTimes(
    profile,
    ({ callFrame }) =>
      `${callFrame.functionName || '(anonymous)'} ${shortUrl(callFrame.url)}:${callFrame.lineNumber + 1}`,
  ),
  top,
);
printTop(
  'self time by file',
  selfTimes(profile, ({ callFrame }) => shortUrl(callFrame.url) || callFrame.functionName),
  15,
);
