/**
 * AWS CloudFormation Guard at synth, beside cdk-nag: `@cdklabs/cdk-validator-cfnguard` runs the
 * cfn-guard binary it ships (Linux and macOS, x86_64 and arm64) with the AWS Control Tower proactive
 * control rules it bundles, over each synthesized template, offline. A finding fails `cdk synth`
 * unless its rule is disabled below or the finding is acknowledged on its construct
 * (`acknowledgeGuardRule`, infra/nag/acknowledge.ts), each with its reason.
 *
 * Disabled here: rules whose answer is a decision about every resource of a type in this project.
 * Findings that are one resource's exception are acknowledged where that resource is made.
 */
export const DISABLED_GUARD_RULES: Readonly<Record<string, string>> = {
  // CT.LAMBDA.PR.3
  'ct-lambda-pr-3':
    'The Lambdas call only AWS APIs (SageMaker, Step Functions, S3, DynamoDB, SNS, CloudWatch) with IAM; ' +
    'a customer VPC would need a NAT gateway or a dozen interface endpoints for no private data path.',
  // CT.CLOUDWATCH.PR.3
  'ct-cloudwatch-pr-3':
    'CloudWatch Logs encrypts every log group at rest; the logs hold no payloads (events are never logged, ' +
    'state machines log without execution data, API access logs carry no bodies), so a customer key adds ' +
    'a key policy per service and cost without protecting data.',
  // CT.S3.PR.9
  'ct-s3-pr-9':
    'Object Lock forbids the deletions the buckets rely on: run artifacts are overwritten and expire ' +
    'through lifecycle rules, and access logs expire after a year.',
  // CT.S3.PR.4
  'ct-s3-pr-4':
    'Nothing in the project reacts to object events: runs read and write the bucket from the workflow, ' +
    'so a notification configuration would have no consumer.',
};

/** CT.KMS.PR.3: a key policy must deny kms:CreateGrant unless it is for an AWS resource. */
export const KMS_CREATE_GRANT_RULE = 'kms_create_grant_aws_service_check';
export const KMS_CREATE_GRANT_REASON =
  'The key policy is CDK’s default (the account administers the key through IAM); no role of the stack ' +
  'is allowed kms:CreateGrant, and a deny on grants could not be tested without deploying every service ' +
  'that encrypts with the key.';
