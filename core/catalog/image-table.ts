import type { FRAMEWORKS } from '../contracts/index.js';

/**
 * The maintained table of SageMaker serving images: which inference container serves a model of a
 * framework and version, uncompiled or compiled (Neo / Neuron), on which hardware, in which region.
 * `images.ts` resolves a request against it; a run input's `model.image` overrides it.
 *
 * Facts (registry account per region, repository names, tag formats, versions) read on 2026-11-22 from:
 * - aws/sagemaker-python-sdk, the SDK's image config (`image_uri_config/*.json`), the source of truth:
 *   - sagemaker-core/src/sagemaker/core/image_uri_config/pytorch.json @ 04142370c66a6f6b7c540e73e75ac019a26580da
 *   - sagemaker-core/src/sagemaker/core/image_uri_config/tensorflow.json @ 251b9df367bb64057362d6aa7832b3b8f5472499
 *   - sagemaker-core/src/sagemaker/core/image_uri_config/xgboost.json @ 2ef567ca3e8049fb05ff7d140b291be980c00067
 *   - src/sagemaker/image_uri_config/mxnet.json @ 132fb947714c46c40e71163a39bcc15668c327c4
 *   - src/sagemaker/image_uri_config/neo-pytorch.json @ 00632da0b1b3c970d71322ef20e7be5622e57774
 *   - src/sagemaker/image_uri_config/neo-tensorflow.json @ 031f4f24cf988e40788569ad442e069dfe2f7ac1
 *   - src/sagemaker/image_uri_config/{neo-mxnet,xgboost-neo,inferentia-pytorch,inferentia-tensorflow}.json
 *     @ 088b7acbee152313ca3db05dd24be518ebdfb36d
 *   - sagemaker-core/src/sagemaker/core/image_uri_config/huggingface.json @ bec022e5509610f4e0e607934af783c1192d4e31
 *     ("inference": the Hugging Face DLCs, one per transformers × PyTorch/TensorFlow version, their
 *     `container_version` per processor and their registries)
 *   - sagemaker-core/src/sagemaker/core/image_uris.py @ 1c7faf09c7dbe14d8ca98f7b970b7416661d04e9 (Hugging Face
 *     tag = `<pt|tf version>-transformers<version>-<processor>-<py>-<container_version>`)
 *   - src/sagemaker/image_uris.py @ 0124acda7476e797a465a5070e330282e57f8728 (tag = version-processor-py
 *     [-container]; `-sagemaker` after the container version of `*-inference-graviton` repositories)
 *   - model.py `_compilation_image_uri`: compiled models use `neo-<fw>` configs, `inferentia-<fw>` for
 *     ml_inf targets and `xgboost-neo` for XGBoost.
 * - AWS docs "Neo Inference Container Images"
 *   (https://docs.aws.amazon.com/sagemaker/latest/dg/neo-deployment-hosting-services-container-images.html):
 *   images the SDK config does not list (Neo PyTorch 1.13 and 2.0, ONNX `sagemaker-neo-onnx:1.5.0`, Keras
 *   `sagemaker-neo-keras:2.2.4`, Inferentia1 MXNet, the Inferentia2 Neuron images) and the Neo account table.
 * - AWS docs "Supported Instance Types and Frameworks" (https://docs.aws.amazon.com/sagemaker/latest/dg/neo-supported-cloud.html):
 *   the model versions Neo accepts (ONNX ≤ 1.7.0, Keras ≤ 2.2.4, MXNet ≤ 1.8.0, XGBoost ≤ 1.3.3).
 * - The LLM serving containers (DJL LMI, Hugging Face TGI, vLLM), read on 2026-11-24, every commercial region each config
 *   lists (the ISO partitions and eusc-de-east-1 left out, as above), the accounts the DLC table already has:
 *   - sagemaker-core/src/sagemaker/core/image_uri_config/djl-lmi.json @ 2d1730cf192956d476e1c20002c55ece0c382fdc
 *     (DJL LMI on NVIDIA GPUs: `djl-inference:<tag_prefix>`, no processor in the tag; every DLC region)
 *   - sagemaker-core/src/sagemaker/core/image_uri_config/djl-neuronx.json @ ea3ea8612f9ab1d4813be45408f81ac09f701970
 *     (DJL LMI on Inferentia2/Trainium: `djl-inference:<tag_prefix>`; 26 commercial regions)
 *   - sagemaker-core/src/sagemaker/core/image_uri_config/huggingface-llm.json @ 1c7faf09c7dbe14d8ca98f7b970b7416661d04e9
 *     (Hugging Face TGI: `huggingface-pytorch-tgi-inference:<tag_prefix>-gpu-<py>-<container_version>`)
 *   - sagemaker-core/src/sagemaker/core/image_uri_config/huggingface-llm-neuronx.json
 *     @ 135e3e98a102cca9b695fbbdf54ab499167cae99 (TGI on Neuron: `<tag_prefix>-neuronx-<py>-<container_version>`,
 *     `neuronx` being the `inference_tool` the SDK's `get_huggingface_llm_image_uri` passed for it,
 *     src/sagemaker/huggingface/llm_utils.py @ 8e91c2e3b94d86cf2f5d855b195b1cc663fb2a3e)
 *   - sagemaker-core/src/sagemaker/core/image_uri_config/huggingface-vllm.json @ bec022e5509610f4e0e607934af783c1192d4e31
 *     (the Hugging Face vLLM DLC, NVIDIA GPUs only: `huggingface-vllm:<tag_prefix>-gpu-<py>-<container_version>`);
 *     `huggingface-vllm-neuronx.json` lists a Neuron build in 11 regions, not in the table: its settings are
 *     optimum-neuron's, which the project does not check yet.
 *   - tags as image_uris.py `_format_tag` joins them (`-`.join of tag prefix, processor or inference tool, Python,
 *     container version, the absent ones skipped).
 * - aws/deep-learning-containers docs/reference/available_images.md @ 36626177a764469610e86c1ea6a49d9db18a976f:
 *   the Neuron DLC `pytorch-inference-neuronx:2.8.0-neuronx-py311-sdk2.26.1-ubuntu22.04` and its regions.
 *
 * Where the SDK config and the docs disagree, the SDK wins (e.g. Neo TensorFlow tag `2.9.2-…`, docs `2.9`;
 * Neo MXNet `1.8-…`, docs `1.8.0`). Neo also reports the image for a finished job
 * (`DescribeCompilationJob.InferenceImage`), which is authoritative for a compiled artifact.
 *
 * Hugging Face: only the plain inference DLCs. `huggingface-neuronx.json` lists
 * `huggingface-pytorch-inference-neuronx` images too, but the toolkit that serves a Hub model refuses a
 * Hub model on Neuron ("Hugging Face Hub deployments are currently not supported with AWS Neuron and
 * Inferentia", aws/sagemaker-huggingface-inference-toolkit mms_model_server.py
 * @ 0a0cc3d738ae050bef44f148d19485c6e316fbe2), and Neo cannot compile a model it has no data for.
 *
 * Not listed on purpose: ISO partitions (us-iso*, different ECR domains), regions only one version has
 * (me-west-1 for PyTorch 2.6.0), versions older than the recent lines. ONNX has no first-party serving
 * container for uncompiled models; its uncompiled candidates need `model.image` (the project's model
 * server, `local/model-server/Dockerfile`, pushed to ECR).
 */

export const SERVING_IMAGE_TABLE_SOURCE = {
  repository: 'aws/sagemaker-python-sdk',
  paths: 'image_uri_config/*.json',
  readOn: '2026-11-22',
} as const;

export type Framework = (typeof FRAMEWORKS)[number];

/** The hardware an image is built for, derived from the instance type or the compilation target. */
export type ServingPlatform = 'cpu' | 'gpu' | 'graviton' | 'inf1' | 'neuronx';

export interface Registry {
  readonly name: string;
  /** Region → the AWS account that owns the ECR registry there. */
  readonly accounts: Readonly<Record<string, string>>;
}

export interface ImageRow {
  readonly framework: Framework;
  readonly compiled: boolean;
  readonly platform: ServingPlatform;
  /** The table version: matched against the model's framework version and used to pick the newest. */
  readonly version: string;
  /** Older model versions this image also serves (the SDK's `version_aliases`). */
  readonly alsoServes?: readonly string[];
  /** Serves every model version up to this one (Neo's "supports X or earlier"). */
  readonly servesUpTo?: string;
  readonly registry: Registry;
  readonly repository: string;
  readonly tag: string;
  /** Where the row comes from, for the `source` of a resolved image. */
  readonly reference: string;
  /** Hugging Face images: the PyTorch or TensorFlow build under the transformers `version`. */
  readonly baseFramework?: BaseFramework;
}

/** The deep-learning framework under a Hugging Face image, and its version. */
export interface BaseFramework {
  readonly name: 'pytorch' | 'tensorflow';
  readonly version: string;
}

/** AWS Deep Learning Containers, as `pytorch.json` lists them for PyTorch 2.2.0 inference. */
const DLC: Registry = {
  name: 'Deep Learning Containers',
  accounts: {
    'af-south-1': '626614931356',
    'ap-east-1': '871362719292',
    'ap-east-2': '975050140332',
    'ap-northeast-1': '763104351884',
    'ap-northeast-2': '763104351884',
    'ap-northeast-3': '364406365360',
    'ap-south-1': '763104351884',
    'ap-south-2': '772153158452',
    'ap-southeast-1': '763104351884',
    'ap-southeast-2': '763104351884',
    'ap-southeast-3': '907027046896',
    'ap-southeast-4': '457447274322',
    'ap-southeast-5': '550225433462',
    'ap-southeast-6': '633930458069',
    'ap-southeast-7': '590183813437',
    'ca-central-1': '763104351884',
    'ca-west-1': '204538143572',
    'cn-north-1': '727897471807',
    'cn-northwest-1': '727897471807',
    'eu-central-1': '763104351884',
    'eu-central-2': '380420809688',
    'eu-north-1': '763104351884',
    'eu-south-1': '692866216735',
    'eu-south-2': '503227376785',
    'eu-west-1': '763104351884',
    'eu-west-2': '763104351884',
    'eu-west-3': '763104351884',
    'il-central-1': '780543022126',
    'me-central-1': '914824155844',
    'me-south-1': '217643126080',
    'mx-central-1': '637423239942',
    'sa-east-1': '763104351884',
    'us-east-1': '763104351884',
    'us-east-2': '763104351884',
    'us-gov-east-1': '446045086412',
    'us-gov-west-1': '442386744353',
    'us-west-1': '763104351884',
    'us-west-2': '763104351884',
  },
};

/** MXNet 1.9.0 (`mxnet.json`) predates the newest DLC regions. */
const DLC_MXNET: Registry = {
  name: 'Deep Learning Containers (MXNet)',
  accounts: withoutRegions(DLC.accounts, [
    'ap-east-2',
    'ap-southeast-5',
    'ap-southeast-6',
    'ap-southeast-7',
    'mx-central-1',
  ]),
};

/** Hugging Face inference DLCs (`huggingface.json`): the DLC accounts, without the newest regions. */
const DLC_HUGGINGFACE: Registry = {
  name: 'Deep Learning Containers (Hugging Face)',
  accounts: withoutRegions(DLC.accounts, [
    'ap-east-2',
    'ap-southeast-5',
    'ap-southeast-6',
    'ap-southeast-7',
    'mx-central-1',
  ]),
};

/**
 * DJL LMI Neuron images (`djl-neuronx.json`, 0.28.0 and 0.29.0): the DLC accounts, in fewer regions.
 */
const DLC_LMI_NEURONX: Registry = {
  name: 'Deep Learning Containers (LMI Neuron)',
  accounts: withoutRegions(DLC.accounts, [
    'af-south-1',
    'ap-east-1',
    'ap-east-2',
    'ap-northeast-2',
    'ap-northeast-3',
    'ap-southeast-3',
    'ap-southeast-6',
    'ca-central-1',
    'eu-south-1',
    'me-central-1',
    'me-south-1',
    'us-west-1',
  ]),
};

/** Neuron DLCs: the regions available_images.md marks as carrying Neuron images. */
const DLC_NEURON: Registry = {
  name: 'Deep Learning Containers (Neuron)',
  accounts: {
    'ap-northeast-1': '763104351884',
    'eu-west-1': '763104351884',
    'us-east-1': '763104351884',
    'us-east-2': '763104351884',
    'us-west-2': '763104351884',
  },
};

/**
 * SageMaker Neo inference images, as `neo-tensorflow.json` lists them (it agrees with the docs' table and
 * adds eu-central-2). Older `inferentia-*.json`/`neo-mxnet.json` versions give ap-northeast-3 as
 * 364406365360; the newer `neo-*.json` files and the docs give 925152966179, used here.
 */
const NEO: Registry = {
  name: 'SageMaker Neo',
  accounts: {
    'af-south-1': '774647643957',
    'ap-east-1': '110948597952',
    'ap-northeast-1': '941853720454',
    'ap-northeast-2': '151534178276',
    'ap-northeast-3': '925152966179',
    'ap-south-1': '763008648453',
    'ap-southeast-1': '324986816169',
    'ap-southeast-2': '355873309152',
    'ca-central-1': '464438896020',
    'cn-north-1': '472730292857',
    'cn-northwest-1': '474822919863',
    'eu-central-1': '746233611703',
    'eu-central-2': '010526262399',
    'eu-north-1': '601324751636',
    'eu-south-1': '966458181534',
    'eu-west-1': '802834080501',
    'eu-west-2': '205493899709',
    'eu-west-3': '254080097072',
    'il-central-1': '275950707576',
    'me-south-1': '836785723513',
    'sa-east-1': '756306329178',
    'us-east-1': '785573368785',
    'us-east-2': '007439368137',
    'us-gov-west-1': '263933020539',
    'us-west-1': '710691900526',
    'us-west-2': '301217895009',
  },
};

/** SageMaker's XGBoost algorithm images (`xgboost.json`, inference 1.7-1 and later). */
const XGBOOST: Registry = {
  name: 'SageMaker XGBoost',
  accounts: {
    'af-south-1': '510948584623',
    'ap-east-1': '651117190479',
    'ap-northeast-1': '354813040037',
    'ap-northeast-2': '366743142698',
    'ap-northeast-3': '867004704886',
    'ap-south-1': '720646828776',
    'ap-south-2': '628508329040',
    'ap-southeast-1': '121021644041',
    'ap-southeast-2': '783357654285',
    'ap-southeast-3': '951798379941',
    'ap-southeast-4': '106583098589',
    'ca-central-1': '341280168497',
    'ca-west-1': '190319476487',
    'cn-north-1': '450853457545',
    'cn-northwest-1': '451049120500',
    'eu-central-1': '492215442770',
    'eu-central-2': '680994064768',
    'eu-north-1': '662702820516',
    'eu-south-1': '978288397137',
    'eu-south-2': '104374241257',
    'eu-west-1': '141502667606',
    'eu-west-2': '764974769150',
    'eu-west-3': '659782779980',
    'il-central-1': '898809789911',
    'me-central-1': '272398656194',
    'me-south-1': '801668240914',
    'sa-east-1': '737474898029',
    'us-east-1': '683313688378',
    'us-east-2': '257758044811',
    'us-gov-east-1': '237065988967',
    'us-gov-west-1': '414596584902',
    'us-west-1': '746614075791',
    'us-west-2': '246618743249',
  },
};

function withoutRegions(
  accounts: Readonly<Record<string, string>>,
  regions: readonly string[],
): Readonly<Record<string, string>> {
  return Object.fromEntries(Object.entries(accounts).filter(([region]) => !regions.includes(region)));
}

type Processor = 'cpu' | 'gpu';
const PLATFORM_OF: Readonly<Record<Processor, ServingPlatform>> = { cpu: 'cpu', gpu: 'gpu' };

interface RowSpec extends Omit<ImageRow, 'platform' | 'tag'> {
  /** The tag for a processor; the SDK puts `cpu`/`gpu` in the tag of most framework images. */
  readonly tagFor: (processor: Processor) => string;
}

/** One row per processor: framework images come as a CPU and a GPU build of the same version. */
function cpuAndGpu(spec: RowSpec): ImageRow[] {
  const { tagFor, ...row } = spec;
  return (['cpu', 'gpu'] as const).map((processor) => ({
    ...row,
    platform: PLATFORM_OF[processor],
    tag: tagFor(processor),
  }));
}

const SDK = (file: string): string => `SageMaker Python SDK ${file}`;
const NEO_DOCS = 'AWS docs: Neo Inference Container Images';
const DLC_DOCS = 'aws/deep-learning-containers available_images.md';

/** `pytorch-inference:<version>-<cpu|gpu>-<py>` (pytorch.json, "inference"). */
const pytorchDlc = ([version, py]: readonly [string, string]): ImageRow[] =>
  cpuAndGpu({
    framework: 'pytorch',
    compiled: false,
    version,
    registry: DLC,
    repository: 'pytorch-inference',
    tagFor: (processor) => `${version}-${processor}-${py}`,
    reference: SDK('pytorch.json'),
  });

/**
 * `huggingface-<pytorch|tensorflow>-inference:<base>-transformers<version>-<cpu|gpu>-<py>-<container>`,
 * the container (OS, and CUDA for GPU) per processor as huggingface.json's `container_version` says.
 */
const huggingfaceDlc = ([version, name, baseVersion, py, cpu, gpu]: readonly [
  string,
  BaseFramework['name'],
  string,
  string,
  string,
  string,
]): ImageRow[] =>
  cpuAndGpu({
    framework: 'huggingface',
    compiled: false,
    version,
    baseFramework: { name, version: baseVersion },
    registry: DLC_HUGGINGFACE,
    repository: `huggingface-${name}-inference`,
    tagFor: (processor) =>
      `${baseVersion}-transformers${version}-${processor}-${py}-${processor === 'cpu' ? cpu : gpu}`,
    reference: SDK('huggingface.json'),
  });

/** Graviton builds (pytorch.json / tensorflow.json, "inference_graviton"): container version in the tag. */
const graviton = (
  framework: Framework,
  repository: string,
  [version, py, os]: readonly [string, string, string],
): ImageRow => ({
  framework,
  compiled: false,
  platform: 'graviton',
  version,
  registry: DLC,
  repository,
  // image_uris.py appends `-sagemaker` to the container version of `<framework>-inference-graviton` only.
  tag: `${version}-cpu-${py}-${os}${repository.endsWith('-graviton') ? '-sagemaker' : ''}`,
  reference: SDK(`${framework}.json`),
});

/** `tensorflow-inference:<version>-<cpu|gpu>[-<py>]`: TF Serving images carry no Python tag before 2.20. */
const tensorflowDlc = ([version, py]: readonly [string, string | undefined]): ImageRow[] =>
  cpuAndGpu({
    framework: 'tensorflow',
    compiled: false,
    version,
    registry: DLC,
    repository: 'tensorflow-inference',
    tagFor: (processor) => [version, processor, py].filter((part) => part !== undefined).join('-'),
    reference: SDK('tensorflow.json'),
  });

/** `sagemaker-xgboost:<version>`: one image for CPU and GPU instances, no processor tag. */
const xgboost = (version: string): ImageRow[] =>
  cpuAndGpu({
    framework: 'xgboost',
    compiled: false,
    version,
    registry: XGBOOST,
    repository: 'sagemaker-xgboost',
    tagFor: () => version,
    reference: SDK('xgboost.json'),
  });

/** Neo CPU/GPU images: `<repository>:<version>-<cpu|gpu>-py3`. */
const neo = (
  framework: Framework,
  repository: string,
  version: string,
  reference: string,
  serves: Pick<ImageRow, 'alsoServes' | 'servesUpTo'> = {},
): ImageRow[] =>
  cpuAndGpu({
    framework,
    compiled: true,
    version,
    ...serves,
    registry: NEO,
    repository,
    tagFor: (processor) => `${version}-${processor}-py3`,
    reference,
  });

/** Neo Inferentia1 images: `<repository>:<version>-inf-py3`. */
const inferentia1 = (
  framework: Framework,
  repository: string,
  version: string,
  reference: string,
): ImageRow => ({
  framework,
  compiled: true,
  platform: 'inf1',
  version,
  registry: NEO,
  repository,
  tag: `${version}-inf-py3`,
  reference,
});

/** Neuron DLCs for Inferentia2/Trainium, which serve artifacts Neo compiled for ml_inf2. */
const neuronx = (
  framework: Framework,
  repository: string,
  version: string,
  tag: string,
  reference: string,
): ImageRow => ({
  framework,
  compiled: true,
  platform: 'neuronx',
  version,
  registry: DLC_NEURON,
  repository,
  tag,
  reference,
});

/**
 * An LLM serving container's image: one row per version and accelerator. Served uncompiled: these
 * containers load (and on Neuron compile) the model when they start.
 */
const llmContainer = (
  framework: Framework,
  platform: 'gpu' | 'neuronx',
  registry: Registry,
  repository: string,
  reference: string,
  [version, tag]: readonly [string, string],
): ImageRow => ({
  framework,
  compiled: false,
  platform,
  version,
  registry,
  repository,
  tag,
  reference,
});

export const IMAGE_TABLE: readonly ImageRow[] = [
  // Uncompiled: the frameworks' own serving containers.
  ...(
    [
      ['1.13.1', 'py39'],
      ['2.0.0', 'py310'],
      ['2.0.1', 'py310'],
      ['2.1.0', 'py310'],
      ['2.2.0', 'py310'],
      ['2.3.0', 'py311'],
      ['2.4.0', 'py311'],
      ['2.5.1', 'py311'],
      ['2.6.0', 'py312'],
    ] as const
  ).flatMap(pytorchDlc),
  ...(
    [
      ['2.1.0', 'py310', 'ubuntu20.04'],
      ['2.2.1', 'py310', 'ubuntu20.04'],
      ['2.3.0', 'py311', 'ubuntu20.04'],
      ['2.4.0', 'py311', 'ubuntu22.04'],
    ] as const
  ).map((row) => graviton('pytorch', 'pytorch-inference-graviton', row)),
  // From 2.6.0 the SDK lists PyTorch's arm64 build under another repository name.
  graviton('pytorch', 'pytorch-inference-arm64', ['2.6.0', 'py312', 'ubuntu22.04']),
  ...(
    [
      ['2.13.0', undefined],
      ['2.14.1', undefined],
      ['2.16.1', undefined],
      ['2.18.0', undefined],
      ['2.19.0', undefined],
      ['2.20.0', 'py312'],
    ] as const
  ).flatMap(tensorflowDlc),
  ...(['2.13.0', '2.14.1', '2.16.1'] as const).map((version) =>
    graviton('tensorflow', 'tensorflow-inference-graviton', [version, 'py310', 'ubuntu20.04']),
  ),
  ...cpuAndGpu({
    framework: 'mxnet',
    compiled: false,
    version: '1.9.0',
    registry: DLC_MXNET,
    repository: 'mxnet-inference',
    tagFor: (processor) => `1.9.0-${processor}-py38`,
    reference: SDK('mxnet.json'),
  }),
  ...['1.7-1', '3.0-5', '3.2-0'].flatMap(xgboost),
  // Hugging Face: transformers version, base framework and version, Python, CPU and GPU containers.
  ...(
    [
      ['4.26.0', 'pytorch', '1.13.1', 'py39', 'ubuntu20.04', 'cu117-ubuntu20.04'],
      ['4.26.0', 'tensorflow', '2.11.0', 'py39', 'ubuntu20.04', 'cu112-ubuntu20.04'],
      ['4.28.1', 'pytorch', '2.0.0', 'py310', 'ubuntu20.04', 'cu118-ubuntu20.04'],
      ['4.37.0', 'pytorch', '2.1.0', 'py310', 'ubuntu22.04', 'cu118-ubuntu20.04'],
      ['4.48.0', 'pytorch', '2.3.0', 'py311', 'ubuntu22.04', 'cu121-ubuntu22.04'],
      ['4.49.0', 'pytorch', '2.6.0', 'py312', 'ubuntu22.04', 'cu124-ubuntu22.04'],
      ['4.51.3', 'pytorch', '2.6.0', 'py312', 'ubuntu22.04', 'cu124-ubuntu22.04'],
      ['5.5.3', 'pytorch', '2.6.0', 'py312', 'ubuntu22.04', 'cu124-ubuntu22.04'],
    ] as const
  ).flatMap(huggingfaceDlc),

  // LLM serving containers: the version is the container's own (LMI, TGI, vLLM), the tag the SDK's.
  ...(
    [
      ['0.36.0', '0.36.0-lmi27.0.0-cu130'],
      ['0.35.0', '0.35.0-lmi17.0.0-cu128'],
      ['0.34.0', '0.34.0-lmi16.0.0-cu128'],
      ['0.33.0', '0.33.0-lmi15.0.0-cu128'],
    ] as const
  ).map((row) => llmContainer('djl-lmi', 'gpu', DLC, 'djl-inference', SDK('djl-lmi.json'), row)),
  ...(
    [
      ['0.29.0', '0.29.0-neuronx-sdk2.19.1'],
      ['0.28.0', '0.28.0-neuronx-sdk2.18.2'],
    ] as const
  ).map((row) =>
    llmContainer('djl-lmi', 'neuronx', DLC_LMI_NEURONX, 'djl-inference', SDK('djl-neuronx.json'), row),
  ),
  ...(
    [
      ['3.3.6', '2.7.0-tgi3.3.6-gpu-py311-cu124-ubuntu22.04'],
      ['3.2.3', '2.6.0-tgi3.2.3-gpu-py311-cu124-ubuntu22.04'],
    ] as const
  ).map((row) =>
    llmContainer('hf-tgi', 'gpu', DLC, 'huggingface-pytorch-tgi-inference', SDK('huggingface-llm.json'), row),
  ),
  // TGI on Neuron is versioned by its optimum-neuron release (the SDK's versions 0.2.0 and 0.3.0).
  ...(
    [
      ['0.3.0', '2.7.0-optimum3.3.6-neuronx-py310-ubuntu22.04'],
      ['0.2.0', '2.5.1-optimum3.3.4-neuronx-py310-ubuntu22.04'],
    ] as const
  ).map((row) =>
    llmContainer(
      'hf-tgi',
      'neuronx',
      DLC,
      'huggingface-pytorch-tgi-inference',
      SDK('huggingface-llm-neuronx.json'),
      row,
    ),
  ),
  ...(
    [
      ['0.21.0', '0.21.0-transformers5.8.1-gpu-py312-cu130-ubuntu22.04'],
      ['0.17.0', '0.17.0-transformers4.57.5-gpu-py312-cu129-ubuntu22.04'],
      ['0.14.0', '0.14.0-transformers4.57.3-gpu-py312-cu129-ubuntu22.04'],
    ] as const
  ).map((row) => llmContainer('vllm', 'gpu', DLC, 'huggingface-vllm', SDK('huggingface-vllm.json'), row)),

  // Compiled by Neo for CPU/GPU targets.
  ...neo('pytorch', 'sagemaker-inference-pytorch', '1.12', SDK('neo-pytorch.json')),
  ...neo('pytorch', 'sagemaker-inference-pytorch', '1.13', NEO_DOCS),
  ...neo('pytorch', 'sagemaker-inference-pytorch', '2.0', NEO_DOCS),
  ...neo('tensorflow', 'sagemaker-inference-tensorflow', '2.9.2', SDK('neo-tensorflow.json'), {
    alsoServes: ['2.4', '2.4.0', '2.4.1', '2.4.2', '2.9', '2.9.0'],
  }),
  ...neo('mxnet', 'sagemaker-inference-mxnet', '1.8', SDK('neo-mxnet.json'), { servesUpTo: '1.8.0' }),
  ...neo('onnx', 'sagemaker-neo-onnx', '1.5.0', NEO_DOCS, { servesUpTo: '1.7.0' }),
  ...neo('keras', 'sagemaker-neo-keras', '2.2.4', NEO_DOCS, { servesUpTo: '2.2.4' }),
  // xgboost-neo has one `latest` image for every target (xgboost-neo.json; no processor in the tag).
  ...cpuAndGpu({
    framework: 'xgboost',
    compiled: true,
    version: 'latest',
    servesUpTo: '1.3.3',
    registry: NEO,
    repository: 'xgboost-neo',
    tagFor: () => 'latest',
    reference: SDK('xgboost-neo.json'),
  }),

  // Compiled for Inferentia (ml_inf1): the Neo Inferentia images.
  inferentia1('pytorch', 'sagemaker-neo-pytorch', '1.5.1', SDK('inferentia-pytorch.json')),
  inferentia1('tensorflow', 'sagemaker-neo-tensorflow', '1.15.0', SDK('inferentia-tensorflow.json')),
  inferentia1('mxnet', 'sagemaker-neo-mxnet', '1.5.1', NEO_DOCS),

  // Compiled for Inferentia2 (ml_inf2): the Neuron DLCs.
  neuronx(
    'pytorch',
    'pytorch-inference-neuronx',
    '2.8.0',
    '2.8.0-neuronx-py311-sdk2.26.1-ubuntu22.04',
    DLC_DOCS,
  ),
  neuronx(
    'pytorch',
    'pytorch-inference-neuronx',
    '1.13.1',
    '1.13.1-neuronx-py38-sdk2.10.0-ubuntu20.04',
    NEO_DOCS,
  ),
  neuronx(
    'tensorflow',
    'tensorflow-inference-neuronx',
    '2.10.1',
    '2.10.1-neuronx-py38-sdk2.10.0-ubuntu20.04',
    NEO_DOCS,
  ),
];
