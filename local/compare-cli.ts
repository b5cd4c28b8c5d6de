/**
 * `npm run -s compare -- <base run> <new run>`: two runs' reports side by side.
 * See `local/cli/compare.ts` for the arguments, or run it with `--help`.
 */
import { runCompareCli } from './cli/index.js';

process.exitCode = await runCompareCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
});
