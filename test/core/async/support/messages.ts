/**
 * SageMaker async inference notifications as SageMaker publishes them to SNS (SageMaker Developer
 * Guide, "Check prediction results"; field order and values as in published examples, the failure's
 * times moved to the day of the other fixtures: after the token was stored, as a real one is).
 */

export function completedMessage(inferenceId: string, overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({
    awsRegion: 'us-east-1',
    eventTime: '2026-05-23T03:23:21.814Z',
    receivedTime: '2026-05-23T03:23:09.588Z',
    invocationStatus: 'Completed',
    requestParameters: {
      accept: 'application/json',
      endpointName: 'mso-async-endpoint',
      inputLocation: 's3://mso-async-input/inputs/0001.json',
    },
    responseParameters: {
      contentType: 'application/json',
      outputLocation: 's3://mso-async-output/results/2f4dcf85-01b8-418c-8c93-2b30fcdd1ab8.out',
    },
    inferenceId,
    eventVersion: '1.0',
    eventSource: 'aws:sagemaker',
    eventName: 'InferenceResult',
    ...overrides,
  });
}

export function failedMessage(inferenceId: string, overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({
    awsRegion: 'us-east-1',
    eventTime: '2026-05-23T03:23:10.608Z',
    receivedTime: '2026-05-23T03:23:10.455Z',
    invocationStatus: 'Failed',
    failureReason:
      'ClientError: Received server error (500) from model. See the SageMaker Endpoint logs in your account for more information.',
    requestParameters: {
      endpointName: 'mso-async-endpoint',
      inputLocation: 's3://mso-async-input/inputs/0002.json',
    },
    inferenceId,
    eventVersion: '1.0',
    eventSource: 'aws:sagemaker',
    eventName: 'InferenceResult',
    ...overrides,
  });
}
