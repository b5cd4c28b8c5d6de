/**
 * A local real-time endpoint with several instances: one model-server process per instance
 * (started by an `InstanceLauncher`, as the async endpoint starts its instances) behind one local
 * front, a `node:http` server on a free loopback port that plays SageMaker's part: it answers
 * `/ping` itself, sends each `POST /invocations` to one instance chosen by the variant's routing
 * strategy (`routing.ts`), and counts the invocations each instance served, the local stand-in
 * for CloudWatch's per-instance figures (`InvocationsPerInstance`).
 *
 * The desired instance count can change while the endpoint is in service (what
 * UpdateEndpointWeightsAndCapacities or autoscaling does on SageMaker): new instances take traffic
 * once they answer `/ping`; removed ones stop taking traffic at once, finish what they hold, and
 * stop.
 */
import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { describeError } from '../../core/contracts/index.js';
import type { AsyncInstance, InstanceLauncher } from './instances.js';
import { chooseInstance } from './routing.js';
import type { RoutingStrategy } from '../../core/contracts/index.js';

export interface LocalRealtimeEndpointOptions {
  readonly endpointName: string;
  readonly initialInstanceCount: number;
  readonly routingStrategy: RoutingStrategy;
  readonly launchInstance: InstanceLauncher;
  /** An instance exited that the endpoint had not asked to stop: the endpoint fails with why. */
  readonly onInstanceLost: (reason: string) => void;
  /** @default Math.random */
  readonly random?: () => number;
  /**
   * Time an instance takes, once its server answers `/ping`, before it takes traffic: the model
   * download and load a SageMaker instance goes through, which a local process that loads a small
   * model in a second does not. A ramp test needs it so that a scale-out takes time here as well.
   * @default 0
   */
  readonly instanceStartDelayMs?: number;
  /** For the instance-count series. @default Date.now */
  readonly now?: () => number;
}

/** The instances at one moment: a point of the instance-count series (for a ramp's timeline). */
export interface InstanceCountSample {
  readonly atEpochMs: number;
  /** Taking traffic. */
  readonly inService: number;
  /** Launched and not yet in service (process start, model load). */
  readonly starting: number;
}

/** One instance's figures, for the CLI, the tests and a metrics reader. */
export interface InstanceInvocations {
  readonly instanceId: string;
  readonly pid: number | undefined;
  /** `POST /invocations` requests the front sent to this instance. */
  readonly invocations: number;
  /** Requests in flight on this instance now. */
  readonly outstanding: number;
  readonly inService: boolean;
}

interface Slot {
  readonly instanceId: string;
  readonly instance: AsyncInstance;
  url?: string;
  inService: boolean;
  stopping: boolean;
  exited: boolean;
  invocations: number;
  outstanding: number;
  /** Ends the start delay early (the slot was stopped): no timer outlives the instance. */
  endDelay?: () => void;
}

/** Waits `delayMs`, or less when the slot is stopped meanwhile (its timer is cleared). */
function startDelay(slot: Slot, delayMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(end, delayMs);
    function end(): void {
      clearTimeout(timer);
      slot.endDelay = undefined;
      resolve();
    }
    slot.endDelay = end;
  });
}

/** Response headers that belong to one connection, not to the message (RFC 9110, section 7.6.1). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding']);

export class LocalRealtimeEndpoint {
  private readonly slots: Slot[] = [];
  private readonly server: Server;
  /** Kept-alive connections to the instances: a new connection per request would add a handshake. */
  private readonly agent = new Agent({ keepAlive: true });
  private readonly random: () => number;
  private launchedCount = 0;
  private closed = false;
  private readonly now: () => number;
  private readonly series: InstanceCountSample[] = [];
  private startDelayMs: number;

  constructor(private readonly options: LocalRealtimeEndpointOptions) {
    this.random = options.random ?? Math.random;
    this.now = options.now ?? Date.now;
    this.startDelayMs = options.instanceStartDelayMs ?? 0;
    this.server = createServer((request, response) => {
      this.handle(request, response);
    });
  }

  /** Instances in service (taking traffic): DescribeEndpoint's `CurrentInstanceCount`. */
  get currentInstanceCount(): number {
    return this.slots.filter((slot) => slot.inService).length;
  }

  /** Instances wanted: in service or starting (DescribeEndpoint's `DesiredInstanceCount`). */
  get desiredInstanceCount(): number {
    return this.slots.filter((slot) => !slot.stopping).length;
  }

  /** Invocations the front has sent to any instance (the numerator of InvocationsPerInstance). */
  totalInvocations(): number {
    return this.slots.reduce((sum, slot) => sum + slot.invocations, 0);
  }

  /** The instance counts over time, one sample per change, oldest first. */
  instanceCountSeries(): readonly InstanceCountSample[] {
    return [...this.series];
  }

  /**
   * Changes the start delay of instances launched from now on (the host sets it when autoscaling
   * is attached: the ramp's scale-outs are where a model load is felt).
   */
  setInstanceStartDelayMs(delayMs: number): void {
    if (!(delayMs >= 0)) {
      throw new RangeError(
        `Endpoint ${this.options.endpointName}: instance start delay got ${delayMs} ms, expected at least 0`,
      );
    }
    this.startDelayMs = delayMs;
  }

  /** Starts the initial instances and the front; resolves with the front's origin. */
  async start(): Promise<string> {
    await this.addInstances(this.options.initialInstanceCount);
    // Shut down while its instances started: the front must not listen after its close.
    if (this.closed) throw new Error(`Endpoint ${this.options.endpointName} was shut down while starting`);
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}`;
  }

  /** Starts or stops instances until `count` are in service (new ones take traffic once ready). */
  async setDesiredInstanceCount(count: number): Promise<void> {
    if (!Number.isInteger(count) || count < 1) {
      throw new RangeError(
        `Endpoint ${this.options.endpointName}: desired instance count got ${count}, expected an integer of at least 1`,
      );
    }
    const active = this.slots.filter((slot) => !slot.stopping);
    if (count > active.length) await this.addInstances(count - active.length);
    else await Promise.all(active.slice(count).map((slot) => this.stopSlot(slot)));
  }

  /** Per-instance figures of every instance started, in start order. */
  invocationsPerInstance(): readonly InstanceInvocations[] {
    return this.slots.map(({ instanceId, instance, invocations, outstanding, inService }) => ({
      instanceId,
      pid: instance.pid,
      invocations,
      outstanding,
      inService,
    }));
  }

  /** Stops the front and every instance, and waits for each process to exit. Idempotent. */
  async shutdown(): Promise<void> {
    this.closed = true;
    this.server.closeAllConnections();
    const closing = new Promise<void>((resolve) => {
      this.server.close(() => {
        resolve();
      });
    });
    await Promise.all(this.slots.map((slot) => this.stopSlot(slot)));
    this.agent.destroy();
    // Called back even when the front never listened (with an error there is nothing to do about).
    await closing;
  }

  /** Immediate SIGKILL of every instance: for a forced exit. */
  killNow(): void {
    this.closed = true;
    for (const slot of this.slots) {
      slot.endDelay?.();
      slot.instance.kill();
    }
    this.server.closeAllConnections();
    this.server.close();
  }

  private async addInstances(count: number): Promise<void> {
    const added = Array.from({ length: count }, () => this.launch());
    try {
      await Promise.all(
        added.map(async (slot) => {
          const delayMs = this.startDelayMs;
          slot.url = await slot.instance.ready;
          if (delayMs > 0 && !slot.stopping) await startDelay(slot, delayMs);
          if (!slot.stopping) {
            slot.inService = true;
            this.sample();
          }
        }),
      );
    } catch (error) {
      // One instance that cannot start fails the whole change, as on SageMaker; none is left running.
      await Promise.all(added.map((slot) => this.stopSlot(slot)));
      throw error;
    }
  }

  private launch(): Slot {
    this.launchedCount += 1;
    const instanceId = `${this.options.endpointName}/instance-${this.launchedCount}`;
    const slot: Slot = {
      instanceId,
      instance: this.options.launchInstance(instanceId),
      inService: false,
      stopping: false,
      exited: false,
      invocations: 0,
      outstanding: 0,
    };
    this.slots.push(slot);
    this.sample();
    void slot.instance.exited.then((how) => {
      const wasInService = slot.inService;
      slot.inService = false;
      slot.exited = true;
      this.sample();
      if (!slot.stopping && !this.closed && wasInService) {
        this.options.onInstanceLost(`Instance ${instanceId} (pid ${slot.instance.pid ?? '?'}) ${how}`);
      }
    });
    return slot;
  }

  private async stopSlot(slot: Slot): Promise<void> {
    const changed = !slot.stopping;
    slot.stopping = true;
    slot.inService = false;
    slot.endDelay?.();
    if (changed) this.sample();
    await slot.instance.stop();
  }

  private sample(): void {
    const inService = this.slots.filter((slot) => slot.inService).length;
    const starting = this.slots.filter((slot) => !slot.inService && !slot.stopping && !slot.exited).length;
    const last = this.series[this.series.length - 1];
    if (last?.inService === inService && last.starting === starting) return;
    this.series.push({ atEpochMs: this.now(), inService, starting });
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    if (request.method === 'GET' && request.url === '/ping') {
      const healthy = this.currentInstanceCount > 0;
      response.writeHead(healthy ? 200 : 503, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ status: healthy ? 'Healthy' : 'NoInstanceInService' }));
      return;
    }
    if (request.method !== 'POST' || request.url !== '/invocations') {
      answerError(
        response,
        404,
        `The local front serves GET /ping and POST /invocations, got ${request.method ?? '?'} ${request.url ?? '?'}`,
      );
      request.resume();
      return;
    }
    const inService = this.slots.filter((slot) => slot.inService);
    const index = chooseInstance(
      this.options.routingStrategy,
      inService.map((slot) => slot.outstanding),
      this.random,
    );
    const slot = index === undefined ? undefined : inService[index];
    if (slot?.url === undefined) {
      answerError(response, 503, `Endpoint ${this.options.endpointName} has no instance in service`);
      request.resume();
      return;
    }
    this.forward(slot, slot.url, request, response);
  }

  private forward(slot: Slot, origin: string, request: IncomingMessage, response: ServerResponse): void {
    slot.invocations += 1;
    slot.outstanding += 1;
    let settled = false;
    const settle = (): void => {
      if (settled) return;
      settled = true;
      slot.outstanding -= 1;
    };
    response.once('close', settle);
    const upstream = httpRequest(
      `${origin}/invocations`,
      { method: 'POST', headers: request.headers, agent: this.agent },
      (answer) => {
        const headers = Object.fromEntries(
          Object.entries(answer.headers).filter(([name]) => !HOP_BY_HOP.has(name)),
        );
        response.writeHead(answer.statusCode ?? 502, headers);
        answer.pipe(response);
      },
    );
    upstream.once('error', (error) => {
      settle();
      if (response.headersSent) {
        response.destroy(error);
        return;
      }
      answerError(response, 502, `Instance ${slot.instanceId} did not answer: ${describeError(error)}`);
    });
    request.pipe(upstream);
  }
}

function answerError(response: ServerResponse, status: number, message: string): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ message }));
}
