import { runCli } from './cli-program.js';

/** `npm run runs -- <start|status> …`: see `npm run runs -- --help`. */
process.exitCode = await runCli(process.argv.slice(2));
