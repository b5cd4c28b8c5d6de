/**
 * A throw-away self-signed certificate for the loopback HTTPS stand-in, made at run time with
 * node:crypto alone (no dependency, no openssl binary): an ECDSA P-256 key and a minimal X.509 v3
 * certificate (DER written here) whose subjectAltName is the stand-in's IPv4 address (loopback:
 * no name to resolve, and Node checks an IP host against the certificate's IP address entries).
 */
import { generateKeyPairSync, randomBytes, sign, X509Certificate } from 'node:crypto';

function length(size: number): Buffer {
  if (size < 0x80) return Buffer.from([size]);
  const bytes: number[] = [];
  for (let rest = size; rest > 0; rest >>= 8) bytes.unshift(rest & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), length(body.length), body]);
}

const sequence = (...content: Buffer[]): Buffer => tlv(0x30, ...content);

function oid(dotted: string): Buffer {
  const [first = 0, second = 0, ...rest] = dotted.split('.').map(Number);
  const bytes = [first * 40 + second];
  for (const arc of rest) {
    const base128 = [arc & 0x7f];
    for (let value = arc >> 7; value > 0; value >>= 7) base128.unshift(0x80 | (value & 0x7f));
    bytes.push(...base128);
  }
  return tlv(0x06, Buffer.from(bytes));
}

function utcTime(date: Date): Buffer {
  // UTCTime YYMMDDHHMMSSZ (RFC 5280 4.1.2.5.1: dates before 2050).
  const iso = date.toISOString();
  const text = `${iso.slice(2, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
  return tlv(0x17, Buffer.from(text, 'ascii'));
}

const ECDSA_WITH_SHA256 = sequence(oid('1.2.840.10045.4.3.2'));

export interface SelfSignedCertificate {
  readonly certPem: string;
  readonly keyPem: string;
}

/** A certificate for `ipv4` (e.g. 127.0.0.1) valid for a day, with its private key, both PEM. */
export function createSelfSignedCertificate(ipv4: string): SelfSignedCertificate {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const name = sequence(tlv(0x31, sequence(oid('2.5.4.3'), tlv(0x0c, Buffer.from(ipv4, 'utf8')))));
  const now = Date.now();
  const serial = randomBytes(8);
  serial[0] = (serial[0] ?? 0) & 0x7f; // a positive INTEGER
  const subjectAltName = sequence(
    oid('2.5.29.17'),
    // GeneralName iPAddress [7]: the address's four bytes (RFC 5280 4.2.1.6).
    tlv(0x04, sequence(tlv(0x87, Buffer.from(ipv4.split('.').map(Number))))),
  );
  const tbs = sequence(
    tlv(0xa0, tlv(0x02, Buffer.from([2]))), // version v3
    tlv(0x02, serial),
    ECDSA_WITH_SHA256,
    name,
    sequence(utcTime(new Date(now - 60_000)), utcTime(new Date(now + 86_400_000))),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    tlv(0xa3, sequence(subjectAltName)),
  );
  const signature = sign('sha256', tbs, privateKey);
  const der = sequence(tbs, ECDSA_WITH_SHA256, tlv(0x03, Buffer.from([0]), signature));
  const certificate = new X509Certificate(der);
  if (!certificate.verify(publicKey)) throw new Error('the generated certificate does not verify');
  return {
    certPem: certificate.toString(),
    keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}
