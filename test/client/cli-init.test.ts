import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { awsExamples } from '../../client/init-command.js';
import { type CliIo, runCli } from '../../client/cli-program.js';
import { runInputSchema } from '../../core/contracts/run-input.js';
import { asyncRunInputSchema } from '../../core/contracts/async-run-input.js';

const BUCKET = 'servingoptimizer-artifactsbucket-1a2b3c';
const OUTPUTS = {
  ServingOptimizer: {
    ArtifactsBucketName: BUCKET,
    RunApiUrl: 'https://abc123.execute-api.us-east-2.amazonaws.com/v1/',
    SageMakerExecutionRoleArn: 'arn:aws:iam::123456789012:role/x',
  },
};

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'runs-init-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The program in `dir`, reading real files, with no API client: init sends no request. */
async function run(...argv: string[]) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const written = new Map<string, string>();
  const io: CliIo = {
    stdout: (line) => stdout.push(line),
    stderr: (line) => stderr.push(line),
    env: {},
    createClient: () => {
      throw new Error('init makes no API client');
    },
    readFile: (path) => readFile(path, 'utf8'),
    writeFile: (folder, name, data) => {
      written.set(join(folder, name), Buffer.from(data).toString('utf8'));
      return Promise.resolve(join(folder, name));
    },
    fetch: () => Promise.reject(new Error('init fetches nothing')),
    cwd: dir,
  };
  const exitCode = await runCli(argv, io);
  return { exitCode, stdout, stderr, written };
}

describe('npm run runs -- init', () => {
  it('writes the default example with the bucket of cdk-outputs.json, checked for the API’s region', async () => {
    // Prepare
    await writeFile(join(dir, 'cdk-outputs.json'), JSON.stringify(OUTPUTS));

    // Act
    const { exitCode, stdout, stderr, written } = await run('init', '--out', 'inputs/nightly.json');

    // Assert
    const path = join(dir, 'inputs', 'nightly.json');
    expect([exitCode, stdout]).toEqual([0, [path]]);
    const text = written.get(path) ?? '';
    const input = JSON.parse(text) as { model: { artifactUri: string }; $schema: string };
    expect(text).not.toContain('your-artifacts-bucket');
    expect(input.model.artifactUri).toBe(`s3://${BUCKET}/models/resnet50/model.pt`);
    expect(runInputSchema.safeParse(input).success).toBe(true);
    expect(input.$schema).toMatch(/^(\.\.\/)+.*schemas\/run-input\.schema\.json$/);
    expect(stderr.join('\n').split('\n')).toEqual([
      `examples/cpu-sweep.json with bucket ${BUCKET} (from cdk-outputs.json (stack ServingOptimizer)): passes the run API's checks for us-east-2`,
      'Upload what these name before the run starts (its first state checks they exist):',
      `  s3://${BUCKET}/models/resnet50/model.pt`,
      `  s3://${BUCKET}/models/resnet50/payload.json`,
      `Then: npm run -s runs -- plan --input ${path}, or paste it in the Step Functions console`,
    ]);
  });

  it.each(awsExamples())(
    'prints examples/%s.json for --bucket, passing its workflow’s schema',
    async (example) => {
      // Act
      const { exitCode, stdout } = await run('init', '--example', example, '--bucket', BUCKET);

      // Assert
      expect(exitCode).toBe(0);
      const text = stdout.join('\n');
      expect(text).not.toContain('your-artifacts-bucket');
      const input: unknown = JSON.parse(text);
      const schema = example.startsWith('async-') ? asyncRunInputSchema : runInputSchema;
      expect(schema.safeParse(input).success).toBe(true);
    },
  );

  it('fails when neither --bucket nor cdk-outputs.json is there, naming both ways', async () => {
    // Act
    const { exitCode, stderr, written } = await run('init');

    // Assert
    expect(exitCode).toBe(2);
    expect(stderr[0]?.split('\n')[0]).toBe(
      'got no --bucket and no cdk-outputs.json, expected one of them: `npm run deploy` writes cdk-outputs.json ' +
        "with the stack's ArtifactsBucketName, or pass --bucket <name> (the ArtifactsBucketName output)",
    );
    expect(written.size).toBe(0);
  });

  it('fails when --bucket is not an S3 bucket name', async () => {
    // Act
    const { exitCode, stderr } = await run('init', '--bucket', 'My_Bucket');

    // Assert
    expect(exitCode).toBe(2);
    expect(stderr[0]?.split('\n')[0]).toBe(
      '--bucket: got "My_Bucket", expected an S3 bucket name: 3–63 of a-z 0-9 . -, starting and ending with a letter or digit, no "..", not an IP address',
    );
  });

  it('fails when the outputs file holds two stacks with a bucket, asking for --bucket', async () => {
    // Prepare
    const outputs = { A: { ArtifactsBucketName: 'bucket-a' }, B: { ArtifactsBucketName: 'bucket-b' } };
    await writeFile(join(dir, 'two.json'), JSON.stringify(outputs));

    // Act
    const { exitCode, stderr } = await run('init', '--outputs', 'two.json');

    // Assert
    expect(exitCode).toBe(2);
    expect(stderr[0]?.split('\n')[0]).toBe(
      'two.json: got 2 stacks with an ArtifactsBucketName output (A: bucket-a, B: bucket-b), expected one: pass --bucket <name> to choose',
    );
  });

  it('fails when the example does not fit the stack’s region, with the first state’s issue', async () => {
    // Act
    const { exitCode, stderr, written } = await run(
      'init',
      '--example',
      'gpu-vs-inferentia',
      '--bucket',
      BUCKET,
      '--region',
      'eu-west-1',
      '--out',
      'x.json',
    );

    // Assert
    expect(exitCode).toBe(2);
    expect(stderr[0]).toMatch(
      /^InvalidRunInputError: Invalid run input: compilation\.targets\[1\]: got "ml_inf2" in eu-west-1/,
    );
    expect(written.size).toBe(0);
  });

  it('fails when --out names a file that exists, leaving it as it was', async () => {
    // Prepare
    await writeFile(join(dir, 'mine.json'), '{"edited":true}');

    // Act
    const { exitCode, stderr, written } = await run('init', '--bucket', BUCKET, '--out', 'mine.json');

    // Assert
    expect(exitCode).toBe(2);
    expect(stderr[0]?.split('\n')[0]).toBe(
      '--out mine.json: the file exists, expected a new file (init never overwrites an input you may have edited)',
    );
    expect(written.size).toBe(0);
    expect(await readFile(join(dir, 'mine.json'), 'utf8')).toBe('{"edited":true}');
  });

  it('fails when --example names a local example, listing the AWS ones', async () => {
    // Act
    const { exitCode, stderr } = await run('init', '--example', 'local', '--bucket', BUCKET);

    // Assert
    expect(exitCode).toBe(2);
    expect(stderr[0]?.split('\n')[0]).toBe(
      `--example: got "local", expected one of ${awsExamples().join(', ')} (the examples for AWS)`,
    );
  });
});
