import { describe, expect, it } from '@jest/globals';
import { bindingsFromEnvironment } from './deployed-policies.js';
import { TemplateResolver } from './template-resolver.js';

const TEMPLATE = {
  Resources: {
    Bucket1: { Type: 'AWS::S3::Bucket', Properties: {} },
    Table1: { Type: 'AWS::DynamoDB::Table', Properties: { TableName: 'tokens' } },
    Machine1: { Type: 'AWS::StepFunctions::StateMachine', Properties: { StateMachineName: 'Flow' } },
    Role1: { Type: 'AWS::IAM::Role', Properties: {} },
    Key1: { Type: 'AWS::KMS::Key', Properties: {} },
    Fn1: {
      Type: 'AWS::Lambda::Function',
      Properties: {
        Environment: {
          Variables: {
            BUCKET: { Ref: 'Bucket1' },
            ROLE_ARN: { 'Fn::GetAtt': ['Role1', 'Arn'] },
            STEP_NAME: 'step',
          },
        },
      },
    },
  },
};

function resolver(): TemplateResolver {
  return new TemplateResolver({
    template: TEMPLATE,
    env: { partition: 'aws', region: 'us-east-1', account: '123456789012' },
    synthesizedFor: { account: '000000000000', region: 'local-1' },
    bindings: bindingsFromEnvironment(TEMPLATE, {
      BUCKET: 'my-bucket',
      ROLE_ARN: 'arn:aws:iam::123456789012:role/r',
    }),
  });
}

describe('TemplateResolver', () => {
  it('resolves Fn::Join over pseudo parameters and a bound bucket’s Arn', () => {
    // Act
    const resolved = resolver().resolve({
      'Fn::Join': ['', [{ 'Fn::GetAtt': ['Bucket1', 'Arn'] }, '/models/*']],
    });

    // Assert
    expect(resolved).toBe('arn:aws:s3:::my-bucket/models/*');
  });

  it('rewrites the synthesized account and Region literals to the fake account’s', () => {
    // Act
    const resolved = resolver().resolve({
      'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':sagemaker:local-1:000000000000:endpoint/mso-*']],
    });

    // Assert
    expect(resolved).toBe('arn:aws:sagemaker:us-east-1:123456789012:endpoint/mso-*');
  });

  it('selects the name out of a state machine’s ARN (Fn::Select of Fn::Split), as execution grants do', () => {
    // Act
    const resolved = resolver().resolve({
      'Fn::Join': [
        '',
        [
          'arn:aws:states:local-1:000000000000:execution:',
          { 'Fn::Select': [6, { 'Fn::Split': [':', { Ref: 'Machine1' }] }] },
          ':*',
        ],
      ],
    });

    // Assert
    expect(resolved).toBe('arn:aws:states:us-east-1:123456789012:execution:Flow:*');
  });

  it('substitutes Fn::Sub variables, references and attributes', () => {
    // Act
    const resolved = resolver().resolve({
      'Fn::Sub': ['${Table1.Arn}/index/${Name}:${AWS::Region}', { Name: 'byId' }],
    });

    // Assert
    expect(resolved).toBe('arn:aws:dynamodb:us-east-1:123456789012:table/tokens/index/byId:us-east-1');
  });

  it('names a bound role by its ARN, an unbound key by its logical id', () => {
    // Act
    const role = resolver().resolve({ Ref: 'Role1' });
    const key = resolver().resolve({ 'Fn::GetAtt': ['Key1', 'Arn'] });

    // Assert
    expect({ role, key }).toEqual({ role: 'r', key: 'arn:aws:kms:us-east-1:123456789012:key/Key1' });
  });

  it('fails when an intrinsic is unknown, naming it', () => {
    // Act
    const resolve = (): unknown => resolver().resolve({ 'Fn::ImportValue': 'x' });

    // Assert
    expect(resolve).toThrow('The intrinsic Fn::ImportValue is not known to the resolver; add it');
  });

  it('fails when a logical id is not in the template, naming it', () => {
    // Act
    const resolve = (): unknown => resolver().resolve({ Ref: 'Missing1' });

    // Assert
    expect(resolve).toThrow('The template has no resource Missing1');
  });
});

describe('bindingsFromEnvironment', () => {
  it('fails when one variable references two resources, naming both', () => {
    // Prepare
    const template = {
      Resources: {
        ...TEMPLATE.Resources,
        Fn2: {
          Type: 'AWS::Lambda::Function',
          Properties: { Environment: { Variables: { BUCKET: { Ref: 'Table1' } } } },
        },
      },
    };

    // Act
    const bind = (): unknown => bindingsFromEnvironment(template, { BUCKET: 'my-bucket' });

    // Assert
    expect(bind).toThrow(
      'BUCKET references Bucket1 in one Lambda and Table1 in another; expected one resource',
    );
  });
});
