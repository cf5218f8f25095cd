/**
 * The client reads answers the way they come off the wire: whole in one read (decoded straight
 * from the transport's shared read buffer), or in pieces over several reads, cut anywhere (in a
 * multi-byte UTF-8 character too), larger than the read buffer, or chunked with a Content-Length
 * beside it. Each piece must be kept before the next read overwrites the buffer: the JSON read
 * back equals the JSON sent, answer after answer on one kept-alive connection.
 */
import { createServer, type Server, type Socket } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedfishClient } from './client.js';

/** What the server sends next: the bytes of an answer and where to cut them. */
let next: { bytes: Buffer; cuts: number[] } | undefined;
let server: Server;
let origin: string;

const pause = () => new Promise((r) => setTimeout(r, 2));

beforeAll(async () => {
  server = createServer((socket: Socket) => {
    let got = '';
    socket.on('data', async (d) => {
      got += d.toString('latin1');
      while (got.includes('\r\n\r\n')) {
        got = got.slice(got.indexOf('\r\n\r\n') + 4);
        const { bytes, cuts } = next!;
        let at = 0;
        for (const cut of [...cuts, bytes.length]) {
          if (cut <= at) continue;
          socket.write(bytes.subarray(at, cut));
          at = cut;
          await pause(); // a separate read on the client's side
        }
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

function answer(body: Buffer, framing: 'length' | 'chunked' | 'both'): Buffer {
  if (framing === 'length') return Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\ncontent-length: ${body.length}\r\n\r\n`), body]);
  const length = framing === 'both' ? `content-length: ${body.length}\r\n` : '';
  const half = body.length >> 1;
  const chunk = (b: Buffer) => (b.length ? [Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from('\r\n')] : []);
  return Buffer.concat([
    Buffer.from(`HTTP/1.1 200 OK\r\n${length}transfer-encoding: chunked\r\n\r\n`),
    ...chunk(body.subarray(0, half)),
    ...chunk(body.subarray(half)),
    Buffer.from('0\r\n\r\n'),
  ]);
}

const text = fc.string({ unit: fc.constantFrom('a', 'é', '€', '𝄞', '"', '\\', ' '), maxLength: 300 });

describe('the client reads answers cut anywhere', () => {
  it('returns the JSON sent, however the answer is cut and framed', async () => {
    const client = new RedfishClient({ origin, maxInFlight: 1, retries: 0 });
    try {
      await fc.assert(
        fc.asyncProperty(
          text,
          fc.constantFrom('length' as const, 'chunked' as const, 'both' as const),
          fc.array(fc.nat({ max: 2000 }), { maxLength: 4 }),
          async (value, framing, cuts) => {
            const doc = { '@odata.id': '/redfish/v1/X', Name: value };
            const bytes = answer(Buffer.from(JSON.stringify(doc), 'utf8'), framing);
            next = { bytes, cuts: cuts.map((c) => c % bytes.length).sort((a, b) => a - b) };
            expect(await client.get('/redfish/v1/X')).toEqual(doc);
          },
        ),
        { numRuns: 60 },
      );
    } finally {
      await client.close();
    }
  });

  it('returns a body larger than the read buffer, sent at once', async () => {
    const client = new RedfishClient({ origin, maxInFlight: 1, retries: 0 });
    try {
      const doc = { '@odata.id': '/redfish/v1/X', Pad: 'é'.repeat(100_000) };
      next = { bytes: answer(Buffer.from(JSON.stringify(doc), 'utf8'), 'length'), cuts: [] };
      expect(await client.get('/redfish/v1/X')).toEqual(doc);
      const small = { '@odata.id': '/redfish/v1/Y', Name: 'one read' };
      next = { bytes: answer(Buffer.from(JSON.stringify(small), 'utf8'), 'length'), cuts: [] };
      expect(await client.get('/redfish/v1/Y')).toEqual(small);
    } finally {
      await client.close();
    }
  });
});
