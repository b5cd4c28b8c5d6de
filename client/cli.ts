import { runCli } from './cli-program.js';

/** `npm run -s runs -- <start|status|list|stop|logs|report> …`: see `npm run -s runs -- --help`. */
process.exitCode = await runCli(process.argv.slice(2));
