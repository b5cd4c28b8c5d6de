/**
 * `node --import tsx bench/profile-summary.ts <profile> [top] [requests]`: where a child spent its
 * time or its allocations. A CPU profile (`node --cpu-prof`) gives self time by function and by
 * file as a share of the profile; an allocation profile (bench/support/allocation-sampling.ts)
 * gives bytes allocated by function, per request when `requests` is given.
 */
import { readFileSync } from 'node:fs';

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}

interface CpuProfile {
  readonly nodes: readonly { readonly id: number; readonly callFrame: CallFrame }[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

interface AllocationNode {
  readonly callFrame: CallFrame;
  readonly selfSize: number;
  readonly children: readonly AllocationNode[];
}

/** Self time (µs) by key: each sample's time delta goes to the node it landed in. */
export function selfTimes(profile: CpuProfile, keyOf: (frame: CallFrame) => string): Map<string, number> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const times = new Map<string, number>();
  profile.samples.forEach((id, index) => {
    const frame = byId.get(id);
    if (frame === undefined) return;
    const key = keyOf(frame);
    times.set(key, (times.get(key) ?? 0) + (profile.timeDeltas[index] ?? 0));
  });
  return times;
}

/** Bytes allocated by key, over the whole allocation tree. */
export function selfAllocations(
  head: AllocationNode,
  keyOf: (frame: CallFrame) => string,
): Map<string, number> {
  const bytes = new Map<string, number>();
  const visit = (node: AllocationNode): void => {
    const key = keyOf(node.callFrame);
    bytes.set(key, (bytes.get(key) ?? 0) + node.selfSize);
    node.children.forEach(visit);
  };
  visit(head);
  return bytes;
}

const place = (url: string): string =>
  url
    .replace(/^(?:file:\/\/)?.*\/node_modules\//, '')
    .replace(/^(?:file:\/\/)?\/.*?\/(core|local|bench|test)\//, '$1/');
const byFunction = (frame: CallFrame): string =>
  `${frame.functionName || '(anonymous)'} ${place(frame.url)}:${frame.lineNumber + 1}`;
const byFile = (frame: CallFrame): string => place(frame.url) || frame.functionName;

function printTop(
  title: string,
  values: Map<string, number>,
  top: number,
  format: (value: number) => string,
): void {
  console.log(`\n${title}`);
  for (const [key, value] of [...values].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${format(value).padStart(12)}  ${key}`);
  }
}

const [file, topArg, requestsArg] = process.argv.slice(2);
if (file === undefined) {
  console.error('usage: profile-summary.ts <profile> [top] [requests]');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile | { head: AllocationNode };
const top = Number(topArg ?? 30);
if ('head' in profile) {
  const requests = Number(requestsArg ?? 1);
  const bytes = selfAllocations(profile.head, byFunction);
  const total = [...bytes.values()].reduce((sum, value) => sum + value, 0);
  const unit = requestsArg === undefined ? 'B' : 'B/request';
  console.log(`allocated ${(total / requests).toFixed(0)} ${unit} (sampled)`);
  printTop('by function', bytes, top, (value) => `${(value / requests).toFixed(0)} ${unit}`);
} else {
  const total = profile.timeDeltas.reduce((sum, value) => sum + value, 0);
  const share = (value: number): string => `${((100 * value) / total).toFixed(1)} %`;
  console.log(`profile of ${(total / 1000).toFixed(0)} ms`);
  printTop('self time by function', selfTimes(profile, byFunction), top, share);
  printTop('self time by file', selfTimes(profile, byFile), 15, share);
}
