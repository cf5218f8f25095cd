/**
 * The Redfish transport's connections over time: a kept-alive connection outlives a request
 * timeout shorter than its keep-alive and is closed once the keep-alive passes, a request on a
 * reused connection still times out, and answers larger than one socket read (the shared read
 * buffer, 64 KiB) arrive whole. Timers fire late under load, never early: the checks wait for
 * what must happen and look for what must not have happened yet only well before it is due.
 */
import { createServer, Socket as NetSocket, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Handler, Http1Pool } from './http1.js';

interface Served {
  origin: string;
  server: Server;
  sockets: Socket[];
  closed: number;
}

/** A server that answers each request with `body(n)` (n counts requests), or not at all when it returns undefined. */
async function serve(body: (n: number) => string | undefined): Promise<Served> {
  const s: Served = { origin: '', server: createServer(), sockets: [], closed: 0 };
  let n = 0;
  s.server.on('connection', (socket) => {
    s.sockets.push(socket);
    socket.on('close', () => s.closed++);
    socket.on('error', () => undefined);
    let pending = '';
    socket.on('data', (d) => {
      pending += d.toString('latin1');
      while (pending.includes('\r\n\r\n')) {
        pending = pending.slice(pending.indexOf('\r\n\r\n') + 4);
        const b = body(n++);
        if (b !== undefined) socket.write(`HTTP/1.1 200 OK\r\ncontent-length: ${Buffer.byteLength(b)}\r\n\r\n${b}`);
      }
    });
  });
  await new Promise<void>((r) => s.server.listen(0, '127.0.0.1', r));
  s.origin = `http://127.0.0.1:${(s.server.address() as { port: number }).port}`;
  return s;
}

const HEADERS = ['accept', 'application/json'];

function get(pool: Http1Pool, timeoutMs: number, path = '/redfish/v1'): Promise<{ body?: string; code?: string }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const h: Handler = {
      onConnect: () => undefined,
      onHeaders: () => true,
      onData: (c) => {
        chunks.push(Buffer.from(c)); // valid during the call only (a view of the read buffer)
        return true;
      },
      onComplete: () => resolve({ body: Buffer.concat(chunks).toString('utf8') }),
      onError: (e) => resolve({ code: (e as { code?: string }).code }),
    };
    pool.dispatch({ method: 'GET', path, headers: HEADERS, timeoutMs }, h);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(check: () => boolean, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(10)) if (check()) return true;
  return check();
}

let open: { pool: Http1Pool; served: Served }[] = [];
afterEach(async () => {
  for (const { pool, served } of open) {
    await pool.destroy();
    for (const s of served.sockets) s.destroy();
    await new Promise((r) => served.server.close(r));
  }
  open = [];
});

async function setup(body: (n: number) => string | undefined, keepAliveMs: number) {
  const served = await serve(body);
  const pool = new Http1Pool({ origin: served.origin, connections: 1, connectTimeoutMs: 5000, keepAliveMs });
  open.push({ pool, served });
  return { pool, served };
}

describe('Redfish transport connections', () => {
  it('keeps an idle connection past a shorter request timeout and closes it after the keep-alive', async () => {
    const { pool, served } = await setup((n) => `{"n":${n}}`, 1500);
    expect(await get(pool, 100)).toEqual({ body: '{"n":0}' });
    await sleep(300); // three request timeouts idle: the connection is kept
    expect(served.closed).toBe(0);
    expect(await get(pool, 100)).toEqual({ body: '{"n":1}' });
    expect(served.sockets).toHaveLength(1);
    const idleFrom = Date.now();
    expect(await until(() => served.closed === 1, 10_000)).toBe(true);
    expect(Date.now() - idleFrom).toBeGreaterThanOrEqual(1400);
    expect(await get(pool, 100)).toEqual({ body: '{"n":2}' }); // a new connection
    expect(served.sockets).toHaveLength(2);
  });

  it('times out a request on a reused connection that gets no answer', async () => {
    const { pool } = await setup((n) => (n === 0 ? '{}' : undefined), 30_000);
    expect(await get(pool, 200)).toEqual({ body: '{}' });
    const t = Date.now();
    expect(await get(pool, 200)).toEqual({ code: 'UND_ERR_HEADERS_TIMEOUT' });
    expect(Date.now() - t).toBeGreaterThanOrEqual(190);
  });

  it('keeps no timer per request or per connection: one watchdog looks at them all (work count)', async () => {
    const { pool, served } = await setup((n) => `{"n":${n}}`, 30_000);
    const socketTimers = vi.spyOn(NetSocket.prototype, 'setTimeout');
    const intervals = vi.spyOn(globalThis, 'setInterval');
    try {
      for (let n = 0; n < 50; n++) expect(await get(pool, 5000)).toEqual({ body: `{"n":${n}}` });
      // a socket timer is moved by every read and write; the watchdog is started once, when the connection opens
      expect(socketTimers).not.toHaveBeenCalled();
      expect(intervals.mock.calls.length).toBeLessThanOrEqual(1);
    } finally {
      socketTimers.mockRestore();
      intervals.mockRestore();
    }
    expect(served.sockets).toHaveLength(1);
  });

  it('times out an answer whose body stops coming', async () => {
    const served = await new Promise<Served>((resolve) => {
      const s: Served = { origin: '', server: createServer(), sockets: [], closed: 0 };
      s.server.on('connection', (socket) => {
        s.sockets.push(socket);
        socket.on('error', () => undefined);
        socket.once('data', () => socket.write('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n{"half":'));
      });
      s.server.listen(0, '127.0.0.1', () => {
        s.origin = `http://127.0.0.1:${(s.server.address() as { port: number }).port}`;
        resolve(s);
      });
    });
    const pool = new Http1Pool({ origin: served.origin, connections: 1, connectTimeoutMs: 5000, keepAliveMs: 30_000 });
    open.push({ pool, served });
    const t = Date.now();
    expect(await get(pool, 150)).toEqual({ code: 'UND_ERR_BODY_TIMEOUT' });
    expect(Date.now() - t).toBeGreaterThanOrEqual(140);
  });

  it('refuses a path holding CR, LF or NUL with headers already sent before (no request splitting)', async () => {
    const { pool, served } = await setup(() => '{}', 30_000);
    expect(await get(pool, 5000)).toEqual({ body: '{}' });
    for (const bad of ['/a\r\nx-injected: 1', '/a\nb', '/a\0b'])
      expect(await get(pool, 5000, bad)).toEqual({ code: 'UND_ERR_INVALID_ARG' });
    expect(await get(pool, 5000)).toEqual({ body: '{}' });
    expect(served.sockets).toHaveLength(1);
  });

  it('reads answers larger than one socket read whole, one after another on one connection', async () => {
    const big = (n: number) => JSON.stringify({ n, pad: 'x'.repeat(200_000 + n * 70_001) });
    const { pool, served } = await setup(big, 30_000);
    for (let n = 0; n < 3; n++) expect(await get(pool, 5000)).toEqual({ body: big(n) });
    expect(served.sockets).toHaveLength(1);
  });
});
