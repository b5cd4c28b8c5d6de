/**
 * What each field of the two run inputs means, for people: the JSON Schemas under `schemas/`
 * (which editors use to complete and check an input) and the input reference in docs/ carry these
 * texts. Keyed by the field's path as the input errors name it, with `[]` for an array's items and
 * `*` for a map's values. A test fails when a field of either schema has no text here, or a text
 * names a field the schema does not have, so the two cannot drift apart.
 */

export const RUN_INPUT_DESCRIPTIONS: Readonly<Record<string, string>> = {
  $schema: 'The JSON Schema of this file, for editors; ignored by the run.',
  name: 'A label for the reports; the run id is the execution name.',
  model: 'The model to serve: a file or archive in the artifacts bucket, or a Hugging Face Hub model.',
  'model.artifactUri':
    'A raw model file or a model.tar.gz, s3://<artifacts bucket>/models/… (file:///… locally).',
  'model.framework':
    'onnx, pytorch, tensorflow, tflite, mxnet, keras, xgboost, huggingface, or an LLM container: djl-lmi, hf-tgi, vllm.',
  'model.frameworkVersion':
    "major.minor[.patch]; required to compile PyTorch or TensorFlow. Hugging Face: transformers'; LLM containers: the container's.",
  'model.hub': 'A Hugging Face Hub model instead of artifactUri (huggingface and LLM containers).',
  'model.hub.modelId': 'The Hub model id, e.g. distilbert-base-uncased-finetuned-sst-2-english.',
  'model.hub.task': 'The pipeline task (HF_TASK), e.g. text-classification.',
  'model.hub.revision': 'A branch, tag or commit of the Hub model (HF_MODEL_REVISION).',
  'model.pytorchVersion': 'huggingface only: the PyTorch version under transformers (or tensorflowVersion).',
  'model.tensorflowVersion':
    'huggingface only: the TensorFlow version under transformers (or pytorchVersion).',
  'model.image': 'The ECR image that serves uncompiled candidates; default: the maintained image table.',
  'model.compiledImage':
    "The ECR image that serves compiled candidates; default: Neo's InferenceImage, then the image table.",
  'model.inputShape': "Input name → shape, Neo's DataInputConfig; required to compile.",
  'model.inputDataType':
    'PyTorch only: float32 (default) or int64 (token ids), sent to Neo as CompilerOptions.',
  'model.environment': 'Container environment for every candidate; candidates add and override.',
  'model.inferenceCodeUri': 'Inference code packaged under code/ in the model archive.',
  'model.size':
    'What the model needs in memory: each candidate whose accelerator (or host) memory cannot hold it is refused.',
  'model.size.parameters': 'The parameter count, e.g. 70000000000 for a 70B model.',
  'model.size.dtype':
    'The data type the weights load in: fp32, fp16, bf16, int8, fp8 (or float32, float16, bfloat16).',
  'model.size.attention':
    "LLM containers: the attention shape, for the KV cache that the container's batch and token settings imply.",
  'model.size.attention.layers': 'Transformer layers (config.json num_hidden_layers).',
  'model.size.attention.kvHeads': 'Key/value heads (config.json num_key_value_heads).',
  'model.size.attention.headDim':
    'Dimension of a head (config.json head_dim, or hidden_size ÷ num_attention_heads).',
  payload: 'The request body every invocation sends (or payloads, a weighted mix; or prompts).',
  'payload.uri':
    's3://<artifacts bucket>/models/… of the body (at most 6 MB; 4 MB with serverless candidates).',
  'payload.contentType': 'The ContentType sent with it. Default application/json.',
  'payload.accept': 'The Accept sent with it.',
  payloads: 'A mix of up to 50 bodies, each request drawing one by weight.',
  'payloads[].uri': 's3://<artifacts bucket>/models/… of this body.',
  'payloads[].contentType': 'The ContentType sent with this body.',
  'payloads[].accept': 'The Accept sent with this body.',
  'payloads[].weight': 'Its share of the requests, relative to the others. Default 1.',
  prompts: "Prompts from a JSON Lines file, each request's body built by the container's template.",
  'prompts.uri': 's3://<artifacts bucket>/models/…/prompts.jsonl: one {"prompt"} or {"messages"} a line.',
  'prompts.format': "The request template: tgi, lmi or openai; default: the stream format's.",
  'prompts.generation': 'Generation settings sent with every prompt.',
  'prompts.generation.maxNewTokens': 'Tokens to generate at most.',
  'prompts.generation.temperature': 'Sampling temperature; default 0 (greedy) in every format.',
  'prompts.generation.topP': 'Nucleus sampling; with a temperature above 0.',
  'prompts.generation.topK': 'Top-k sampling (not with openai); with a temperature above 0.',
  'prompts.generation.seed': 'Sampling seed, for repeatable answers.',
  'prompts.generation.stop': 'Stop sequences.',
  'prompts.buckets': 'Prompt length buckets by characters: figures are reported per bucket.',
  'prompts.buckets[].name': "The bucket's name in the report.",
  'prompts.buckets[].maxChars': 'The longest prompt of this bucket, in characters; the last may have none.',
  compilation: 'Neo/Neuron compilation targets and SageMaker optimization jobs.',
  'compilation.targets':
    'Neo/Neuron targets: ml_c5, ml_m5, ml_c6g, ml_m6g, ml_g4dn, ml_p3, ml_inf1, ml_inf2 (ml.g5 and ml.t2 have none).',
  'compilation.compilerOptions':
    "Target → its CompilerOptions: the Neuron compiler's precision flags for ml_inf1 (--fast-math …) or ml_inf2 (--auto-cast …, --auto-cast-type …).",
  'compilation.quantization':
    'Local mode only: target → int8 quantization { type: "int8", calibrationRange: [min, max] }, calibrated on inputs drawn from that range.',
  'compilation.quantization.*.type': 'int8: weights int8 per output channel, activations uint8.',
  'compilation.quantization.*.calibrationRange':
    "[min, max]: the range the served inputs lie in; activations' scales are calibrated on inputs drawn from it.",
  'compilation.quantization.*.calibrationSamples':
    'Calibration inputs drawn from the range (seeded). Default 16.',
  'compilation.maxRuntimeSeconds':
    "Each compilation or optimization job's time limit, at most half the run's timeout. Default 900.",
  'compilation.optimizations':
    'SageMaker optimization jobs of a generative model (Neuron compilation, quantization, sharding).',
  'compilation.optimizations[].id': 'A kebab-case id that candidates name in optimizedBy.',
  'compilation.optimizations[].deploymentInstanceType': 'The instance type the optimized model is built for.',
  'compilation.optimizations[].techniques': 'At least one of compilation, quantization, sharding.',
  'compilation.optimizations[].techniques.compilation':
    'ModelCompilationConfig: the Neuron or TensorRT compilation.',
  'compilation.optimizations[].techniques.compilation.image': "The job's image; default: SageMaker's.",
  'compilation.optimizations[].techniques.compilation.overrideEnvironment':
    'Environment of the job, e.g. OPTION_TENSOR_PARALLEL_DEGREE; the served model gets it too.',
  'compilation.optimizations[].techniques.quantization': 'ModelQuantizationConfig.',
  'compilation.optimizations[].techniques.quantization.image': "The job's image; default: SageMaker's.",
  'compilation.optimizations[].techniques.quantization.overrideEnvironment':
    'Environment of the job, e.g. OPTION_QUANTIZE: awq; the served model gets it too.',
  'compilation.optimizations[].techniques.sharding': 'ModelShardingConfig.',
  'compilation.optimizations[].techniques.sharding.image': "The job's image; default: SageMaker's.",
  'compilation.optimizations[].techniques.sharding.overrideEnvironment':
    'Environment of the job; the served model gets it too.',
  'compilation.optimizations[].environment': "The job's model environment.",
  'compilation.optimizations[].acceptEula':
    "Accepts the model's end-user licence, as the job requires for some models.",
  candidates:
    'The configurations to measure: real-time instances or serverless, compiled or not, with settings; ' +
    'or a shortlist for the planner to pick instance types.',
  'candidates.shortlist':
    'The planner picks the cheapest instance types that hold the model (model.size), have a price and serve it, ' +
    'one per kind, then per family.',
  'candidates.shortlist.max': 'How many instance types to pick, 1 to 10. Default 6.',
  'candidates.shortlist.kinds':
    'The hardware to pick from: cpu (Intel, AMD, Graviton), gpu (NVIDIA), inferentia (a model compiled for it).',
  'candidates[].id': 'A short name in reports and resource names; derived when absent.',
  'candidates[].instanceType': 'A SageMaker hosting instance type, e.g. ml.c5.xlarge.',
  'candidates[].initialInstanceCount': 'Instances of the endpoint. Default 1.',
  'candidates[].compiledFor': 'The compilation target whose artifact this candidate serves, e.g. ml_c5.',
  'candidates[].optimizedBy': 'The compilation.optimizations id whose optimized model this candidate serves.',
  'candidates[].routingStrategy': 'RANDOM or LEAST_OUTSTANDING_REQUESTS, for 2 or more instances.',
  'candidates[].environment': "Container environment of this candidate, over the model's.",
  'candidates[].serverless': 'A serverless endpoint instead of an instance type.',
  'candidates[].serverless.memorySizeMb': 'Memory: 1024, 2048, 3072, 4096, 5120 or 6144 MB.',
  'candidates[].serverless.maxConcurrency': 'Concurrent invocations at most (1 to 200).',
  environmentRanges:
    'Variable → values: every candidate is expanded over their combinations (at most 50 candidates).',
  'environmentRanges.*': 'The values of this variable to try.',
  existingEndpoint: 'Load test an endpoint as it is: nothing is deployed or deleted.',
  'existingEndpoint.endpointName': "The endpoint's name.",
  'existingEndpoint.instanceType': 'A cross-check; the endpoint is priced from DescribeEndpoint.',
  'existingEndpoint.instanceCount': 'A cross-check; the endpoint is priced from DescribeEndpoint.',
  loadPlan: 'How each candidate is load tested.',
  'loadPlan.model':
    'closed: a fixed number of requests in flight; open: a fixed arrival rate. Default closed.',
  'loadPlan.steps': 'Concurrency (closed) or requests per second (open) of each step, ascending.',
  'loadPlan.warmupSeconds': "Run before each step's window at its load, not measured. Default 5.",
  'loadPlan.stepDurationSeconds': "Each step's measurement window. Default 30.",
  'loadPlan.workers': 'Load workers (Lambda invocations) sharing the load, at most 40. Default 1.',
  'loadPlan.maxRequestsPerStep':
    'Requests measured per step across workers; the window ends early when reached.',
  'loadPlan.maxTotalRequests': 'Requests of the whole test, warm-ups included; stops the test.',
  'loadPlan.maxTotalSeconds': 'Bound on the whole test from its start. Default 900.',
  'loadPlan.requestTimeoutMs':
    'Client timeout of one invocation; a timed-out request counts as an error and as latency.',
  'loadPlan.extendUntilSaturated':
    'After the steps, double the load up to maxLoad until the candidate saturates.',
  'loadPlan.maxLoad': 'The highest load an extension step applies. Default 8 × the last step.',
  'loadPlan.kneeProbes':
    'Probes bisecting between the last step that met the SLA and the first that missed it. Default 3.',
  'loadPlan.repeats':
    'Measurements of the sustainable load, the first included; the median is reported. Default 2 (3 locally).',
  'loadPlan.interleaveRepeats':
    'Repeat in rounds over all candidates, endpoints kept until then (locally on by default).',
  'loadPlan.ramp': 'Set by the ramp test; refused in a run input (use rampTest).',
  'loadPlan.ramp.fromTps': 'The arrival rate the ramp starts from.',
  'loadPlan.stopAtPlateau':
    'Stop stepping once a step does not raise throughput by plateauGain. Default true.',
  'loadPlan.plateauGain': 'The throughput gain a step must make to count as rising. Default 1.05.',
  'loadPlan.maxInFlight': 'Open model: requests in flight per worker before arrivals queue. Default 256.',
  'loadPlan.lateToleranceMs':
    'Open model: a request sent later than this after its schedule counts as late. Default 10.',
  'loadPlan.response': 'How responses are read: buffered (default) or streamed and timed per token.',
  'loadPlan.response.mode': 'buffered or stream.',
  'loadPlan.response.format': "The stream's format: openai, tgi, lmi-jsonlines or lmi-sse.",
  sla: 'The limits a candidate must meet at a load for it to count.',
  'sla.p95LatencyMs': '95th percentile latency limit, in milliseconds.',
  'sla.p99LatencyMs': '99th percentile latency limit, in milliseconds.',
  'sla.ttftP95Ms': 'Streamed: 95th percentile time to first token, in milliseconds.',
  'sla.itlP95Ms': 'Streamed: 95th percentile inter-token latency, in milliseconds.',
  'sla.maxErrorRate': 'Largest share of failed requests, 0 to 1. Default 0.01.',
  'sla.targetTps': 'The load to serve: every candidate is sized, priced and (by default) proven at it.',
  objective:
    'lowest-cost-per-1m, lowest-cost-per-1m-output-tokens, highest-tps, lowest-latency or lowest-cost-at-target. Default: at the target with targetTps, else per 1M.',
  availability: 'With targetTps: availability of the recommendation.',
  'availability.minInstances': 'With targetTps: the fewest instances a recommendation keeps. Default 2.',
  scaling: 'With targetTps: the autoscaling policy the report recommends.',
  'scaling.headroom': "Share of an instance's sustainable TPS the policy targets, (0, 1]. Default 0.7.",
  'scaling.peakTps': 'The highest load the policy must scale to. Default: the target.',
  'scaling.scaleInCooldownSeconds': "The policy's scale-in cooldown. Default 300.",
  'scaling.scaleOutCooldownSeconds': "The policy's scale-out cooldown. Default 60.",
  prove: 'With targetTps: deploy the recommended count after "Recommend" and measure it at the target.',
  'prove.enabled': 'false skips the proof. Default true.',
  rampTest: 'With targetTps: apply the recommended policy and ramp the load from its minimum to the peak.',
  'rampTest.enabled': 'true runs the ramp test. Default false.',
  'rampTest.seconds': "The ramp's length. Default: the longest one load worker runs.",
  cleanup: 'What the run leaves when it ends.',
  'cleanup.policy': "delete-all (default), or keep-recommended: the winner's endpoint stays.",
  maxCostUsd: 'The run is refused, before anything is created, when its estimated cost is higher.',
  pricing: 'Prices that override the built-in table.',
  'pricing.usdPerHour': 'Instance type → US dollars per instance-hour.',
  'pricing.usdPerHour.*': 'The price of this instance type per hour.',
  maxConcurrentCandidates: 'Candidates deployed at once. Default 2.',
  tags: "Tags on everything the run creates: SageMaker's rules, at most 46, no key starting aws: or mso:.",
  'tags.*': "The tag's value.",
  modelPackage: "The Model Registry version measured: compared with the group's last approved run.",
  'modelPackage.groupName': 'The model package group.',
  'modelPackage.version': 'The version in the group.',
  'modelPackage.arn': "The model package's ARN.",
  quality:
    "The output-quality guard: each candidate's answers to the payloads compared with the reference candidate's; one that answers beyond the rule is not recommended.",
  'quality.reference':
    'The candidate id whose answers are the reference; default: the first candidate neither compiled nor optimized.',
  'quality.rule': 'What a candidate answer must keep to, by model kind: tensor, classifier or generative.',
  'quality.rule.kind':
    "tensor (every element within tolerance), classifier (the same top classes) or generative (tokens; refused until a run's generated answers can be recorded).",
  'quality.rule.maxAbsoluteDifference':
    "tensor: |candidate − reference| ≤ this + maxRelativeDifference × |reference|, as numpy's isclose (default 1e-8).",
  'quality.rule.maxRelativeDifference':
    "tensor: the share of the reference value allowed (default 1e-5, numpy's).",
  'quality.rule.topK':
    'classifier: the classes ranked first that must agree (default 1: the same top class).',
  'quality.rule.minAgreementRate': 'classifier: the share of rows whose top classes must agree (default 1).',
  'quality.rule.firstTokens':
    'generative: the output tokens compared per answer, from the first (default 32).',
  'quality.rule.minExactMatchRate': 'generative: the share of answers whose first tokens match exactly.',
  'quality.rule.minMeanTokenF1': "generative: the mean token-level F1 against the reference's answers.",
  'quality.rule.scorer': 'generative: your own scorer, given both answers, returning a score from 0 to 1.',
  'quality.rule.scorer.lambdaArn':
    'On AWS: the Lambda function that scores ({ reference, candidate } in, { score } out).',
  'quality.rule.scorer.command': 'Locally: a program and its arguments, given both answers as JSON on stdin.',
  'quality.rule.scorer.minMeanScore': 'The mean score over the inputs at which a candidate passes.',
  'quality.rule.scorer.timeoutSeconds': 'The deadline of one scorer call (default 30 s, at most 300).',
  'quality.allowUnknown':
    'Whether a candidate the guard could not judge (the reference failed, no answers) may still be recommended (default false).',
  'quality.worstExamples': 'The worst answers each verdict keeps for the report (default 5, at most 20).',
};

export const ASYNC_RUN_INPUT_DESCRIPTIONS: Readonly<Record<string, string>> = {
  $schema: 'The JSON Schema of this file, for editors; ignored by the run.',
  name: 'A label for the summary; the run id is the execution name.',
  endpointName: "Reuse this async endpoint (it must notify this stack's topics); or endpoint, to deploy one.",
  endpoint: 'The async endpoint to deploy for the run, scaled from zero.',
  'endpoint.modelDataUrl': 's3://<artifacts bucket>/models/…/model.tar.gz.',
  'endpoint.hub': 'A Hugging Face Hub model instead of modelDataUrl.',
  'endpoint.hub.modelId': 'The Hub model id.',
  'endpoint.hub.task': 'The pipeline task (HF_TASK).',
  'endpoint.hub.revision': 'A branch, tag or commit of the Hub model.',
  'endpoint.codeUri': 'Inference code packaged under code/.',
  'endpoint.framework': "The model's framework, for the serving image.",
  'endpoint.frameworkVersion': "The framework's version.",
  'endpoint.pytorchVersion': 'huggingface only: the PyTorch version.',
  'endpoint.tensorflowVersion': 'huggingface only: the TensorFlow version.',
  'endpoint.image': 'The ECR image that serves the model; default: the image table.',
  'endpoint.instanceType': 'The instance type, e.g. ml.c5.large.',
  'endpoint.maxInstanceCount': 'Instances the endpoint scales out to at most (from zero).',
  'endpoint.maxConcurrentInvocationsPerInstance': 'Requests an instance processes at once.',
  'endpoint.targetBacklogPerInstance': "The autoscaling policy's target backlog per instance.",
  'endpoint.environment': 'Container environment.',
  'endpoint.keepAfterRun': 'Keep the endpoint after the run (it scales in to zero).',
  inputs: 'The inputs, s3://<artifacts bucket>/inputs/… (or inputPrefix).',
  inputPrefix: 'Every object under this prefix is an input (or inputs).',
  contentType: 'The ContentType SageMaker passes to the model.',
  maxConcurrency: 'Inputs waiting for their result at once.',
  invocationTimeoutSeconds: "Each invocation's processing time limit.",
  requestTtlSeconds: "How long a request may wait in SageMaker's queue before it expires.",
  benchmark: 'Measure scale-out from zero: wait for zero instances, then send a burst.',
  'benchmark.burstSize': 'Inputs sent at once after the endpoint reached zero instances.',
  generative: 'A generative model: each result is read in its answer format and its tokens counted.',
  'generative.format': "The container's answer format: tgi, lmi or openai.",
};
