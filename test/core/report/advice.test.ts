import { describe, expect, it } from '@jest/globals';
import {
  ADVICE_TABLES,
  type AdviceRule,
  type BusyMachineCase,
  type CandidateCase,
  candidateAdvice,
  type LocalQuotaCase,
  localQuotaMessage,
  type MissedCandidateCase,
  type NoiseCase,
  type NoRecommendationCase,
  noRecommendationAdvice,
} from '../../../core/report/advice.js';

/** A capacity miss of an uncompiled real-time candidate, far from the SLA. */
const MISSED: CandidateCase = {
  verdict: 'missed-sla',
  kind: 'realtime',
  compiled: false,
  modelErrors: false,
  measuredLocally: true,
};
const NEAR = { slaRatio: 1.03, noisePercent: 8.1 };
const NOISE: NoiseCase = { percent: 4, confidencePercent: 95, degreesOfFreedom: 6 };
const QUOTA: LocalQuotaCase = {
  endpointName: 'mso-r1-ep-b',
  wanted: 4,
  workers: 1,
  threadsPerWorker: 2,
  instances: 2,
  activeEndpoints: 2,
  used: 6,
  maxThreads: 8,
  cores: 2,
  overcommit: 4,
};
const missedAs = (id: string, facts: Partial<CandidateCase> = {}): MissedCandidateCase => ({
  id,
  ...MISSED,
  ...facts,
});

/**
 * For every rule of every table: the case it is written for, and a case it must not fire on
 * (the nearest one where its advice would mislead).
 */
const CASES: {
  readonly [Table in keyof typeof ADVICE_TABLES]: Readonly<
    Record<
      string,
      {
        fires: (typeof ADVICE_TABLES)[Table] extends readonly AdviceRule<infer Case>[] ? Case : never;
        doesNotFire: (typeof ADVICE_TABLES)[Table] extends readonly AdviceRule<infer Case>[] ? Case : never;
      }
    >
  >;
} = {
  candidate: {
    'model-errors': { fires: { ...MISSED, modelErrors: true }, doesNotFire: MISSED },
    stalled: { fires: { ...MISSED, verdict: 'stalled' }, doesNotFire: MISSED },
    'measurement-problem-aws': {
      fires: { ...MISSED, verdict: 'measurement-problem', measuredLocally: false },
      doesNotFire: { ...MISSED, verdict: 'measurement-problem', measuredLocally: true },
    },
    'measurement-problem-local': {
      fires: { ...MISSED, verdict: 'measurement-problem', measuredLocally: true },
      doesNotFire: { ...MISSED, verdict: 'measurement-problem', measuredLocally: false },
    },
    'near-miss': { fires: { ...MISSED, nearMiss: NEAR }, doesNotFire: MISSED },
    'larger-instances': { fires: MISSED, doesNotFire: { ...MISSED, kind: 'serverless' } },
    'more-serverless-memory': { fires: { ...MISSED, kind: 'serverless' }, doesNotFire: MISSED },
    'compiled-candidate': { fires: MISSED, doesNotFire: { ...MISSED, compiled: true } },
    'relax-sla': { fires: MISSED, doesNotFire: { ...MISSED, verdict: 'runner-up' } },
  },
  notSaturated: {
    'higher-load-steps': {
      fires: { stoppedBecause: 'completed' },
      doesNotFire: { stoppedBecause: 'deadline' },
    },
    'more-load-test-time': {
      fires: { stoppedBecause: 'deadline' },
      doesNotFire: { stoppedBecause: 'completed' },
    },
    'more-requests': {
      fires: { stoppedBecause: 'request-cap' },
      doesNotFire: { stoppedBecause: 'deadline' },
    },
  },
  noRecommendation: {
    'run-near-misses': {
      fires: { missed: [missedAs('a'), missedAs('b', { nearMiss: NEAR })] },
      doesNotFire: { missed: [missedAs('a'), missedAs('b')] },
    },
  },
  noise: {
    'noise-few-degrees': {
      fires: { ...NOISE, percent: 25, degreesOfFreedom: 2 },
      doesNotFire: { ...NOISE, percent: 25, degreesOfFreedom: 6 },
    },
    'noise-high': {
      fires: { ...NOISE, percent: 25 },
      doesNotFire: NOISE,
    },
  },
  busyMachine: {
    'busy-machine': {
      fires: { busyBecause: ['3 other task(s) running on 2 cores as the run started'] },
      doesNotFire: { busyBecause: [] },
    },
  },
  localQuota: {
    'quota-lower-concurrency': {
      fires: QUOTA,
      // Fewer endpoints at once would not help an endpoint too large on its own.
      doesNotFire: { ...QUOTA, wanted: 10, instances: 5 },
    },
    'quota-endpoint-too-large': {
      fires: { ...QUOTA, activeEndpoints: 0, used: 0, wanted: 10, instances: 5 },
      doesNotFire: QUOTA,
    },
  },
};

const tables = Object.entries(ADVICE_TABLES) as [
  keyof typeof ADVICE_TABLES,
  readonly AdviceRule<unknown>[],
][];

describe('the advice tables', () => {
  it('hold every rule to a case it fires on and one it must not fire on', () => {
    // Act: rules of the tables without a pair of cases here, and pairs for rules that are gone.
    const rules = tables.flatMap(([table, list]) => list.map((rule) => `${table}/${rule.id}`));
    const cases = tables.flatMap(([table]) => Object.keys(CASES[table]).map((id) => `${table}/${id}`));

    // Assert
    expect(rules.filter((rule) => !cases.includes(rule))).toEqual([]);
    expect(cases.filter((pair) => !rules.includes(pair))).toEqual([]);
    expect(new Set(rules).size).toBe(rules.length);
  });

  describe.each(tables)('%s', (table, rules) => {
    it.each(rules.map((rule) => [rule.id, rule] as const))(
      '%s fires on its case, with a text',
      (id, rule) => {
        // Prepare
        const pair = (CASES[table] as Record<string, { fires: unknown; doesNotFire: unknown }>)[id];

        // Act
        const fires = pair === undefined ? false : rule.fires(pair.fires);

        // Assert
        expect(fires).toBe(true);
        expect(pair === undefined ? '' : rule.text(pair.fires)).not.toBe('');
      },
    );

    it.each(rules.map((rule) => [rule.id, rule] as const))(
      '%s does not fire on the case it must not',
      (id, rule) => {
        // Prepare
        const pair = (CASES[table] as Record<string, { fires: unknown; doesNotFire: unknown }>)[id];

        // Act
        const fires = pair === undefined ? true : rule.fires(pair.doesNotFire);

        // Assert
        expect(fires).toBe(false);
      },
    );
  });
});

describe('candidateAdvice', () => {
  it('gives an uncompiled real-time miss every remedy, in one "try …" clause', () => {
    expect(candidateAdvice(MISSED)).toBe(
      'try larger or more instances, or try a compiled candidate (compiledFor), or relax the SLA',
    );
  });

  it('does not tell a compiled candidate to try a compiled candidate', () => {
    expect(candidateAdvice({ ...MISSED, compiled: true })).toBe(
      'try larger or more instances, or relax the SLA',
    );
  });

  it('calls a miss within the run noise a near miss before the remedies', () => {
    expect(candidateAdvice({ ...MISSED, kind: 'serverless', nearMiss: NEAR })).toBe(
      "a near miss: 1.03× the SLA's bound, within this run's noise (±8.1 % on a p95), so a re-run may meet it; " +
        'measure it again before ruling it out; try more memory (serverless.memorySizeMb, which also gives more vCPUs), or relax the SLA',
    );
  });

  it('gives a miss with model errors the model advice, not capacity remedies', () => {
    expect(candidateAdvice({ ...MISSED, modelErrors: true, nearMiss: NEAR })).toBe(
      'check the model and the payload it is sent (content type, input names and shape); the endpoint’s logs have the model’s own message',
    );
  });

  it('gives a recommended candidate no advice', () => {
    expect(candidateAdvice({ ...MISSED, verdict: 'recommended' })).toBeUndefined();
  });
});

describe('noRecommendationAdvice', () => {
  it('offers a compiled candidate only when some candidate that missed was not compiled', () => {
    // Prepare
    const allCompiled: NoRecommendationCase = {
      missed: [missedAs('a', { compiled: true }), missedAs('b', { compiled: true })],
    };
    const oneNot: NoRecommendationCase = { missed: [missedAs('a', { compiled: true }), missedAs('b')] };

    // Act
    const texts = [noRecommendationAdvice(allCompiled), noRecommendationAdvice(oneNot)];

    // Assert
    expect(texts).toEqual([
      'try larger or more instances, or relax the SLA',
      'try larger or more instances, or try a compiled candidate (compiledFor), or relax the SLA',
    ]);
  });

  it('names the near misses first', () => {
    expect(noRecommendationAdvice({ missed: [missedAs('a', { nearMiss: NEAR }), missedAs('b')] })).toBe(
      "a near miss within this run's noise: a (1.03×), so a re-run may recommend it; " +
        'try larger or more instances, or try a compiled candidate (compiledFor), or relax the SLA',
    );
  });

  it('gives nothing when every miss was the model’s', () => {
    expect(noRecommendationAdvice({ missed: [missedAs('a', { modelErrors: true })] })).toBeUndefined();
  });
});

describe('localQuotaMessage', () => {
  it('fails when endpoints already hold threads: advises fewer candidates at once', () => {
    expect(localQuotaMessage(QUOTA)).toBe(
      'Local quota: endpoint mso-r1-ep-b needs 4 threads but 2 endpoint(s) already use 6 of the 8 this machine allows (2 cores × 4); ' +
        'lower maxConcurrentCandidates, so that fewer endpoints run at once',
    );
  });

  it('fails when no endpoint is in use: names the real limit, not maxConcurrentCandidates', () => {
    // Act
    const message = localQuotaMessage({ ...QUOTA, activeEndpoints: 0, used: 0, wanted: 10, instances: 5 });

    // Assert
    expect(message).not.toContain('maxConcurrentCandidates');
    expect(message).toContain(
      'the endpoint alone needs more than the 8 threads this machine allows (10 = 1 worker(s) × 2 thread(s) × 5 instance(s))',
    );
  });
});

describe('the busy-machine advice', () => {
  it("says a miss may be the machine's", () => {
    // Prepare
    const busy: BusyMachineCase = { busyBecause: ['load average 4.0 on 2 cores before the run'] };

    // Act
    const [text] = ADVICE_TABLES.busyMachine
      .filter((rule) => rule.fires(busy))
      .map((rule) => rule.text(busy));

    // Assert
    expect(text).toMatch(
      /^The machine was busy \(load average 4\.0 on 2 cores before the run\): a miss may be the machine's/,
    );
  });
});
