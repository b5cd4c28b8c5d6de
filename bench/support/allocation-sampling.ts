/**
 * Preload for a child, `node --import tsx --import ./bench/support/allocation-sampling.ts …`:
 * samples every allocation (one in 4 KiB on average), including objects the GC has already
 * collected, which is what a load generator's per-request garbage is, and writes the profile to
 * `$ALLOCATION_PROFILE` (default `allocation.heapprofile`) when the child's event loop empties.
 * `bench/profile-summary.ts` reads it.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

const session = new Session();
session.connect();
await session.post('HeapProfiler.enable');
await session.post('HeapProfiler.startSampling', {
  samplingInterval: 4096,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
});
let written = false;
process.on('beforeExit', () => {
  if (written) return;
  written = true;
  void session.post('HeapProfiler.stopSampling').then(({ profile }) => {
    writeFileSync(process.env.ALLOCATION_PROFILE ?? 'allocation.heapprofile', JSON.stringify(profile));
  });
});
