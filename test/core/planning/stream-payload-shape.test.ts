import { describe, expect, it } from '@jest/globals';
import { streamPayloadShape } from '../../../core/planning/stream-payload-shape.js';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('streamPayloadShape', () => {
  it('accepts a TGI generate request that asks for the stream', () => {
    // Act
    const finding = streamPayloadShape('tgi', 'payload.uri', bytes('{"inputs":"Hi","stream":true}'));

    // Assert
    expect(finding).toEqual({});
  });

  it('refuses a TGI request whose stream flag is false', () => {
    // Act
    const finding = streamPayloadShape('tgi', 'payloads[1].uri', bytes('{"inputs":"Hi","stream":false}'));

    // Assert
    expect(finding).toEqual({
      issue: {
        field: 'payloads[1].uri',
        given: 'a JSON object with "inputs", "stream" ("stream": false)',
        expected:
          '"stream": true at the request\'s top level: without it the container answers with one JSON body, which the tgi stream parser cannot read',
      },
    });
  });

  it('refuses a chat request read as an LMI stream, which LMI answers in OpenAI chunks', () => {
    // Act
    const finding = streamPayloadShape(
      'lmi-sse',
      'payload.uri',
      bytes('{"messages":[{"role":"user","content":"Hi"}],"stream":true}'),
    );

    // Assert
    expect(finding).toEqual({
      issue: {
        field: 'payload.uri',
        given: 'a JSON object with "messages", "stream" ("stream": true)',
        expected:
          'a generate request ("inputs") for format lmi-sse: the container answers a chat request ("messages") in the OpenAI chunk format, so set loadPlan.response.format "openai" or send "inputs"',
      },
    });
  });

  it('refuses a generate request read as an OpenAI stream', () => {
    // Act
    const finding = streamPayloadShape('openai', 'payload.uri', bytes('{"inputs":"Hi","stream":true}'));

    // Assert
    expect(finding).toEqual({
      issue: {
        field: 'payload.uri',
        given: 'a JSON object with "inputs", "stream" ("stream": true)',
        expected:
          'a chat request ("messages") or a completions request ("prompt") with "stream": true: the OpenAI-compatible ' +
          'stream answers those (a TGI or LMI generate request, "inputs", streams in format tgi or lmi-*)',
      },
    });
  });

  it('refuses an OpenAI request without "stream": true', () => {
    // Act
    const finding = streamPayloadShape('openai', 'payload.uri', bytes('{"prompt":"Hi"}'));

    // Assert
    expect(finding).toEqual({
      issue: {
        field: 'payload.uri',
        given: 'a JSON object with "prompt"',
        expected:
          '"stream": true at the request\'s top level: without it the container answers with one JSON body, which the openai stream parser cannot read',
      },
    });
  });

  it('accepts an OpenAI stream that asks for its usage figures', () => {
    // Act
    const finding = streamPayloadShape(
      'openai',
      'payload.uri',
      bytes('{"prompt":"Hi","stream":true,"stream_options":{"include_usage":true}}'),
    );

    // Assert
    expect(finding).toEqual({});
  });

  it('refuses a body that is not a JSON object', () => {
    // Act
    const finding = streamPayloadShape('lmi-jsonlines', 'payload.uri', bytes('Hello there'));

    // Assert
    expect(finding).toEqual({
      issue: {
        field: 'payload.uri',
        given: 'a body that is not a JSON object',
        expected: 'a JSON request object: the lmi-jsonlines stream answers a JSON request',
      },
    });
  });
});
