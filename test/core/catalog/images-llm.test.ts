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

describe('resolveServingImage: LLM serving containers', () => {
  it('serves DJL LMI on ml.g5.xlarge in us-east-1 from the newest LMI GPU image of djl-lmi.json', () => {
    // Act
    const image = resolveServingImage({
      framework: 'djl-lmi',
      region: 'us-east-1',
      instanceType: 'ml.g5.xlarge',
    });

    // Assert
    expect(image).toEqual({
      imageUri: '763104351884.dkr.ecr.us-east-1.amazonaws.com/djl-inference:0.36.0-lmi27.0.0-cu130',
      source: 'table: djl-lmi 0.36.0 uncompiled on NVIDIA GPU (SageMaker Python SDK djl-lmi.json)',
    });
  });

  it('serves the newest image whose CUDA still builds for the V100 of ml.p3, not a CUDA 13 image', () => {
    // Act
    const lmi = resolveServingImage({
      framework: 'djl-lmi',
      region: 'us-east-1',
      instanceType: 'ml.p3.2xlarge',
    });
    const vllm = resolveServingImage({
      framework: 'vllm',
      region: 'us-east-1',
      instanceType: 'ml.p3.2xlarge',
    });

    // Assert
    expect([lmi.imageUri, vllm.imageUri]).toEqual([
      '763104351884.dkr.ecr.us-east-1.amazonaws.com/djl-inference:0.35.0-lmi17.0.0-cu128',
      '763104351884.dkr.ecr.us-east-1.amazonaws.com/huggingface-vllm:0.17.0-transformers4.57.5-gpu-py312-cu129-ubuntu22.04',
    ]);
  });

  it('fails when the pinned version is built on CUDA 13 and the instance’s GPU is older than compute capability 7.5', () => {
    // Act
    const error = failureOf({
      framework: 'djl-lmi',
      frameworkVersion: '0.36',
      region: 'us-east-1',
      instanceType: 'ml.p3.2xlarge',
    });

    // Assert
    expect(error.message).toBe(
      "No serving image for djl-lmi 0.36 uncompiled on ml.p3.2xlarge in us-east-1: the table's djl-lmi images " +
        'uncompiled on NVIDIA GPU for this version are 0.36.0 (CUDA 13.0), and none runs on ml.p3.2xlarge, whose GPU ' +
        'has compute capability 7.0 (CUDA 13 builds for 7.5 and later only). Choose a newer GPU instance, or an ' +
        'older frameworkVersion built on CUDA 12. Set model.image to an ECR image URI to override the table.',
    );
  });

  it('keeps serving CUDA 13 images on the T4 of ml.g4dn (compute capability 7.5)', () => {
    // Act
    const image = resolveServingImage({
      framework: 'djl-lmi',
      region: 'us-east-1',
      instanceType: 'ml.g4dn.xlarge',
    });

    // Assert
    expect(image.imageUri).toBe(
      '763104351884.dkr.ecr.us-east-1.amazonaws.com/djl-inference:0.36.0-lmi27.0.0-cu130',
    );
  });

  it('serves DJL LMI on ml.inf2.xlarge from the Neuron build of djl-neuronx.json', () => {
    // Act
    const image = resolveServingImage({
      framework: 'djl-lmi',
      region: 'us-west-2',
      instanceType: 'ml.inf2.xlarge',
    });

    // Assert
    expect(image).toEqual({
      imageUri: '763104351884.dkr.ecr.us-west-2.amazonaws.com/djl-inference:0.29.0-neuronx-sdk2.19.1',
      source:
        'table: djl-lmi 0.29.0 uncompiled on Inferentia2/Trainium (ml_inf2) (SageMaker Python SDK djl-neuronx.json)',
    });
  });

  it('serves a pinned LMI version from its region’s account', () => {
    // Act
    const image = resolveServingImage({
      framework: 'djl-lmi',
      frameworkVersion: '0.33',
      region: 'ap-east-1',
      instanceType: 'ml.g4dn.xlarge',
    });

    // Assert
    expect(image.imageUri).toBe(
      '871362719292.dkr.ecr.ap-east-1.amazonaws.com/djl-inference:0.33.0-lmi15.0.0-cu128',
    );
  });

  it('refuses the LMI Neuron image in a region djl-neuronx.json does not list, naming the ones it does', () => {
    // Act
    const error = failureOf({ framework: 'djl-lmi', region: 'ap-east-1', instanceType: 'ml.inf2.xlarge' });

    // Assert
    expect(error.message).toBe(
      'No serving image for djl-lmi uncompiled on ml.inf2.xlarge in ap-east-1: the table lists djl-lmi 0.29.0/0.28.0 images ' +
        'uncompiled on Inferentia2/Trainium (ml_inf2) for regions ap-northeast-1, ap-south-1, ap-south-2, ap-southeast-1, ' +
        'ap-southeast-2, ap-southeast-4, ap-southeast-5, ap-southeast-7, ca-west-1, cn-north-1, cn-northwest-1, ' +
        'eu-central-1, eu-central-2, eu-north-1, eu-south-2, eu-west-1, eu-west-2, eu-west-3, il-central-1, mx-central-1, ' +
        'sa-east-1, us-east-1, us-east-2, us-gov-east-1, us-gov-west-1, us-west-2. ' +
        'Set model.image to an ECR image URI to override the table.',
    );
  });

  it('serves TGI on a GPU with the tag the SDK builds: base, TGI version, processor, Python, CUDA and OS', () => {
    // Act
    const image = resolveServingImage({
      framework: 'hf-tgi',
      region: 'eu-west-1',
      instanceType: 'ml.g5.2xlarge',
    });

    // Assert
    expect(image).toEqual({
      imageUri:
        '763104351884.dkr.ecr.eu-west-1.amazonaws.com/huggingface-pytorch-tgi-inference:2.7.0-tgi3.3.6-gpu-py311-cu124-ubuntu22.04',
      source: 'table: hf-tgi 3.3.6 uncompiled on NVIDIA GPU (SageMaker Python SDK huggingface-llm.json)',
    });
  });

  it('serves TGI on Inferentia2 from the optimum-neuron build, in a China region’s domain', () => {
    // Act
    const image = resolveServingImage({
      framework: 'hf-tgi',
      region: 'cn-north-1',
      instanceType: 'ml.inf2.8xlarge',
    });

    // Assert
    expect(image).toEqual({
      imageUri:
        '727897471807.dkr.ecr.cn-north-1.amazonaws.com.cn/huggingface-pytorch-tgi-inference:2.7.0-optimum3.3.6-neuronx-py310-ubuntu22.04',
      source:
        'table: hf-tgi 0.3.0 uncompiled on Inferentia2/Trainium (ml_inf2) (SageMaker Python SDK huggingface-llm-neuronx.json)',
    });
  });

  it('serves vLLM on a GPU from the Hugging Face vLLM DLC', () => {
    // Act
    const image = resolveServingImage({
      framework: 'vllm',
      region: 'us-east-2',
      instanceType: 'ml.g5.2xlarge',
    });

    // Assert
    expect(image).toEqual({
      imageUri:
        '763104351884.dkr.ecr.us-east-2.amazonaws.com/huggingface-vllm:0.21.0-transformers5.8.1-gpu-py312-cu130-ubuntu22.04',
      source: 'table: vllm 0.21.0 uncompiled on NVIDIA GPU (SageMaker Python SDK huggingface-vllm.json)',
    });
  });

  it('refuses vLLM on Inferentia2, where the table has no vLLM image', () => {
    // Act
    const error = failureOf({ framework: 'vllm', region: 'us-east-1', instanceType: 'ml.inf2.xlarge' });

    // Assert
    expect(error.message).toBe(
      'No serving image for vllm uncompiled on ml.inf2.xlarge in us-east-1: the table has no vllm image uncompiled on ' +
        'Inferentia2/Trainium (ml_inf2) (its vllm images: uncompiled on NVIDIA GPU). The table lists the Hugging Face vLLM DLC ' +
        'for NVIDIA GPUs only (its Neuron build, huggingface-vllm-neuronx.json, is not in the table): serve it on GPU instances, ' +
        'or use djl-lmi or hf-tgi on Inferentia2/Trainium. Set model.image to an ECR image URI to override the table.',
    );
  });

  it('refuses LMI on a CPU instance, saying which accelerators its images are built for', () => {
    // Act
    const error = failureOf({ framework: 'djl-lmi', region: 'us-east-1', instanceType: 'ml.c5.xlarge' });

    // Assert
    expect(error.message).toBe(
      'No serving image for djl-lmi uncompiled on ml.c5.xlarge in us-east-1: the table has no djl-lmi image uncompiled on ' +
        'x86 CPU (its djl-lmi images: uncompiled on NVIDIA GPU, uncompiled on Inferentia2/Trainium (ml_inf2)). djl-lmi images ' +
        'are built for NVIDIA GPUs and Inferentia2/Trainium: choose such an instance. Set model.image to an ECR image URI to override the table.',
    );
  });

  it('refuses a TGI version the GPU table does not have, listing the ones it has', () => {
    // Act
    const error = failureOf({
      framework: 'hf-tgi',
      frameworkVersion: '2.4',
      region: 'us-east-1',
      instanceType: 'ml.g5.xlarge',
    });

    // Assert
    expect(error.message).toBe(
      "No serving image for hf-tgi 2.4 uncompiled on ml.g5.xlarge in us-east-1: the table's hf-tgi images uncompiled on " +
        'NVIDIA GPU are versions 3.3.6, 3.2.3. Set model.image to an ECR image URI to override the table.',
    );
  });
});
