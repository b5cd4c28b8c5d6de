import { describe, expect, it } from '@jest/globals';
import { parseCliArguments, UsageError } from '../../../local/cli/args.js';

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

  it('fails when an option is unknown', () => {
    // Act
    const parse = () => parseCliArguments(['--input', 'x.json', '--fast']);

    // Assert
    expect(parse).toThrow(UsageError);
    expect(parse).toThrow(/--fast/);
  });
});
