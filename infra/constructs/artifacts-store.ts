import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import {
  acknowledgeGuardRule,
  acknowledgeWildcardResource,
  KMS_CREATE_GRANT_RULE,
  KMS_CREATE_GRANT_REASON,
} from '../nag/index.js';

/**
 * Key layout of the artifacts bucket:
 *
 * - `models/…`            user inputs: the models to optimize, uploaded before a run.
 * - `inputs/…`            user inputs: the async workflow's payloads, uploaded before a run.
 * - `runs/<runId>/…`      everything a run produces: the packaged `model.tar.gz`, compiled
 *                         artifacts (SageMaker Neo output), load-test results and the reports
 *                         (`report.json`, `report.md`, `report.html`). The run id is the execution
 *                         name, so a retried step writes to the same keys.
 */
export { ArtifactPrefix } from '../../core/contracts/index.js';
import { ArtifactPrefix } from '../../core/contracts/index.js';

export interface ArtifactsStoreProps {
  /**
   * What happens to the buckets and the key when the stack is deleted. Reports are the users'
   * results, so they outlive the stack unless a test environment says otherwise.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * How long an overwritten or deleted object stays recoverable (versioning is on).
   * @default Duration.days(30)
   */
  readonly noncurrentVersionExpiration?: Duration;
  /** @default Duration.days(365) */
  readonly accessLogsExpiration?: Duration;
}

/**
 * The artifacts bucket, its KMS key and the bucket that receives its server access logs.
 *
 * Encryption: a customer managed KMS key with yearly rotation rather than SSE-S3, because models
 * are often proprietary: the key lets access be granted (and audited in CloudTrail) per role, and
 * reading an object needs both S3 and KMS permission. An S3 Bucket Key keeps KMS request costs low
 * (https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucket-key.html).
 */
export class ArtifactsStore extends Construct {
  readonly bucket: Bucket;
  readonly encryptionKey: Key;
  readonly accessLogsBucket: Bucket;

  constructor(scope: Construct, id: string, props: ArtifactsStoreProps = {}) {
    super(scope, id);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;

    // Server access logs can only be delivered to a bucket encrypted with SSE-S3, not SSE-KMS
    // (https://docs.aws.amazon.com/AmazonS3/latest/userguide/enable-server-access-logging.html).
    // cdk-nag's S1 exempts a bucket that receives other buckets' access logs.
    this.accessLogsBucket = new Bucket(this, 'AccessLogsBucket', {
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [
        { id: 'expire-access-logs', expiration: props.accessLogsExpiration ?? Duration.days(365) },
      ],
      removalPolicy,
    });
    this.acknowledgeAccessLogsBucket();
    // Retained data must stay readable: the key follows the bucket's removal policy.
    this.encryptionKey = new Key(this, 'Key', {
      description: 'Encrypts the model-serving-optimizer artifacts bucket (models, run outputs, reports)',
      enableKeyRotation: true,
      removalPolicy,
    });
    acknowledgeGuardRule(this.encryptionKey, KMS_CREATE_GRANT_RULE, KMS_CREATE_GRANT_REASON);

    this.bucket = new Bucket(this, 'Bucket', {
      encryption: BucketEncryption.KMS,
      encryptionKey: this.encryptionKey,
      bucketKeyEnabled: true,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      versioned: true,
      serverAccessLogsBucket: this.accessLogsBucket,
      serverAccessLogsPrefix: 'artifacts/',
      lifecycleRules: [
        {
          id: 'expire-noncurrent-versions',
          noncurrentVersionExpiration: props.noncurrentVersionExpiration ?? Duration.days(30),
          // Delete markers left once every version of a key has expired.
          expiredObjectDeleteMarker: true,
        },
        {
          // Uploads of large compiled models that failed midway would otherwise be billed forever.
          id: 'abort-incomplete-uploads',
          abortIncompleteMultipartUploadAfter: Duration.days(7),
        },
      ],
      removalPolicy,
    });
  }

  /** The Guard findings of the log bucket, each a consequence of what S3 log delivery requires. */
  private acknowledgeAccessLogsBucket(): void {
    acknowledgeGuardRule(
      this.accessLogsBucket,
      's3_bucket_default_encryption_kms_check',
      'S3 delivers server access logs only to a bucket encrypted with SSE-S3, not SSE-KMS (S3 user guide, ' +
        '"Enabling Amazon S3 server access logging").',
    );
    acknowledgeGuardRule(
      this.accessLogsBucket,
      's3_bucket_logging_enabled_check',
      'This is the access-log bucket: logging its own accesses to itself would log each delivery again.',
    );
    acknowledgeGuardRule(
      this.accessLogsBucket,
      's3_bucket_versioning_enabled_check',
      'Log objects are written once by S3 log delivery and expire after a year; versions would only keep ' +
        'expired logs longer.',
    );
  }

  /**
   * Lets `grantee` read objects under the given prefixes and list only those prefixes (listing
   * turns a missing key into NoSuchKey instead of AccessDenied, which makes errors readable).
   */
  grantRead(grantee: IGrantable, ...prefixes: readonly ArtifactPrefix[]): void {
    const scoped = requirePrefixes(prefixes, 'grantRead');
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['s3:GetObject'],
        resources: scoped.map((prefix) => this.bucket.arnForObjects(`${prefix}*`)),
      }),
    );
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['s3:ListBucket'],
        resources: [this.bucket.bucketArn],
        conditions: { StringLike: { 's3:prefix': scoped.map((prefix) => `${prefix}*`) } },
      }),
    );
    this.grantKeyUse(grantee, ['kms:Decrypt']);
    this.acknowledgePrefixWildcards(grantee, scoped, 'read');
  }

  /**
   * Lets `grantee` write objects under the given prefixes. Multipart uploads to an SSE-KMS bucket
   * need kms:Decrypt as well as kms:GenerateDataKey
   * (https://docs.aws.amazon.com/AmazonS3/latest/userguide/mpuoverview.html#mpuAndPermissions).
   */
  grantWrite(grantee: IGrantable, ...prefixes: readonly ArtifactPrefix[]): void {
    const scoped = requirePrefixes(prefixes, 'grantWrite');
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['s3:PutObject', 's3:AbortMultipartUpload'],
        resources: scoped.map((prefix) => this.bucket.arnForObjects(`${prefix}*`)),
      }),
    );
    this.grantKeyUse(grantee, ['kms:GenerateDataKey', 'kms:Decrypt']);
    this.acknowledgePrefixWildcards(grantee, scoped, 'write');
  }

  /** Only through S3: the key cannot be used directly with these grants. */
  private grantKeyUse(grantee: IGrantable, actions: readonly string[]): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: [...actions],
        resources: [this.encryptionKey.keyArn],
        conditions: { StringEquals: { 'kms:ViaService': `s3.${Stack.of(this).region}.amazonaws.com` } },
      }),
    );
  }

  private acknowledgePrefixWildcards(
    grantee: IGrantable,
    prefixes: readonly ArtifactPrefix[],
    access: 'read' | 'write',
  ): void {
    const principal = grantee.grantPrincipal;
    // Only a principal that is a construct (a role) carries a policy that cdk-nag inspects.
    if (!Construct.isConstruct(principal)) return;
    for (const prefix of prefixes) {
      acknowledgeWildcardResource(
        principal,
        this.bucket.arnForObjects(`${prefix}*`),
        `Object keys under ${prefix} are only known at run time (run ids, uploaded model names); the ` +
          `${access} grant is scoped to that prefix of the artifacts bucket, not to the whole bucket.`,
      );
    }
  }
}

function requirePrefixes(prefixes: readonly ArtifactPrefix[], method: string): readonly ArtifactPrefix[] {
  if (prefixes.length === 0) {
    throw new Error(
      `ArtifactsStore.${method}: got no prefix, expected at least one of ${Object.values(ArtifactPrefix).join(', ')}`,
    );
  }
  return [...new Set(prefixes)];
}
