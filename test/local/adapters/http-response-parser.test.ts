import { describe, expect, it } from '@jest/globals';
import { ResponseParseError, ResponseParser } from '../../../local/adapters/http-response-parser.js';

/** What the parser reported: heads, each response's body as one string, ends, errors. */
function parse(responses: readonly string[], pieceBytes?: number, finish = false): string[] {
  const events: string[] = [];
  let body: string | undefined;
  const parser = new ResponseParser({
    onHead: (statusCode, keepAlive) => {
      events.push(`head ${statusCode} ${keepAlive ? 'keep-alive' : 'close'}`);
      body = '';
    },
    onBody: (buffer, start, end) => {
      body = `${body ?? ''}${Buffer.from(buffer.subarray(start, end)).toString('latin1')}`;
    },
    onEnd: () => {
      if (body !== '') events.push(`body ${body ?? ''}`);
      body = undefined;
      events.push('end');
    },
  });
  for (const response of responses) {
    parser.expectResponse();
    const bytes = Buffer.from(response, 'latin1');
    const step = pieceBytes ?? bytes.length;
    for (let start = 0; start < bytes.length; start += step) {
      // Each piece in a buffer of its own with bytes around it, as a read buffer would be.
      const padded = Buffer.concat([
        Buffer.from('xx'),
        bytes.subarray(start, start + step),
        Buffer.from('yy'),
      ]);
      const error = parser.execute(padded, 2, padded.length - 2);
      if (error !== undefined) {
        events.push(`error ${error.message}`);
        return events;
      }
    }
  }
  if (finish) {
    const error = parser.finish();
    if (error !== undefined) events.push(`error ${error.message}`);
  }
  return events;
}

/** The same events whole and in every split, down to one byte per read. */
function parseInAnySplit(responses: readonly string[], finish = false): string[] {
  const whole = parse(responses, undefined, finish);
  for (const pieceBytes of [1, 2, 3, 7]) expect(parse(responses, pieceBytes, finish)).toEqual(whole);
  return whole;
}

const NODE_OK =
  'HTTP/1.1 200 OK\r\nDate: Tue, 24 Nov 2026 22:26:25 GMT\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\nContent-Length: 2\r\n\r\nok';

describe('ResponseParser', () => {
  it('reads a sized body', () => {
    expect(parseInAnySplit([NODE_OK])).toEqual(['head 200 keep-alive', 'body ok', 'end']);
  });

  it('reads responses one after the other on a connection', () => {
    expect(
      parseInAnySplit([NODE_OK, 'HTTP/1.1 500 Internal Server Error\r\ncontent-length: 4\r\n\r\noops']),
    ).toEqual(['head 200 keep-alive', 'body ok', 'end', 'head 500 keep-alive', 'body oops', 'end']);
  });

  it('reads a chunked body, skipping chunk extensions and trailers', () => {
    // Prepare
    const response =
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: Chunked\r\n\r\n5;ext=1\r\nhello\r\nA\r\n, world!!!\r\n0\r\nx-trailer: 1\r\n\r\n';

    // Act / Assert
    expect(parseInAnySplit([response])).toEqual(['head 200 keep-alive', 'body hello, world!!!', 'end']);
  });

  it('takes chunked framing over a length, and only as the last coding', () => {
    expect(
      parseInAnySplit([
        'HTTP/1.1 200 OK\r\ncontent-length: 99\r\ntransfer-encoding: gzip, chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n',
      ]),
    ).toEqual(['head 200 keep-alive', 'body ok', 'end']);
    expect(parseInAnySplit(['HTTP/1.1 200 OK\r\ntransfer-encoding: chunked, gzip\r\n\r\nraw'], true)).toEqual(
      ['head 200 close', 'body raw', 'end'],
    );
  });

  it('reads a body without framing to the connection end', () => {
    expect(parseInAnySplit(['HTTP/1.1 200 OK\r\nconnection: close\r\n\r\n{"a":1}'], true)).toEqual([
      'head 200 close',
      'body {"a":1}',
      'end',
    ]);
  });

  it('says whether the connection stays open', () => {
    expect(parse(['HTTP/1.1 200 OK\r\nConnection: Close\r\ncontent-length: 0\r\n\r\n'])).toEqual([
      'head 200 close',
      'end',
    ]);
    expect(parse(['HTTP/1.0 200 OK\r\ncontent-length: 0\r\n\r\n'])).toEqual(['head 200 close', 'end']);
    expect(parse(['HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\ncontent-length: 0\r\n\r\n'])).toEqual([
      'head 200 keep-alive',
      'end',
    ]);
    expect(parse(['HTTP/1.1 200 OK\r\nconnection: keep-alive, closed\r\ncontent-length: 0\r\n\r\n'])).toEqual(
      ['head 200 keep-alive', 'end'],
    );
  });

  it('reads no body for 204 and 304', () => {
    expect(parseInAnySplit(['HTTP/1.1 204 No Content\r\n\r\n', 'HTTP/1.1 304 Not Modified\r\n\r\n'])).toEqual(
      ['head 204 keep-alive', 'end', 'head 304 keep-alive', 'end'],
    );
  });

  it('skips interim 1xx responses', () => {
    expect(
      parseInAnySplit([
        'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\n' + NODE_OK,
      ]),
    ).toEqual(['head 200 keep-alive', 'body ok', 'end']);
  });

  it('accepts bare LF line ends, a status line without a reason and spaces around a length', () => {
    expect(parseInAnySplit(['HTTP/1.1 200\ncontent-length:  2 \n\nok'])).toEqual([
      'head 200 keep-alive',
      'body ok',
      'end',
    ]);
  });

  it('fails when the connection ends inside a response', () => {
    expect(parse(['HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\n12345'], undefined, true)).toEqual([
      'head 200 keep-alive',
      'error the connection ended inside a response',
    ]);
  });

  it('refuses two different lengths', () => {
    expect(parse(['HTTP/1.1 200 OK\r\ncontent-length: 2\r\ncontent-length: 3\r\n\r\nok'])).toEqual([
      'error Content-Length given twice with different values',
    ]);
  });

  it('refuses a length that is not a number', () => {
    expect(parse(['HTTP/1.1 200 OK\r\ncontent-length: 2x\r\n\r\nok'])).toEqual([
      'error invalid Content-Length',
    ]);
  });

  it('refuses what is not an HTTP/1.x response', () => {
    expect(parse(['SSH-2.0-OpenSSH_9.6\r\n'])).toEqual(['error expected HTTP/1.x']);
  });

  it('refuses bytes that come when no response is expected', () => {
    // Prepare
    const parser = new ResponseParser({
      onHead: () => undefined,
      onBody: () => undefined,
      onEnd: () => undefined,
    });

    // Act
    const error = parser.execute(Buffer.from('HTTP/1.1 200 OK\r\n'), 0, 17);

    // Assert
    expect(error).toEqual(new ResponseParseError('response bytes when no request was sent'));
  });
});
