import { describe, expect, it } from '@jest/globals';
import { Stack } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { ArtifactsStore } from '../../../infra/constructs/artifacts-store.js';
import { createTestApp, TEST_ENV } from '../app.js';

describe('ArtifactsStore', () => {
  it('fails when a grant names no prefix', () => {
    // Prepare
    const stack = new Stack(createTestApp(), 'StoreTest', { env: TEST_ENV });
    const store = new ArtifactsStore(stack, 'Artifacts');
    const role = new Role(stack, 'Reader', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });

    // Act
    const act = () => {
      store.grantRead(role);
    };

    // Assert
    expect(act).toThrow(
      'ArtifactsStore.grantRead: got no prefix, expected at least one of models/, inputs/, runs/, model-packages/',
    );
  });
});
