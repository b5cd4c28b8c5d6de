import { describe, expect, it } from '@jest/globals';
import {
  calibrateSla,
  takeLocalCalibration,
  timeReferenceInference,
} from '../../../local/cli/calibration.js';
import { generateExampleModel } from '../../../local/example-model/example-model.js';

const INPUT = {
  model: {
    artifactUri: 's3://local-artifacts/models/example-cnn/model.onnx',
    framework: 'onnx',
    inputShape: { input: [1, 3, 32, 32] },
  },
  sla: { p95LatencyMs: 25, maxErrorRate: 0.01 },
};

describe('takeLocalCalibration', () => {
  it('takes the block out of the input, so the first state never sees it', () => {
    // Act
    const taken = takeLocalCalibration({ ...INPUT, localCalibration: { slaTimesReferenceP95: 4 } });

    // Assert
    expect(taken).toEqual({ input: INPUT, calibration: { slaTimesReferenceP95: 4 }, issues: [] });
  });

  it('leaves an input without the block as it is', () => {
    // Act
    const taken = takeLocalCalibration(INPUT);

    // Assert
    expect(taken).toEqual({ input: INPUT, calibration: undefined, issues: [] });
  });

  it('fails when the factor is below 1, naming the field and the range', () => {
    // Act
    const taken = takeLocalCalibration({ ...INPUT, localCalibration: { slaTimesReferenceP95: 0.5 } });

    // Assert
    expect(taken.calibration).toBeUndefined();
    expect(taken.issues).toEqual([
      {
        field: 'localCalibration.slaTimesReferenceP95',
        given: '0.5',
        expected:
          "a number from 1 to 100: the SLA's latency limits become at least that many times this machine's reference p95",
      },
    ]);
  });

  it('fails when the model is not an ONNX file it can time', () => {
    // Act
    const taken = takeLocalCalibration({
      ...INPUT,
      model: { ...INPUT.model, artifactUri: 's3://local-artifacts/models/m/model.tar.gz' },
      localCalibration: { slaTimesReferenceP95: 4 },
    });

    // Assert
    expect(taken.issues.map((issue) => [issue.field, issue.expected])).toEqual([
      [
        'localCalibration',
        'an ONNX model file (framework "onnx", an artifactUri ending in .onnx) to time as the reference',
      ],
    ]);
  });

  it('fails when the SLA has no latency limit to scale', () => {
    // Act
    const taken = takeLocalCalibration({
      ...INPUT,
      sla: { ttftP95Ms: 150 },
      localCalibration: { slaTimesReferenceP95: 4 },
    });

    // Assert
    expect(taken.issues.map((issue) => issue.expected)).toEqual([
      'an SLA with p95LatencyMs or p99LatencyMs to scale',
    ]);
  });
});

describe('calibrateSla', () => {
  it('keeps the SLA as written when the machine is quiet enough', () => {
    // Act
    const calibrated = calibrateSla(INPUT, { slaTimesReferenceP95: 4 }, { p95Ms: 5.5, inferences: 120 });

    // Assert
    expect(calibrated.input).toBe(INPUT);
    expect(calibrated.description).toBe(
      'SLA kept as written: 4 × the reference inference p95 5.50 ms on this machine (120 timed, one thread, uncompiled) is 22 ms, within it',
    );
  });

  it('raises the p95 limit to the factor times the reference on a busy machine, and says so', () => {
    // Act
    const calibrated = calibrateSla(INPUT, { slaTimesReferenceP95: 4 }, { p95Ms: 32.51, inferences: 91 });

    // Assert
    expect(calibrated.input).toEqual({ ...INPUT, sla: { p95LatencyMs: 130.1, maxErrorRate: 0.01 } });
    expect(calibrated.description).toBe(
      'SLA raised for this machine (p95 ≤ 25 → 130.1 ms): 4 × the reference inference p95 32.51 ms on this machine (91 timed, one thread, uncompiled), as localCalibration asks; a quiet machine keeps the SLA as written',
    );
  });

  it('keeps a p99 limit in its ratio to the p95 one', () => {
    // Prepare
    const input = { ...INPUT, sla: { p95LatencyMs: 20, p99LatencyMs: 40 } };

    // Act
    const calibrated = calibrateSla(input, { slaTimesReferenceP95: 2 }, { p95Ms: 20, inferences: 60 });

    // Assert
    expect(calibrated.input).toEqual({ ...INPUT, sla: { p95LatencyMs: 40, p99LatencyMs: 80 } });
  });
});

describe('timeReferenceInference', () => {
  it('times the example model one inference at a time, enough of them for a p95', async () => {
    // Act
    const timing = await timeReferenceInference(generateExampleModel(), { input: [1, 3, 32, 32] });

    // Assert: the figure depends on the machine; its shape does not
    expect(timing.inferences).toBeGreaterThanOrEqual(60);
    expect(timing.p95Ms).toBeGreaterThan(0);
  });
});
