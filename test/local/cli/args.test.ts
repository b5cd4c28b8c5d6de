import { describe, expect, it } from '@jest/globals';
import { parseCliArguments, USAGE, UsageError } from '../../../local/cli/args.js';

describe('parseCliArguments', () => {
  it('reads the input file and the defaults of the other options', () => {
    // Act
    const args = parseCliArguments(['--input', 'examples/local.json']);

    // Assert
    expect(args).toEqual({
      help: false,
      inputPath: 'examples/local.json',
      storeDir: '.local-store',
      runsDir: 'runs',
      verbose: false,
      plan: false,
      json: false,
    });
  });

  it('reads every option', () => {
    // Act
    const args = parseCliArguments([
      '-i',
      'in.json',
      '--run-id',
      'r1',
      '--store',
      's',
      '--runs',
      'out',
      '-v',
      '--plan',
      '--json',
    ]);

    // Assert
    expect(args).toEqual({
      help: false,
      inputPath: 'in.json',
      runId: 'r1',
      storeDir: 's',
      runsDir: 'out',
      verbose: true,
      plan: true,
      json: true,
    });
  });

  it('refuses --json without --plan, saying what it is for', () => {
    // Act
    const parse = () => parseCliArguments(['--input', 'in.json', '--json']);

    // Assert
    expect(parse).toThrow(
      new UsageError(
        '--json: expected only with --plan (it prints the plan as JSON); a run prints its summary',
      ),
    );
  });

  it('accepts --help without an input', () => {
    // Act
    const args = parseCliArguments(['--help']);

    // Assert
    expect(args.help).toBe(true);
  });

  it('fails when --input is missing, saying what is expected', () => {
    // Act
    const parse = () => parseCliArguments([]);

    // Assert
    expect(parse).toThrow(UsageError);
    expect(parse).toThrow(
      'Missing --input FILE: expected the path of a run input (e.g. examples/local.json)',
    );
  });

  it.each(['--input', '--store', '--runs'])('fails when %s is empty, naming it', (flag) => {
    // Act
    const act = () => parseCliArguments(['--input', 'in.json', flag, '']);

    // Assert
    expect(act).toThrow(new UsageError(`${flag}: got "", expected a path`));
  });

  it('fails when an option is unknown', () => {
    // Act
    const parse = () => parseCliArguments(['--input', 'x.json', '--fast']);

    // Assert
    expect(parse).toThrow(UsageError);
    expect(parse).toThrow(/--fast/);
  });

  it('--help lists every exit code a run ends with, as the shared scheme gives them', () => {
    // Act
    const exitCodes = USAGE.slice(USAGE.indexOf('Exit codes:')).replaceAll('\n', ' ');

    // Assert: 3, 4 and 5 were missing, so a script read "0 the run succeeded" and nothing else.
    expect(exitCodes).toBe(
      'Exit codes: 0 a recommendation, every candidate judged (--plan: the run would start), 1 the run ' +
        'failed, 2 invalid command line or input (--plan: the run would be refused), 3 no candidate met the ' +
        'SLA, 4 every candidate failed, 5 partial (a recommendation, but some candidates could not be ' +
        'judged), 7 the proof at the target TPS did not hold (before 0 and 5), 130 interrupted (Ctrl-C, ' +
        'SIGINT), 143 terminated (SIGTERM).',
    );
  });
});
