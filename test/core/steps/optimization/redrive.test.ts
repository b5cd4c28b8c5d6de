import { describe, expect, it } from '@jest/globals';
import { ErrorNames, RunRedrivenError } from '../../../../core/contracts/errors.js';
import { refuseRedrive } from '../../../../core/steps/optimization/redrive.js';

describe('refuseRedrive', () => {
  it('lets the first attempt through, with the count absent or 0', () => {
    // Act / Assert
    expect(() => {
      refuseRedrive({}, 'Check endpoint');
    }).not.toThrow();
    expect(() => {
      refuseRedrive({ redriveCount: 0 }, 'Check endpoint');
    }).not.toThrow();
  });

  it('fails when the execution was redriven, naming the state and saying to start a new run', () => {
    // Act
    const refuse = (): void => {
      refuseRedrive({ redriveCount: 2 }, 'Run load worker');
    };

    // Assert
    expect(refuse).toThrow(RunRedrivenError);
    expect(refuse).toThrow(/^"Run load worker" was resumed by a redrive \(redrive 2\): .*Start a new run/);
    try {
      refuse();
    } catch (error) {
      expect((error as RunRedrivenError).name).toBe(ErrorNames.runRedriven);
      expect((error as RunRedrivenError).details).toEqual({ stateName: 'Run load worker', redriveCount: 2 });
    }
  });
});
