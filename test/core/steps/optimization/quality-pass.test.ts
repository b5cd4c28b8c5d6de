import { describe, expect, it } from '@jest/globals';
import type {
  CandidateOutcome,
  JudgeQualityEvent,
  RecordAnswersEvent,
} from '../../../../core/contracts/optimization-state.js';
import type { PlannedQuality, QualityVerdict, RecordedAnswers } from '../../../../core/contracts/quality.js';
import type { EndpointAnswer, EndpointAnswerer } from '../../../../core/ports/index.js';
import {
  answersUri,
  judgeOutputQuality,
  recordCandidateAnswers,
  verdictUri,
} from '../../../../core/steps/optimization/quality-pass.js';
import { MemoryObjectStore, silentLogger } from '../../../support/memory-object-store.js';

const PAYLOADS = ['s3://user-models/cnn/a.json', 's3://user-models/cnn/b.json'];
const QUALITY: PlannedQuality = {
  referenceCandidateId: 'ref',
  rule: { kind: 'tensor', maxAbsoluteDifference: 1e-8, maxRelativeDifference: 1e-5 },
  allowUnknown: false,
  worstExamples: 5,
};
const PLAN = {
  runId: 'run-1',
  artifactsBucket: 'mso-artifacts',
  quality: QUALITY,
  payloads: PAYLOADS.map((uri) => ({ uri, contentType: 'application/json', weight: 1, sizeBytes: 9 })),
  loadPlan: { requestTimeoutMs: 1_000 },
} as unknown as RecordAnswersEvent['plan'];

function store(): MemoryObjectStore {
  return new MemoryObjectStore().seed(PAYLOADS[0] ?? '', '{"x":[1]}').seed(PAYLOADS[1] ?? '', '{"x":[2]}');
}

function json(values: readonly number[]): EndpointAnswer {
  return { ok: true, body: new TextEncoder().encode(JSON.stringify({ predictions: [values] })) };
}

/** Answers in turn, recording each endpoint asked. */
function answerer(answers: EndpointAnswer[]): EndpointAnswerer & { readonly asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    answer: (endpointName) => {
      asked.push(endpointName);
      return Promise.resolve(answers.shift() ?? json([0]));
    },
  };
}

function record(candidateId: string): RecordAnswersEvent {
  return {
    action: 'record',
    plan: PLAN,
    candidateId,
    deployment: { endpointName: `mso-run-1-${candidateId}` },
  };
}

function readJson(objects: MemoryObjectStore, uri: string): unknown {
  const object = objects.objects.get(uri);
  if (object === undefined) throw new Error(`Nothing stored at ${uri}`);
  return JSON.parse(new TextDecoder().decode(object.body));
}

const measured = (candidateId: string): CandidateOutcome => ({ candidateId, status: 'MEASURED' });

describe('recordCandidateAnswers', () => {
  it('asks the reference each payload twice and stores its decoded answers, NaN kept', async () => {
    // Prepare
    const objects = store();
    const endpoints = answerer([
      json([1, 2]),
      json([1, 2]),
      { ok: true, body: new TextEncoder().encode('{"predictions":[[NaN]]}') },
      json([3]),
    ]);

    // Act
    const pointer = await recordCandidateAnswers(record('ref'), {
      store: objects,
      answerer: endpoints,
      logger: silentLogger,
    });

    // Assert
    expect(endpoints.asked).toEqual(Array.from({ length: 4 }, () => 'mso-run-1-ref'));
    expect(pointer).toEqual({ answersUri: answersUri(PLAN, 'ref'), inputs: 2, unanswered: 0 });
    expect((readJson(objects, pointer.answersUri) as RecordedAnswers).inputs).toEqual([
      {
        inputId: 'payload-1',
        answers: [
          { shape: [1, 2], values: [1, 2] },
          { shape: [1, 2], values: [1, 2] },
        ],
      },
      {
        inputId: 'payload-2',
        answers: [
          { shape: [1, 1], values: ['NaN'] },
          { shape: [1, 1], values: [3] },
        ],
      },
    ]);
  });

  it('records an endpoint error as that input’s answer, never as the step’s failure', async () => {
    // Act
    const pointer = await recordCandidateAnswers(record('neo'), {
      store: store(),
      answerer: answerer([{ ok: false, problem: 'model-error: HTTP 500' }, json([1])]),
      logger: silentLogger,
    });

    // Assert
    expect(pointer.unanswered).toBe(1);
  });

  it('leaves the inputs unasked once the step’s deadline is near, as unanswered', async () => {
    // Prepare: 1 s per request; the deadline leaves room for none.
    const objects = store();

    // Act
    await recordCandidateAnswers(record('neo'), {
      store: objects,
      answerer: answerer([]),
      logger: silentLogger,
      deadlineEpochMs: 1_500,
      nowEpochMs: () => 1_000,
    });

    // Assert
    expect((readJson(objects, answersUri(PLAN, 'neo')) as RecordedAnswers).inputs).toEqual([
      { inputId: 'payload-1', unanswered: "not asked: the step's time ran out before it" },
      { inputId: 'payload-2', unanswered: "not asked: the step's time ran out before it" },
    ]);
  });

  it('fails when the run was redriven, before any request', async () => {
    const endpoints = answerer([]);
    await expect(
      recordCandidateAnswers(
        { ...record('neo'), redriveCount: 1 },
        { store: store(), answerer: endpoints, logger: silentLogger },
      ),
    ).rejects.toMatchObject({ name: 'RunRedrivenError' });
    expect(endpoints.asked).toEqual([]);
  });
});

describe('judgeOutputQuality', () => {
  async function recorded(
    objects: MemoryObjectStore,
    answers: Record<string, EndpointAnswer[]>,
  ): Promise<void> {
    for (const [candidateId, given] of Object.entries(answers)) {
      await recordCandidateAnswers(record(candidateId), {
        store: objects,
        answerer: answerer(given),
        logger: silentLogger,
      });
    }
  }

  function judge(candidates: CandidateOutcome[]): JudgeQualityEvent {
    return { action: 'judge', plan: PLAN, candidates };
  }

  it('puts a summary of each verdict in its outcome and the whole verdict in the store', async () => {
    // Prepare
    const objects = store();
    await recorded(objects, {
      ref: [json([1, 2]), json([1, 2]), json([3, 4]), json([3, 4])],
      neo: [json([1, 2.5]), json([3, 4])],
    });

    // Act
    const outcomes = await judgeOutputQuality(judge([measured('ref'), measured('neo')]), {
      store: objects,
      answerer: answerer([]),
      logger: silentLogger,
    });

    // Assert
    expect(outcomes.map((outcome) => outcome.quality?.verdict)).toEqual(['passed', 'quality-failed']);
    const neo = outcomes[1]?.quality;
    expect(neo).toMatchObject({ worstExampleCount: 1, verdictUri: verdictUri(PLAN, 'neo') });
    expect(neo).not.toHaveProperty('worstExamples');
    const whole = readJson(objects, verdictUri(PLAN, 'neo')) as QualityVerdict;
    expect(whole.worstExamples.map((example) => example.inputId)).toEqual(['payload-1']);
  });

  it('judges every candidate "unknown" when the reference failed, naming why', async () => {
    // Prepare
    const objects = store();
    await recorded(objects, { neo: [json([1]), json([2])] });
    const failed: CandidateOutcome = {
      candidateId: 'ref',
      status: 'FAILED',
      error: { Error: 'EndpointFailedError', Cause: 'the container exited' },
    };

    // Act
    const outcomes = await judgeOutputQuality(judge([failed, measured('neo')]), {
      store: objects,
      answerer: answerer([]),
      logger: silentLogger,
    });

    // Assert
    expect(outcomes[0]).toEqual(failed);
    expect(outcomes[1]?.quality).toMatchObject({ verdict: 'unknown' });
    expect(outcomes[1]?.quality?.reason).toContain(
      'the reference ref failed (it failed (EndpointFailedError',
    );
  });

  it('judges a candidate without recorded answers "unknown", naming its recording’s error', async () => {
    // Prepare
    const objects = store();
    await recorded(objects, { ref: [json([1]), json([1]), json([2]), json([2])] });
    const unrecorded: CandidateOutcome = {
      ...measured('neo'),
      answersError: { Error: 'TransientServiceError', Cause: 'S3 was slow' },
    };

    // Act
    const outcomes = await judgeOutputQuality(judge([measured('ref'), unrecorded]), {
      store: objects,
      answerer: answerer([]),
      logger: silentLogger,
    });

    // Assert
    expect(outcomes[1]?.quality?.verdict).toBe('unknown');
    expect(outcomes[1]?.quality?.reason).toContain(
      'recording its answers failed (TransientServiceError: S3 was slow)',
    );
  });
});
