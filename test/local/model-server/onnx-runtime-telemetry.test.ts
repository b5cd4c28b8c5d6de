import { describe, expect, it } from '@jest/globals';

import {
  disableOnnxRuntimeTelemetry,
  ORT_TELEMETRY_VARIABLE,
} from '../../../local/model-server/onnx-runtime-telemetry.js';

describe('disableOnnxRuntimeTelemetry', () => {
  it('sets ORT_DISABLE_TELEMETRY=1 when the environment has no value for it', () => {
    // Prepare
    const env: NodeJS.ProcessEnv = { PATH: '/usr/bin' };

    // Act
    disableOnnxRuntimeTelemetry(env);

    // Assert
    expect(env).toEqual({ PATH: '/usr/bin', [ORT_TELEMETRY_VARIABLE]: '1' });
  });

  it('keeps a value the user set, so telemetry can be turned back on', () => {
    // Prepare
    const env: NodeJS.ProcessEnv = { [ORT_TELEMETRY_VARIABLE]: '0' };

    // Act
    disableOnnxRuntimeTelemetry(env);

    // Assert
    expect(env).toEqual({ [ORT_TELEMETRY_VARIABLE]: '0' });
  });
});
