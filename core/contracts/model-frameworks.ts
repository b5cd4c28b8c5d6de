/**
 * The frameworks a run's model may name (`model.framework`): the ones SageMaker Neo and the
 * framework serving images take, and the LLM serving containers (catalog/llm-containers.ts holds
 * what the planner checks about each), whose version is the container's.
 */
export const LLM_CONTAINERS = ['djl-lmi', 'hf-tgi', 'vllm'] as const;
export type LlmContainer = (typeof LLM_CONTAINERS)[number];

export function isLlmContainer(framework: string): framework is LlmContainer {
  return (LLM_CONTAINERS as readonly string[]).includes(framework);
}

export const FRAMEWORKS = [
  'onnx',
  'pytorch',
  'tensorflow',
  'tflite',
  'mxnet',
  'keras',
  'xgboost',
  'huggingface',
  // LLM serving containers (catalog/llm-containers.ts): the version is the container's.
  ...LLM_CONTAINERS,
] as const;

/**
 * The data type of a PyTorch model's inputs, which Neo cannot read from the model: float32 unless
 * told (`OutputConfig.CompilerOptions` `dtype`, "float32" or "int64", SageMaker API reference
 * https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_OutputConfig.html).
 */
export const INPUT_DATA_TYPES = ['float32', 'int64'] as const;
