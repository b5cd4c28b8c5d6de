/**
 * The image name the run input schema reserves for the project's own model server (`imageUriSchema`
 * in core/contracts/run-input.ts): every local endpoint runs it, so the local input defaults name
 * it, and the local compiler and optimizer give it as the image that serves their artifacts, where
 * SageMaker would name a container.
 */
export const LOCAL_IMAGE = 'local';
