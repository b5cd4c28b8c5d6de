import {
  CreateEndpointConfigCommand,
  type CreateEndpointConfigCommandInput,
  CreateInferenceComponentCommand,
  type CreateInferenceComponentCommandInput,
  DeleteInferenceComponentCommand,
  DescribeInferenceComponentCommand,
  paginateListInferenceComponents,
  type SageMakerClient,
} from '@aws-sdk/client-sagemaker';
import { type InferenceComponentStatus, InferenceComponentStatuses } from '../../core/contracts/index.js';
import {
  createComponentEndpointConfigRequest,
  createInferenceComponentRequest,
} from '../../core/deployment/index.js';
import type {
  ComponentEndpointConfigSpec,
  InferenceComponentDescription,
  InferenceComponentHost,
  InferenceComponentSpec,
  InferenceComponentSummary,
} from '../../core/deployment/index.js';
import { describeOrUndefined, isAlreadyExists, isNotFound, toStepError } from './sagemaker-errors.js';

export interface SageMakerComponentHostOptions {
  readonly client: SageMakerClient;
  /**
   * The role SageMaker assumes for the endpoint's components (CreateEndpointConfig
   * `ExecutionRoleArn`). Only `createComponentEndpointConfig` needs it.
   */
  readonly executionRoleArn?: string;
}

/** ListInferenceComponents returns at most 100 per page (SageMaker API reference, `MaxResults`). */
const LIST_PAGE_SIZE = 100;

const KNOWN_STATUSES: ReadonlySet<string> = new Set(Object.values(InferenceComponentStatuses));

function isComponentStatus(value: string | undefined): value is InferenceComponentStatus {
  return value !== undefined && KNOWN_STATUSES.has(value);
}

/**
 * `InferenceComponentHost` over the SageMaker control plane: the requests are the core's
 * (core/deployment/component-requests.ts); creates are idempotent, deletes of missing components
 * return `false`, and failures surface as the project's errors (`toStepError`).
 */
export class SageMakerComponentHost implements InferenceComponentHost {
  private readonly client: SageMakerClient;
  private readonly executionRoleArn: string | undefined;

  constructor(options: SageMakerComponentHostOptions) {
    this.client = options.client;
    this.executionRoleArn = options.executionRoleArn;
  }

  async createComponentEndpointConfig(spec: ComponentEndpointConfigSpec): Promise<void> {
    if (this.executionRoleArn === undefined) {
      throw new Error(
        'SageMakerComponentHost.createComponentEndpointConfig needs the SageMaker execution role: got none, ' +
          'expected executionRoleArn (the SAGEMAKER_EXECUTION_ROLE_ARN variable of the steps that create SageMaker resources)',
      );
    }
    // The cast narrows InstanceType to the SDK's enum (the plan checked it) and makes arrays mutable.
    const command = new CreateEndpointConfigCommand(
      createComponentEndpointConfigRequest(spec, this.executionRoleArn) as CreateEndpointConfigCommandInput,
    );
    try {
      await this.client.send(command);
    } catch (error) {
      if (isAlreadyExists(error)) return;
      throw toStepError(error, {
        operation: 'CreateEndpointConfig',
        kind: 'endpoint configuration',
        resourceName: spec.endpointConfigName,
        instanceType: spec.instanceType,
      });
    }
  }

  async createInferenceComponent(spec: InferenceComponentSpec): Promise<void> {
    const command = new CreateInferenceComponentCommand(
      createInferenceComponentRequest(spec) as CreateInferenceComponentCommandInput,
    );
    try {
      await this.client.send(command);
    } catch (error) {
      if (isAlreadyExists(error)) return;
      throw toStepError(error, {
        operation: 'CreateInferenceComponent',
        kind: 'inference component',
        resourceName: spec.inferenceComponentName,
      });
    }
  }

  async describeInferenceComponent(name: string): Promise<InferenceComponentDescription | undefined> {
    const described = await describeOrUndefined(
      () => this.client.send(new DescribeInferenceComponentCommand({ InferenceComponentName: name })),
      { operation: 'DescribeInferenceComponent', kind: 'inference component', resourceName: name },
    );
    if (described === undefined) return undefined;
    const status = described.InferenceComponentStatus;
    if (!isComponentStatus(status)) {
      throw new Error(
        `DescribeInferenceComponent ${name}: got the status ${JSON.stringify(status)}, expected one of ` +
          `${[...KNOWN_STATUSES].join(', ')}; update InferenceComponentStatuses for this new status`,
      );
    }
    const endpointName = described.EndpointName;
    if (endpointName === undefined) {
      // A required member of the response (SageMaker API model); the SDK types it optional.
      throw new Error(
        `DescribeInferenceComponent ${name}: got no EndpointName, expected the endpoint that hosts it`,
      );
    }
    const runtime = described.RuntimeConfig;
    return {
      name,
      endpointName,
      status,
      ...(described.FailureReason === undefined || described.FailureReason === ''
        ? {}
        : { failureReason: described.FailureReason }),
      ...(runtime?.DesiredCopyCount === undefined ? {} : { desiredCopyCount: runtime.DesiredCopyCount }),
      ...(runtime?.CurrentCopyCount === undefined ? {} : { currentCopyCount: runtime.CurrentCopyCount }),
    };
  }

  async deleteInferenceComponent(name: string): Promise<boolean> {
    try {
      await this.client.send(new DeleteInferenceComponentCommand({ InferenceComponentName: name }));
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw toStepError(error, {
        operation: 'DeleteInferenceComponent',
        kind: 'inference component',
        resourceName: name,
      });
    }
  }

  /** ListInferenceComponents narrowed server-side to the endpoint (`EndpointNameEquals`). */
  async listEndpointComponents(endpointName: string): Promise<readonly InferenceComponentSummary[]> {
    const components: InferenceComponentSummary[] = [];
    try {
      const pages = paginateListInferenceComponents(
        { client: this.client, pageSize: LIST_PAGE_SIZE },
        { EndpointNameEquals: endpointName },
      );
      for await (const page of pages) {
        for (const summary of page.InferenceComponents ?? []) {
          const name = summary.InferenceComponentName;
          // The API always names the component; the SDK types it optional.
          if (name === undefined) continue;
          const status = summary.InferenceComponentStatus;
          components.push({
            name,
            endpointName: summary.EndpointName ?? endpointName,
            ...(isComponentStatus(status) ? { status } : {}),
          });
        }
      }
    } catch (error) {
      throw toStepError(error, {
        operation: 'ListInferenceComponents',
        kind: 'inference component',
        resourceName: `${endpointName}/*`,
      });
    }
    return components;
  }
}
