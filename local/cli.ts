/**
 * `npm start` (= `tsx local/cli.ts --input examples/local.json`): the local optimization run.
 * See `local/cli/args.ts` for the options, or run it with `--help`.
 */
import { runCli } from './cli/main.js';

const outcome = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  handleSignals: true,
});
process.exitCode = outcome.exitCode;
