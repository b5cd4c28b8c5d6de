import { type IAspect, Stack } from 'aws-cdk-lib';
import { CfnPermission } from 'aws-cdk-lib/aws-lambda';
import type { IConstruct } from 'constructs';

/**
 * The services whose invocations of a Lambda carry `aws:SourceAccount`, so a permission may require
 * it beside `aws:SourceArn`:
 * - API Gateway: the Lambda developer guide's function policy for an API ("Invoking a Lambda
 *   function using an Amazon API Gateway endpoint") conditions on both;
 * - EventBridge: its user guide ("Using IAM policy conditions in Amazon EventBridge") defines
 *   `aws:SourceAccount` as the account of the rule named by `aws:SourceArn`.
 *
 * SNS is left with its SourceArn only: the topic ARN names its account, which the Lambda developer
 * guide ("Using resource-based policies for AWS Lambda") says suffices, and no SNS page documents
 * the key on a Lambda invocation; a condition the service does not send would refuse every delivery.
 */
export const SOURCE_ACCOUNT_PRINCIPALS: readonly string[] = [
  'apigateway.amazonaws.com',
  'events.amazonaws.com',
];

/**
 * Adds `SourceAccount` (this stack's account) to every Lambda permission granted to one of
 * SOURCE_ACCOUNT_PRINCIPALS, whatever construct created it: LambdaIntegration and EventBridge
 * targets write `SourceArn` only. The source ARN stays as each construct wrote it; the account
 * condition keeps the permission closed should the source (an API, a rule) ever be recreated
 * elsewhere under the same name, the confused-deputy case the Lambda guide describes.
 */
export class ScopeServiceInvocationsToAccount implements IAspect {
  visit(node: IConstruct): void {
    if (!(node instanceof CfnPermission) || node.sourceAccount !== undefined) return;
    const stack = Stack.of(node);
    const principal: unknown = stack.resolve(node.principal);
    if (typeof principal === 'string' && SOURCE_ACCOUNT_PRINCIPALS.includes(principal)) {
      node.sourceAccount = stack.account;
    }
  }
}
