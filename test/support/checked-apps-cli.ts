/**
 * Prints the path of the checked syntheses for the sources as they are now, synthesizing them first
 * on a cache miss (`checked-apps.ts`). jest's global set-up runs it once per test run.
 */
import { ensureCheckedApps } from './checked-apps.js';

process.stdout.write(`${ensureCheckedApps()}\n`);
