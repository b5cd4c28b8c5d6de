import { describe, expect, it } from '@jest/globals';
import { NoServingImageError } from '../../../core/contracts/errors.js';
import { resolveServingImage, type ServingImageRequest } from '../../../core/catalog/images.js';

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

describe('resolveServingImage: Hugging Face', () => {
  it('serves transformers 4.49 over PyTorch 2.6 on ml.c5.xlarge in us-east-1 from the CPU Hugging Face DLC', () => {
    // Act
    const image = resolveServingImage({
      framework: 'huggingface',
      frameworkVersion: '4.49.0',
      baseFramework: { name: 'pytorch', version: '2.6.0' },
      region: 'us-east-1',
      instanceType: 'ml.c5.xlarge',
    });

    // Assert
    expect(image).toEqual({
      imageUri:
        '763104351884.dkr.ecr.us-east-1.amazonaws.com/huggingface-pytorch-inference:2.6.0-transformers4.49.0-cpu-py312-ubuntu22.04',
      source: 'table: huggingface 4.49.0 uncompiled on x86 CPU (SageMaker Python SDK huggingface.json)',
    });
  });

  it('serves the GPU build, with its CUDA in the tag, on ml.g4dn.xlarge in eu-central-2 from that region’s account', () => {
    // Act
    const image = resolveServingImage({
      framework: 'huggingface',
      frameworkVersion: '4.37',
      baseFramework: { name: 'pytorch', version: '2.1' },
      region: 'eu-central-2',
      instanceType: 'ml.g4dn.xlarge',
    });

    // Assert
    expect(image.imageUri).toBe(
      '380420809688.dkr.ecr.eu-central-2.amazonaws.com/huggingface-pytorch-inference:2.1.0-transformers4.37.0-gpu-py310-cu118-ubuntu20.04',
    );
  });

  it('serves the TensorFlow build when the model names tensorflowVersion', () => {
    // Act
    const image = resolveServingImage({
      framework: 'huggingface',
      frameworkVersion: '4.26.0',
      baseFramework: { name: 'tensorflow', version: '2.11.0' },
      region: 'cn-north-1',
      instanceType: 'ml.m5.large',
    });

    // Assert
    expect(image.imageUri).toBe(
      '727897471807.dkr.ecr.cn-north-1.amazonaws.com.cn/huggingface-tensorflow-inference:2.11.0-transformers4.26.0-cpu-py39-ubuntu20.04',
    );
  });

  it('fails when the transformers version has no build over the asked PyTorch, listing the table’s combinations', () => {
    // Act
    const error = failureOf({
      framework: 'huggingface',
      frameworkVersion: '4.49.0',
      baseFramework: { name: 'pytorch', version: '2.1.0' },
      region: 'us-east-1',
      instanceType: 'ml.c5.xlarge',
    });

    // Assert
    expect(error.message).toBe(
      'No serving image for huggingface 4.49.0 with pytorch 2.1.0 uncompiled on ml.c5.xlarge in us-east-1: ' +
        "the table's huggingface images uncompiled on x86 CPU are versions 5.5.3 with pytorch 2.6.0, " +
        '4.51.3 with pytorch 2.6.0, 4.49.0 with pytorch 2.6.0, 4.48.0 with pytorch 2.3.0, 4.37.0 with pytorch 2.1.0, ' +
        '4.28.1 with pytorch 2.0.0, 4.26.0 with pytorch 1.13.1, 4.26.0 with tensorflow 2.11.0. ' +
        'Set model.image to an ECR image URI to override the table.',
    );
  });

  it('refuses an Inferentia2 instance: the toolkit serves no Hub model on Neuron', () => {
    // Act
    const error = failureOf({
      framework: 'huggingface',
      frameworkVersion: '4.49.0',
      baseFramework: { name: 'pytorch', version: '2.6.0' },
      region: 'us-east-1',
      instanceType: 'ml.inf2.xlarge',
    });

    // Assert
    expect(error.message).toBe(
      'No serving image for huggingface 4.49.0 with pytorch 2.6.0 uncompiled on ml.inf2.xlarge in us-east-1: ' +
        'the table has no huggingface image uncompiled on Inferentia2/Trainium (ml_inf2) (its huggingface images: ' +
        'uncompiled on x86 CPU, uncompiled on NVIDIA GPU). The Hugging Face inference toolkit refuses Hub models on ' +
        'Neuron, and Neo cannot compile a model it has no data for: serve it on CPU or GPU instances. ' +
        'Set model.image to an ECR image URI to override the table.',
    );
  });
});
