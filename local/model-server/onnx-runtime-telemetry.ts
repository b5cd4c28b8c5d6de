/**
 * ONNX Runtime's telemetry, off unless the user turned it on.
 *
 * Since 1.29 the official Linux builds of ONNX Runtime (onnxruntime-node's included) carry
 * Microsoft's 1DS telemetry, on by default (microsoft/onnxruntime#27379, "Add POSIX telemetry").
 * Checked on this project's onnxruntime-node 1.30.0 under strace, with HOME pointed at an empty
 * folder: the first session a process creates writes a device id and an event database under
 * `~/.cache/Microsoft/DeveloperTools/.onnxruntime/`, leaves an empty `/tmp/mat-debug-<pid>.log`, and
 * within seconds resolves the collector's host (mobile.events.data.microsoft.com, in the library's
 * strings) to upload. A model server in a user's SageMaker endpoint, or the local runs on their
 * laptop, must not call out to a third party or write identifiers they did not ask for. With
 * `ORT_DISABLE_TELEMETRY=1` (the variable this build reads) the same run writes nothing and makes
 * no DNS query.
 *
 * The runtime reads the variable from the process environment when its first session starts. A
 * worker thread's `process.env` is its own copy, so the main thread sets it before it starts any
 * worker; and the container image sets it too (local/model-server/Dockerfile).
 */
export const ORT_TELEMETRY_VARIABLE = 'ORT_DISABLE_TELEMETRY';

/** Turns ONNX Runtime's telemetry off for this process, unless `ORT_DISABLE_TELEMETRY` is set already (the user's choice). */
export function disableOnnxRuntimeTelemetry(env: NodeJS.ProcessEnv = process.env): void {
  if (env[ORT_TELEMETRY_VARIABLE] === undefined) env[ORT_TELEMETRY_VARIABLE] = '1';
}
