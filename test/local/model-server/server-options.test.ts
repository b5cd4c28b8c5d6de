import { availableParallelism } from 'node:os';

import { describe, expect, it } from '@jest/globals';

import { InvalidServerConfigError } from '../../../local/model-server/errors.js';
import {
  MODEL_SERVER_DEFAULTS,
  readServerOptionsFromEnv,
  resolveServerOptions,
  serverOptionsToEnv,
} from '../../../local/model-server/server-options.js';

describe('readServerOptionsFromEnv', () => {
  it('uses the SageMaker defaults for unset variables', () => {
    // Act
    const options = readServerOptionsFromEnv({ MODEL_SERVER_INTRA_OP_THREADS: '1' });

    // Assert
    expect(options).toEqual({
      port: 8080,
      host: '0.0.0.0',
      modelDir: '/opt/ml/model',
      workers: 1,
      intraOpThreads: 1,
      spinWait: false,
      maxBatchSize: 1,
      maxBatchDelayMs: MODEL_SERVER_DEFAULTS.maxBatchDelayMs,
      maxQueue: MODEL_SERVER_DEFAULTS.maxQueue,
      requestTimeoutMs: 60_000,
    });
  });

  it('reads every variable of the contract', () => {
    // Act
    const options = readServerOptionsFromEnv({
      SAGEMAKER_BIND_TO_PORT: '0',
      MODEL_SERVER_HOST: '127.0.0.1',
      SM_MODEL_DIR: '/models/c1',
      SAGEMAKER_MODEL_SERVER_WORKERS: '3',
      MODEL_SERVER_INTRA_OP_THREADS: '2',
      MODEL_SERVER_SPIN_WAIT: 'true',
      MODEL_SERVER_MAX_BATCH_SIZE: '16',
      MODEL_SERVER_MAX_BATCH_DELAY_MS: '10',
      MODEL_SERVER_MAX_QUEUE: '7',
      SAGEMAKER_MODEL_SERVER_TIMEOUT: '5',
    });

    // Assert
    expect(options).toEqual({
      port: 0,
      host: '127.0.0.1',
      modelDir: '/models/c1',
      workers: 3,
      intraOpThreads: 2,
      spinWait: true,
      maxBatchSize: 16,
      maxBatchDelayMs: 10,
      maxQueue: 7,
      requestTimeoutMs: 5000,
    });
  });

  it('shares the machine’s cores between the workers when no thread count is set', () => {
    // Act
    const options = readServerOptionsFromEnv({ SAGEMAKER_MODEL_SERVER_WORKERS: '2' });

    // Assert
    expect(options.intraOpThreads).toBe(Math.max(1, Math.floor(availableParallelism() / 2)));
  });

  it('takes intra-op threads from OMP_NUM_THREADS when MODEL_SERVER_INTRA_OP_THREADS is unset', () => {
    // Act
    const options = readServerOptionsFromEnv({ OMP_NUM_THREADS: '4' });

    // Assert
    expect(options.intraOpThreads).toBe(4);
  });

  it('prefers MODEL_SERVER_INTRA_OP_THREADS over OMP_NUM_THREADS', () => {
    // Act
    const options = readServerOptionsFromEnv({ OMP_NUM_THREADS: '4', MODEL_SERVER_INTRA_OP_THREADS: '2' });

    // Assert
    expect(options.intraOpThreads).toBe(2);
  });

  it('treats an empty variable as unset', () => {
    // Act
    const options = readServerOptionsFromEnv({ SAGEMAKER_BIND_TO_PORT: '', SM_MODEL_DIR: ' ' });

    // Assert
    expect(options.port).toBe(8080);
    expect(options.modelDir).toBe('/opt/ml/model');
  });

  it('fails when a variable is not an integer, naming the variable, value and expectation', () => {
    // Act
    const read = () => readServerOptionsFromEnv({ SAGEMAKER_MODEL_SERVER_WORKERS: 'two' });

    // Assert
    expect(read).toThrow(InvalidServerConfigError);
    expect(read).toThrow(
      'Invalid model server configuration: SAGEMAKER_MODEL_SERVER_WORKERS: got "two", expected an integer from 1 to 64',
    );
  });

  it('fails when a value is out of range, reporting every invalid variable at once', () => {
    // Act
    let error: unknown;
    try {
      readServerOptionsFromEnv({
        SAGEMAKER_BIND_TO_PORT: '70000',
        MODEL_SERVER_MAX_BATCH_SIZE: '0',
        MODEL_SERVER_MAX_QUEUE: '-1',
      });
    } catch (caught) {
      error = caught;
    }

    // Assert
    expect(error).toBeInstanceOf(InvalidServerConfigError);
    expect((error as InvalidServerConfigError).issues).toEqual([
      { field: 'SAGEMAKER_BIND_TO_PORT', given: '"70000"', expected: 'an integer from 0 to 65535' },
      { field: 'MODEL_SERVER_MAX_BATCH_SIZE', given: '"0"', expected: 'an integer from 1 to 1024' },
      { field: 'MODEL_SERVER_MAX_QUEUE', given: '"-1"', expected: 'an integer from 1 to 100000' },
    ]);
  });

  it('fails when a number has a fraction', () => {
    // Act
    const read = () => readServerOptionsFromEnv({ MODEL_SERVER_MAX_BATCH_DELAY_MS: '2.5' });

    // Assert
    expect(read).toThrow('MODEL_SERVER_MAX_BATCH_DELAY_MS: got "2.5", expected an integer from 0 to 10000');
  });
});

describe('resolveServerOptions', () => {
  it('fails when an in-process option is invalid, naming the option', () => {
    // Act
    const resolve = () => resolveServerOptions({ modelDir: '/m', workers: 0 });

    // Assert
    expect(resolve).toThrow('workers: got 0, expected an integer from 1 to 64');
  });
});

describe('MODEL_SERVER_SPIN_WAIT', () => {
  it('reads 0 and 1 as off and on, and an empty value as the default (off)', () => {
    // Act
    const off = readServerOptionsFromEnv({ MODEL_SERVER_SPIN_WAIT: '0' });
    const on = readServerOptionsFromEnv({ MODEL_SERVER_SPIN_WAIT: ' 1 ' });
    const empty = readServerOptionsFromEnv({ MODEL_SERVER_SPIN_WAIT: '' });

    // Assert
    expect([off.spinWait, on.spinWait, empty.spinWait]).toEqual([false, true, false]);
  });

  it('fails when the value is neither a number 0/1 nor true/false, naming the variable', () => {
    // Act
    const read = () => readServerOptionsFromEnv({ MODEL_SERVER_SPIN_WAIT: 'yes' });

    // Assert
    expect(read).toThrow('MODEL_SERVER_SPIN_WAIT: got "yes", expected 1 or true, 0 or false');
  });
});

describe('serverOptionsToEnv', () => {
  it('gives the environment that reads back as the same options', () => {
    // Prepare
    const options = resolveServerOptions({
      modelDir: '/models/c2',
      port: 0,
      host: '127.0.0.1',
      workers: 2,
      intraOpThreads: 1,
      spinWait: true,
      maxBatchSize: 4,
      maxBatchDelayMs: 3,
      maxQueue: 9,
      requestTimeoutMs: 30_000,
    });

    // Act
    const env = serverOptionsToEnv(options);

    // Assert
    expect(env.SAGEMAKER_MODEL_SERVER_TIMEOUT).toBe('30');
    expect(readServerOptionsFromEnv(env)).toEqual(options);
  });
});
