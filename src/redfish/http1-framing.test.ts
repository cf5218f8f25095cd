/**
 * The Redfish client's HTTP/1.1 transport frames answers as undici does: generated answer
 * sequences (Content-Length, chunked with extensions and trailers, close-delimited, 1xx before
 * the answer, 204/304 without a body, keep-alive or Connection: close, header names in any case,
 * other headers with blanks around their values) are served on one connection, cut into pieces at
 * random, and read through both; status, body and the headers asked for must agree, request by
 * request. A framing or header-reading bug of any kind shows up as a difference.
 */
import { createRequire } from 'node:module';
import { createServer, type Server, type Socket } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Handler, Http1Pool } from './http1.js';

interface Answer {
  status: number;
  /** Content-Length, chunked (with these chunk sizes), or until the connection closes */
  framing: { kind: 'length' } | { kind: 'chunked'; sizes: number[]; ext: boolean; trailer: boolean } | { kind: 'close' };
  body: string;
  informational: boolean;
  upper: boolean;
  close: boolean;
  /** other headers: name (lowercase, written in `upper`'s case) and value as written */
  extra: [string, string][];
}

/** names of the other headers (unique per answer), among them the ones the client reads */
const EXTRA_NAMES = ['location', 'x-auth-token', 'odata-version', 'etag', 'x-a'];

function bytesOf(a: Answer): Buffer {
  const name = (n: string) => (a.upper ? n.toUpperCase() : n);
  const body = [204, 304].includes(a.status) ? Buffer.alloc(0) : Buffer.from(a.body, 'utf8');
  // 103 Early Hints (undici refuses an unasked 100 Continue; RFC 9110 has clients skip any 1xx, as http1.ts does)
  let head = a.informational ? 'HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n' : '';
  head += `HTTP/1.1 ${a.status} X\r\n${name('Content-Type')}: application/json\r\n`;
  for (const [n, v] of a.extra) head += `${name(n)}:${v}\r\n`;
  if (a.close || a.framing.kind === 'close') head += `${name('Connection')}: close\r\n`;
  const parts: Buffer[] = [];
  if ([204, 304].includes(a.status)) parts.push(Buffer.from(head + '\r\n'));
  else if (a.framing.kind === 'length') parts.push(Buffer.from(`${head}${name('Content-Length')}: ${body.length}\r\n\r\n`), body);
  else if (a.framing.kind === 'close') parts.push(Buffer.from(head + '\r\n'), body);
  else {
    parts.push(Buffer.from(`${head}${name('Transfer-Encoding')}: chunked\r\n\r\n`));
    let at = 0;
    for (const size of a.framing.sizes) {
      const piece = body.subarray(at, Math.min(body.length, at + size));
      if (!piece.length) break;
      at += piece.length;
      parts.push(Buffer.from(`${piece.length.toString(16)}${a.framing.ext ? ';a=b' : ''}\r\n`), piece, Buffer.from('\r\n'));
    }
    if (at < body.length) parts.push(Buffer.from(`${(body.length - at).toString(16)}\r\n`), body.subarray(at), Buffer.from('\r\n'));
    parts.push(Buffer.from(`0\r\n${a.framing.trailer ? 'X-Trailer: 1\r\n' : ''}\r\n`));
  }
  return Buffer.concat(parts);
}

const answer: fc.Arbitrary<Answer> = fc.record({
  status: fc.constantFrom(200, 201, 204, 304, 404, 500),
  framing: fc.oneof(
    fc.constant({ kind: 'length' as const }),
    fc.record({
      kind: fc.constant('chunked' as const),
      sizes: fc.array(fc.integer({ min: 1, max: 40 }), { maxLength: 6 }),
      ext: fc.boolean(),
      trailer: fc.boolean(),
    }),
    fc.constant({ kind: 'close' as const }),
  ),
  body: fc.string({ unit: 'binary', maxLength: 300 }),
  informational: fc.boolean(),
  upper: fc.boolean(),
  close: fc.boolean(),
  extra: fc.uniqueArray(
    fc.tuple(
      fc.constantFrom(...EXTRA_NAMES),
      fc
        .tuple(
          fc.constantFrom('', ' ', '  ', '\t', ' \t'),
          fc.string({ unit: fc.constantFrom(...'aZ09 ,;=./:-_'.split('')), maxLength: 20 }),
          fc.constantFrom('', ' ', '\t '),
        )
        .map(([before, v, after]) => before + v + after),
    ),
    { selector: ([n]) => n, maxLength: 4 },
  ),
});

/** A sequence served on one connection: it ends at the first answer that closes the connection. */
const sequence = fc
  .tuple(fc.array(answer, { minLength: 1, maxLength: 3 }), fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 8 }))
  .map(([answers, cuts]) => {
    const end = answers.findIndex((a) => a.close || a.framing.kind === 'close');
    return { answers: end < 0 ? answers : answers.slice(0, end + 1), cuts };
  });

/** What the server sends next, per connection: the answers of the case under test, cut at `cuts`. */
let current: { answers: Answer[]; cuts: number[] } = { answers: [], cuts: [1] };
let server: Server;
let origin = '';

function serve(socket: Socket): void {
  const { answers, cuts } = current;
  let next = 0;
  let pending = '';
  socket.on('error', () => undefined);
  socket.on('data', (d) => {
    pending += d.toString('latin1');
    while (pending.includes('\r\n\r\n') && next < answers.length) {
      pending = pending.slice(pending.indexOf('\r\n\r\n') + 4);
      const a = answers[next++]!;
      const bytes = bytesOf(a);
      const closes = a.close || a.framing.kind === 'close';
      void (async () => {
        for (let at = 0, i = 0; at < bytes.length; i++) {
          const n = cuts[i % cuts.length]!;
          socket.write(bytes.subarray(at, at + n));
          at += n;
          await new Promise((r) => setImmediate(r));
        }
        if (closes) socket.end();
      })();
    }
  });
}

interface Outcome {
  status?: number;
  body?: string;
  /** every EXTRA_NAMES header, as read */
  headers?: (string | undefined)[];
  error?: boolean;
}

function viaHttp1(pool: Http1Pool): Promise<Outcome> {
  return new Promise((resolve) => {
    let status = 0;
    let headers: (string | undefined)[] = [];
    const chunks: Buffer[] = [];
    const h: Handler = {
      onConnect: () => undefined,
      onHeaders: (s, head) => {
        status = s;
        headers = EXTRA_NAMES.map((n) => head.get(n));
        return true;
      },
      onData: (c) => {
        chunks.push(Buffer.from(c)); // valid during the call only (a view of the read buffer)
        return true;
      },
      onComplete: () => resolve({ status, body: Buffer.concat(chunks).toString('hex'), headers }),
      onError: () => resolve({ error: true }),
    };
    pool.dispatch({ method: 'GET', path: '/redfish/v1', headers: ['accept', 'application/json'], timeoutMs: 5000 }, h);
  });
}

const undici = createRequire(import.meta.url)('undici') as typeof import('undici');

async function viaUndici(client: import('undici').Client): Promise<Outcome> {
  try {
    const r = await client.request({ method: 'GET', path: '/redfish/v1', headers: { accept: 'application/json' } });
    // trimmed: a field value has no blanks around it (RFC 9110 5.5); undici keeps some trailing ones
    const headers = EXTRA_NAMES.map((n) => (r.headers[n] as string | undefined)?.trim());
    return { status: r.statusCode, body: Buffer.from(await r.body.arrayBuffer()).toString('hex'), headers };
  } catch {
    return { error: true };
  }
}

describe('HTTP/1.1 framing of the Redfish transport', () => {
  beforeAll(async () => {
    server = createServer(serve);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('reads every generated answer sequence as undici does, however it is cut', async () => {
    await fc.assert(
      fc.asyncProperty(sequence, async (c) => {
        current = c;
        const pool = new Http1Pool({ origin, connections: 1, connectTimeoutMs: 5000, keepAliveMs: 5000 });
        const ours: Outcome[] = [];
        for (let i = 0; i < c.answers.length; i++) ours.push(await viaHttp1(pool));
        await pool.destroy();
        const client = new undici.Client(origin, { pipelining: 1 });
        const theirs: Outcome[] = [];
        for (let i = 0; i < c.answers.length; i++) theirs.push(await viaUndici(client));
        await client.destroy();
        expect(ours).toEqual(theirs);
        // and each is what was sent
        expect(ours.map((o) => o.status)).toEqual(c.answers.map((a) => a.status));
      }),
      { numRuns: 150, seed: 16 },
    );
  });
});
