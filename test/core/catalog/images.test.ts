import { describe, expect, it } from '@jest/globals';
import { ErrorNames, NoServingImageError } from '../../../core/contracts/errors.js';
import { IMAGE_TABLE } from '../../../core/catalog/image-table.js';
import {
  resolveServingImage,
  servingPlatformOf,
  type ServingImageRequest,
} from '../../../core/catalog/images.js';

/** Runs the resolver and returns what it threw (the test fails if it did not throw). */
function failureOf(request: ServingImageRequest): NoServingImageError {
  try {
    resolveServingImage(request);
  } catch (error) {
    if (error instanceof NoServingImageError) return error;
    throw error;
  }
  throw new Error(`expected a NoServingImageError for ${JSON.stringify(request)}`);
}

describe('resolveServingImage: uncompiled models', () => {
  it('serves PyTorch 2.1 on ml.c5.xlarge in us-east-1 from the CPU Deep Learning Container', () => {
    // Act
    const image = resolveServingImage({
      framework: 'pytorch',
      frameworkVersion: '2.1',
      region: 'us-east-1',
      instanceType: 'ml.c5.xlarge',
    });

    // Assert
    expect(image.imageUri).toBe(
      '763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-inference:2.1.0-cpu-py310',
    );
    expect(image.source).toContain('pytorch 2.1.0 uncompiled on x86 CPU');
    expect(image.source).toContain('pytorch.json');
  });

  it('serves PyTorch 2.1 on ml.g4dn.xlarge from the GPU build', () => {
    // Act
    const image = resolveServingImage({
      framework: 'pytorch',
      frameworkVersion: '2.1',
      region: 'us-east-1',
      instanceType: 'ml.g4dn.xlarge',
    });

    // Assert
    expect(image.imageUri).toBe(
      '763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-inference:2.1.0-gpu-py310',
    );
  });

  it('serves PyTorch on Graviton (ml.c6g) from the graviton repository with its container tag', () => {
    // Act
    const image = resolveServingImage({
      framework: 'pytorch',
      frameworkVersion: '2.1',
      region: 'eu-west-1',
      instanceType: 'ml.c6g.xlarge',
    });

    // Assert
    expect(image.imageUri).toBe(
      '763104351884.dkr.ecr.eu-west-1.amazonaws.com/pytorch-inference-graviton:2.1.0-cpu-py310-ubuntu20.04-sagemaker',
    );
  });

  it('picks the newest table version when no framework version is given', () => {
    // Act
    const image = resolveServingImage({
      framework: 'pytorch',
      region: 'us-west-2',
      instanceType: 'ml.m5.large',
    });

    // Assert
    expect(image.imageUri).toBe(
      '763104351884.dkr.ecr.us-west-2.amazonaws.com/pytorch-inference:2.6.0-cpu-py312',
    );
  });

  it('picks the newest patch of the asked line (2.0 → 2.0.1, not 2.0.0)', () => {
    // Act
    const image = resolveServingImage({
      framework: 'pytorch',
      frameworkVersion: '2.0',
      region: 'us-east-1',
      instanceType: 'ml.c5.large',
    });

    // Assert
    expect(image.imageUri).toBe(
      '763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-inference:2.0.1-cpu-py310',
    );
  });

  it('serves TensorFlow from TF Serving images, whose tags carry no Python version', () => {
    // Act
    const image = resolveServingImage({
      framework: 'tensorflow',
      frameworkVersion: '2.16',
      region: 'us-west-2',
      instanceType: 'ml.m5.large',
    });

    // Assert
    expect(image.imageUri).toBe(
      '763104351884.dkr.ecr.us-west-2.amazonaws.com/tensorflow-inference:2.16.1-cpu',
    );
  });

  it('serves XGBoost 1.7 from the SageMaker XGBoost image and its own registry', () => {
    // Act
    const image = resolveServingImage({
      framework: 'xgboost',
      frameworkVersion: '1.7',
      region: 'us-east-1',
      instanceType: 'ml.m5.xlarge',
    });

    // Assert
    expect(image.imageUri).toBe('683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.7-1');
  });

  it('uses the amazonaws.com.cn domain in China regions', () => {
    // Act
    const image = resolveServingImage({
      framework: 'mxnet',
      frameworkVersion: '1.9',
      region: 'cn-north-1',
      instanceType: 'ml.c5.xlarge',
    });

    // Assert
    expect(image.imageUri).toBe(
      '727897471807.dkr.ecr.cn-north-1.amazonaws.com.cn/mxnet-inference:1.9.0-cpu-py38',
    );
  });

  it('uses the GovCloud registry account in us-gov-west-1', () => {
    // Act
    const image = resolveServingImage({
      framework: 'pytorch',
      frameworkVersion: '2.1',
      region: 'us-gov-west-1',
      instanceType: 'ml.c5.xlarge',
    });

    // Assert
    expect(image.imageUri).toBe(
      '442386744353.dkr.ecr.us-gov-west-1.amazonaws.com/pytorch-inference:2.1.0-cpu-py310',
    );
  });
});

describe('resolveServingImage: compiled models', () => {
  it('serves PyTorch 2.0 compiled for ml_c5 in eu-west-1 from the Neo image', () => {
    // Act
    const image = resolveServingImage({
      framework: 'pytorch',
      frameworkVersion: '2.0',
      region: 'eu-west-1',
      instanceType: 'ml.c5.xlarge',
      compiledFor: 'ml_c5',
    });

    // Assert
    expect(image.imageUri).toBe(
      '802834080501.dkr.ecr.eu-west-1.amazonaws.com/sagemaker-inference-pytorch:2.0-cpu-py3',
    );
    expect(image.source).toContain('compiled for x86 CPU');
  });

  it('serves a patch version from the Neo image of its line (2.0.1 → 2.0)', () => {
    // Act
    const image = resolveServingImage({
      framework: 'pytorch',
      frameworkVersion: '2.0.1',
      region: 'us-east-1',
      instanceType: 'ml.g4dn.xlarge',
      compiledFor: 'ml_g4dn',
    });

    // Assert
    expect(image.imageUri).toBe(
      '785573368785.dkr.ecr.us-east-1.amazonaws.com/sagemaker-inference-pytorch:2.0-gpu-py3',
    );
  });

  it('serves TensorFlow 2.9 compiled for ml_g4dn from the Neo TensorFlow 2.9.2 GPU image', () => {
    // Act
    const image = resolveServingImage({
      framework: 'tensorflow',
      frameworkVersion: '2.9',
      region: 'us-west-2',
      instanceType: 'ml.g4dn.xlarge',
      compiledFor: 'ml_g4dn',
    });

    // Assert
    expect(image.imageUri).toBe(
      '301217895009.dkr.ecr.us-west-2.amazonaws.com/sagemaker-inference-tensorflow:2.9.2-gpu-py3',
    );
  });

  it('serves a TensorFlow 2.4 model from the Neo 2.9.2 image (the SDK aliases 2.4 to it)', () => {
    // Act
    const image = resolveServingImage({
      framework: 'tensorflow',
      frameworkVersion: '2.4.1',
      region: 'us-west-2',
      instanceType: 'ml.c5.xlarge',
      compiledFor: 'ml_c5',
    });

    // Assert
    expect(image.imageUri).toBe(
      '301217895009.dkr.ecr.us-west-2.amazonaws.com/sagemaker-inference-tensorflow:2.9.2-cpu-py3',
    );
  });

  it('serves a Neo-compiled ONNX model from sagemaker-neo-onnx', () => {
    // Act
    const image = resolveServingImage({
      framework: 'onnx',
      region: 'us-east-1',
      instanceType: 'ml.c5.xlarge',
      compiledFor: 'ml_c5',
    });

    // Assert
    expect(image.imageUri).toBe(
      '785573368785.dkr.ecr.us-east-1.amazonaws.com/sagemaker-neo-onnx:1.5.0-cpu-py3',
    );
  });

  it('serves PyTorch compiled for ml_inf1 from the Neo Inferentia image', () => {
    // Act
    const image = resolveServingImage({
      framework: 'pytorch',
      frameworkVersion: '1.5',
      region: 'us-west-2',
      instanceType: 'ml.inf1.xlarge',
      compiledFor: 'ml_inf1',
    });

    // Assert
    expect(image.imageUri).toBe(
      '301217895009.dkr.ecr.us-west-2.amazonaws.com/sagemaker-neo-pytorch:1.5.1-inf-py3',
    );
  });

  it('serves PyTorch compiled for ml_inf2 from the newest Neuron DLC', () => {
    // Act
    const image = resolveServingImage({
      framework: 'pytorch',
      region: 'us-east-1',
      instanceType: 'ml.inf2.xlarge',
      compiledFor: 'ml_inf2',
    });

    // Assert
    expect(image.imageUri).toBe(
      '763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-inference-neuronx:2.8.0-neuronx-py311-sdk2.26.1-ubuntu22.04',
    );
  });

  it('uses the Neo registry of the China partition with its domain', () => {
    // Act
    const image = resolveServingImage({
      framework: 'xgboost',
      region: 'cn-northwest-1',
      instanceType: 'ml.m5.large',
      compiledFor: 'ml_m5',
    });

    // Assert
    expect(image.imageUri).toBe('474822919863.dkr.ecr.cn-northwest-1.amazonaws.com.cn/xgboost-neo:latest');
  });
});

describe('resolveServingImage: explicit image', () => {
  it('returns model.image as given, even where the table has nothing', () => {
    // Prepare
    const explicitImage = '123456789012.dkr.ecr.us-east-1.amazonaws.com/model-server:1.0.0';

    // Act
    const image = resolveServingImage({
      framework: 'onnx',
      region: 'us-east-1',
      instanceType: 'ml.c5.xlarge',
      explicitImage,
    });

    // Assert
    expect(image).toEqual({ imageUri: explicitImage, source: 'model.image' });
  });

  it('prefers model.image over a table row that would fit', () => {
    // Prepare
    const explicitImage = '123456789012.dkr.ecr.eu-west-1.amazonaws.com/my-pytorch:custom';

    // Act
    const image = resolveServingImage({
      framework: 'pytorch',
      frameworkVersion: '2.1',
      region: 'eu-west-1',
      instanceType: 'ml.c5.xlarge',
      explicitImage,
    });

    // Assert
    expect(image.imageUri).toBe(explicitImage);
  });
});

describe('resolveServingImage: compiled artifacts and explicit images', () => {
  const NEO_IMAGE = '301217895009.dkr.ecr.us-west-2.amazonaws.com/sagemaker-inference-pytorch:1.6-inf-py3';

  it('serves a compiled artifact on the image its compilation job named, not on model.image', () => {
    // Act
    const image = resolveServingImage({
      framework: 'pytorch',
      frameworkVersion: '1.6',
      region: 'us-west-2',
      instanceType: 'ml.inf1.xlarge',
      compiledFor: 'ml_inf1',
      explicitImage: '123456789012.dkr.ecr.us-west-2.amazonaws.com/my-pytorch:custom',
      compilationImage: NEO_IMAGE,
    });

    // Assert
    expect(image).toEqual({ imageUri: NEO_IMAGE, source: 'compilation job InferenceImage' });
  });

  it('serves a compiled artifact on model.compiledImage before the image the job named', () => {
    // Prepare
    const explicitCompiledImage = '123456789012.dkr.ecr.us-west-2.amazonaws.com/my-neo-runtime:2';

    // Act
    const image = resolveServingImage({
      framework: 'pytorch',
      region: 'us-west-2',
      instanceType: 'ml.inf1.xlarge',
      compiledFor: 'ml_inf1',
      explicitCompiledImage,
      compilationImage: NEO_IMAGE,
    });

    // Assert
    expect(image).toEqual({ imageUri: explicitCompiledImage, source: 'model.compiledImage' });
  });

  it('serves an uncompiled artifact on model.image, never on model.compiledImage', () => {
    // Prepare
    const explicitImage = '123456789012.dkr.ecr.us-east-1.amazonaws.com/model-server:1.0.0';

    // Act
    const image = resolveServingImage({
      framework: 'onnx',
      region: 'us-east-1',
      instanceType: 'ml.c5.xlarge',
      explicitImage,
      explicitCompiledImage: '123456789012.dkr.ecr.us-east-1.amazonaws.com/my-neo-runtime:2',
    });

    // Assert
    expect(image).toEqual({ imageUri: explicitImage, source: 'model.image' });
  });

  it('refuses a compiled artifact without a job image or a table row, pointing at model.compiledImage', () => {
    // Act
    const error = failureOf({
      framework: 'keras',
      region: 'us-east-1',
      instanceType: 'ml.c6g.xlarge',
      compiledFor: 'ml_c6g',
      explicitImage: '123456789012.dkr.ecr.us-east-1.amazonaws.com/my-keras:1',
    });

    // Assert
    expect(error.name).toBe(ErrorNames.noServingImage);
    expect(error.message).toMatch(
      /The compilation job named no InferenceImage: set model\.compiledImage to the ECR URI of an image that runs Neo artifacts \(model\.image serves uncompiled candidates only\)\.$/,
    );
  });
});

describe('resolveServingImage: failures', () => {
  it('fails when the region is not in the table, naming the region and the regions it has', () => {
    // Act
    const error = failureOf({
      framework: 'pytorch',
      frameworkVersion: '2.1',
      region: 'mars-east-1',
      instanceType: 'ml.c5.xlarge',
    });

    // Assert
    expect(error.name).toBe(ErrorNames.noServingImage);
    expect(error.message).toContain('pytorch 2.1 uncompiled on ml.c5.xlarge in mars-east-1');
    expect(error.message).toContain('us-east-1');
    expect(error.message).toContain('model.image');
    expect(error.details).toMatchObject({ region: 'mars-east-1' });
    expect(error.details['tableRegions']).toContain('eu-west-1');
  });

  it('fails when the Neuron images are not listed in the region', () => {
    // Act
    const error = failureOf({
      framework: 'pytorch',
      region: 'sa-east-1',
      instanceType: 'ml.inf2.xlarge',
      compiledFor: 'ml_inf2',
    });

    // Assert
    expect(error.message).toContain('in sa-east-1');
    expect(error.details['tableRegions']).toEqual([
      'ap-northeast-1',
      'eu-west-1',
      'us-east-1',
      'us-east-2',
      'us-west-2',
    ]);
  });

  it('fails when the version is not in the table, naming the versions it has', () => {
    // Act
    const error = failureOf({
      framework: 'pytorch',
      frameworkVersion: '1.9',
      region: 'us-east-1',
      instanceType: 'ml.c5.xlarge',
    });

    // Assert
    expect(error.name).toBe('NoServingImageError');
    expect(error.message).toContain('pytorch 1.9 uncompiled');
    expect(error.message).toContain('2.6.0, 2.5.1');
    expect(error.message).toContain('model.image');
  });

  it('fails when the version is newer than the Neo images serve (PyTorch 2.1 compiled for ml_c5)', () => {
    // Act
    const error = failureOf({
      framework: 'pytorch',
      frameworkVersion: '2.1',
      region: 'eu-west-1',
      instanceType: 'ml.c5.xlarge',
      compiledFor: 'ml_c5',
    });

    // Assert
    expect(error.message).toContain('pytorch 2.1 compiled for ml_c5');
    expect(error.details['tableVersions']).toEqual(['2.0', '1.13', '1.12']);
  });

  it('fails when the model version is above what a Neo image accepts (XGBoost 1.7 > 1.3.3)', () => {
    // Act
    const error = failureOf({
      framework: 'xgboost',
      frameworkVersion: '1.7',
      region: 'us-east-1',
      instanceType: 'ml.m5.large',
      compiledFor: 'ml_m5',
    });

    // Assert
    expect(error.message).toContain('serves models up to 1.3.3');
  });

  it('fails when an uncompiled ONNX model has no model.image, pointing at the project model server', () => {
    // Act
    const error = failureOf({ framework: 'onnx', region: 'us-east-1', instanceType: 'ml.c5.xlarge' });

    // Assert
    expect(error.name).toBe(ErrorNames.noServingImage);
    expect(error.message).toContain('onnx uncompiled on ml.c5.xlarge in us-east-1');
    expect(error.message).toContain('local/model-server/Dockerfile');
    expect(error.message).toContain('compiled for x86 CPU');
    expect(error.message).toContain('model.image');
  });

  it('fails when a TFLite model has no model.image', () => {
    // Act
    const error = failureOf({ framework: 'tflite', region: 'us-east-1', instanceType: 'ml.c5.xlarge' });

    // Assert
    expect(error.message).toContain('no TFLite serving container');
  });

  it('fails when an uncompiled model targets Inferentia2', () => {
    // Act
    const error = failureOf({
      framework: 'pytorch',
      frameworkVersion: '2.1',
      region: 'us-east-1',
      instanceType: 'ml.inf2.xlarge',
    });

    // Assert
    expect(error.message).toContain('set the candidate compiledFor');
  });

  it('fails when a model is compiled for a Graviton target', () => {
    // Act
    const error = failureOf({
      framework: 'pytorch',
      frameworkVersion: '2.0',
      region: 'us-east-1',
      instanceType: 'ml.c6g.xlarge',
      compiledFor: 'ml_c6g',
    });

    // Assert
    expect(error.message).toContain('compiled for ml_c6g');
    expect(error.message).toContain('none is listed for Graviton');
  });
});

describe('servingPlatformOf', () => {
  it.each([
    ['ml.c5.xlarge', 'cpu'],
    ['ml.t2.medium', 'cpu'],
    ['ml.c5n.xlarge', 'cpu'],
    ['ml.g4dn.xlarge', 'gpu'],
    ['ml.p3.2xlarge', 'gpu'],
    ['ml_g5', 'gpu'],
    ['ml.c6g.large', 'graviton'],
    ['ml.m7gd.xlarge', 'graviton'],
    ['ml_m6g', 'graviton'],
    ['ml.inf1.xlarge', 'inf1'],
    ['ml_inf2', 'neuronx'],
    ['ml.trn1.2xlarge', 'neuronx'],
  ])('reads %s as %s', (instanceTypeOrTarget, platform) => {
    // Act / Assert
    expect(servingPlatformOf(instanceTypeOrTarget)).toBe(platform);
  });
});

describe('the image table', () => {
  it('holds only 12-digit accounts, and repositories and tags that ECR accepts', () => {
    // Act
    const malformed = IMAGE_TABLE.filter(
      (row) =>
        !Object.values(row.registry.accounts).every((account) => /^\d{12}$/.test(account)) ||
        !/^[a-z0-9]+([._/-][a-z0-9]+)*$/.test(row.repository) ||
        !/^[\w][\w.-]{0,127}$/.test(row.tag),
    );

    // Assert
    expect(malformed).toEqual([]);
  });

  it('has no two rows for the same framework, context and version (and Hugging Face base framework)', () => {
    // Act
    const keys = IMAGE_TABLE.map(
      (row) =>
        `${row.framework}|${String(row.compiled)}|${row.platform}|${row.version}|` +
        `${row.baseFramework?.name ?? ''}${row.baseFramework?.version ?? ''}`,
    );

    // Assert
    expect(new Set(keys).size).toBe(keys.length);
  });
});
