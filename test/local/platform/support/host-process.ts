/**
 * A process that runs a LocalModelHost with one endpoint and prints its server's pid, then waits to
 * be killed: the test kills it with SIGKILL (no handler can run) and checks the server goes too.
 * Usage: node --import tsx host-process.ts <storeDir>
 */
import { FileObjectStore } from '../../../../local/platform/file-object-store.js';
import { LocalModelHost } from '../../../../local/platform/local-model-host.js';
import { exampleModelArchive } from './model-artifacts.js';

const store = new FileObjectStore({ rootDir: process.argv[2] ?? '.' });
await store.putBytes('s3://b/model.tar.gz', await exampleModelArchive());
const host = new LocalModelHost({
  store,
  logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
  availableCpus: 1,
});
await host.createModel({
  modelName: 'm',
  image: 'local',
  modelDataUrl: 's3://b/model.tar.gz',
  environment: {},
  tags: {},
});
await host.createEndpointConfig({
  endpointConfigName: 'ec',
  variant: {
    variantName: 'AllTraffic',
    modelName: 'm',
    instanceType: 'ml.c5.large',
    initialInstanceCount: 1,
  },
  tags: {},
});
await host.createEndpoint({ endpointName: 'ep', endpointConfigName: 'ec', tags: {} });
while ((await host.describeEndpoint('ep'))?.status === 'Creating') {
  await new Promise((resolve) => setTimeout(resolve, 50));
}
process.stdout.write(
  `${JSON.stringify({ serverPid: host.launchedServers()[0]?.pid, status: (await host.describeEndpoint('ep'))?.status })}\n`,
);
setInterval(() => undefined, 1000);
