import { CfnElement } from 'aws-cdk-lib';
import type { Stack } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { flattenCfnReference } from '../../infra/nag/acknowledge.js';

/**
 * The permissions a role's policies grant, one line per action and resource, e.g.
 * `s3:GetObject on <ArtifactsBucket88671897.Arn>/runs/*` (conditions appended as JSON). Comparing
 * sorted lines is independent of how CDK merges statements (`@aws-cdk/aws-iam:minimizePolicies`).
 */
export function grantsOf(template: Template, roleLogicalId: string): string[] {
  const policies = template.findResources('AWS::IAM::Policy', {
    Properties: { Roles: [{ Ref: roleLogicalId }] },
  });
  const lines = Object.values(policies).flatMap((policy) => {
    const statements = (policy as PolicyResource).Properties.PolicyDocument.Statement;
    return statements.flatMap((statement) => {
      const condition = statement.Condition === undefined ? '' : ` if ${JSON.stringify(statement.Condition)}`;
      return (toArray(statement.Action) as string[]).flatMap((action) =>
        toArray(statement.Resource).map(
          (resource) => `${statement.Effect} ${action} on ${flattenCfnReference(resource)}${condition}`,
        ),
      );
    });
  });
  return lines.sort();
}

/** The logical id of a construct's CloudFormation resource, as it appears in the template. */
export function logicalIdOf(stack: Stack, construct: IConstruct): string {
  const resource = construct.node.defaultChild;
  if (!CfnElement.isCfnElement(resource)) {
    throw new Error(`${construct.node.path} has no CloudFormation resource as its default child`);
  }
  return stack.resolve(stack.getLogicalId(resource)) as string;
}

interface PolicyResource {
  Properties: {
    PolicyDocument: {
      Statement: { Effect: string; Action: unknown; Resource: unknown; Condition?: unknown }[];
    };
  };
}

function toArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [value];
}

/** A resource's `Properties`, by logical id; fails naming the id when the template has none. */
export function propertiesOf(template: Template, logicalId: string): Record<string, unknown> {
  const resource = (template.toJSON().Resources as Record<string, { Properties: Record<string, unknown> }>)[
    logicalId
  ];
  if (resource === undefined) throw new Error(`No resource ${logicalId} in the template`);
  return resource.Properties;
}

/** The trust policy of a schedule's role: Scheduler, for this account's default group only (TEST_ENV). */
export const SCHEDULER_TRUST_POLICY = {
  Version: '2012-10-17',
  Statement: [
    {
      Effect: 'Allow',
      Action: 'sts:AssumeRole',
      Principal: { Service: 'scheduler.amazonaws.com' },
      Condition: {
        StringEquals: {
          'aws:SourceAccount': '123456789012',
          'aws:SourceArn': 'arn:aws:scheduler:us-east-1:123456789012:schedule-group/default',
        },
      },
    },
  ],
} as const;
