/**
 * The HTTP/1.1 transport of the Redfish client: keep-alive connections to one origin over
 * node:net or node:tls, one request at a time per connection, answers framed by
 * Content-Length, chunked Transfer-Encoding or the connection's close. Nothing else: no
 * proxies, HTTP/2, pipelining, compression or streaming uploads (a BMC client sends GETs, a
 * session login and a logout).
 *
 * Why not undici: a crawl is thousands of tiny requests, and undici's general machinery
 * (request objects, llhttp in WebAssembly, its timers and queues) cost ~0.18 ms of CPU per
 * request on loopback, more than discovery's whole budget (0.15 ms per request, issue 16); this
 * costs ~0.07 ms (bench/bmh-from-redfish.ts prints the figures). The framing is checked against
 * undici by a differential test (http1-framing.test.ts) over generated answers cut at random.
 *
 * The handler interface is undici's (onConnect / onHeaders / onData / onComplete / onError):
 * exactly one of onComplete and onError is called, unless the handler aborted. Errors carry
 * undici's codes for timeouts and lost connections (UND_ERR_HEADERS_TIMEOUT,
 * UND_ERR_BODY_TIMEOUT, UND_ERR_CONNECT_TIMEOUT, UND_ERR_SOCKET), Node's for the rest.
 */
import net from 'node:net';
import type tls from 'node:tls';
import { lazy } from '../krm/index.js';

export interface Handler {
  onConnect(abort: (e: Error) => void): void;
  /**
   * The headers (read when asked), with what the transport read of them already: the
   * Content-Length declared (undefined: none) and whether it frames the body (no
   * Transfer-Encoding, a body expected). False: stop (the handler aborted).
   */
  onHeaders(status: number, head: ResponseHead, contentLength: number | undefined, framedByLength: boolean): boolean;
  /**
   * Body bytes. The chunk is valid during this call only: it may be a view of the connection's
   * read buffer, which the next read overwrites (copy what you keep).
   */
  onData(chunk: Buffer): boolean;
  onComplete(): void;
  onError(e: Error): void;
}

export interface RequestOptions {
  method: string;
  path: string;
  /** name, value, name, value ... */
  headers: string[];
  body?: string;
  /** no complete head within this, and no body byte for this long: an error */
  timeoutMs: number;
}

export interface Http1Options {
  /** the origin, or its URL already parsed (by the client, for one parse per BMC) */
  origin: string | URL;
  /** idle connections kept open (more are opened when needed, and closed after use) */
  connections: number;
  /** the TLS settings of an https origin (its secure context, verification); absent: plain TCP */
  tls?: { secureContext: tls.SecureContext; rejectUnauthorized: boolean };
  connectTimeoutMs: number;
  /** an idle connection is closed after this long */
  keepAliveMs: number;
}

/** An error with a code, as undici and Node give them. */
export class TransportError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

/** Largest response head accepted (status line and headers). */
const MAX_HEAD = 64 << 10;
const CRLF2 = Buffer.from('\r\n\r\n');
const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: |$)/;
/** a header name or value that would split the request (CR, LF, NUL) */
const UNSAFE = /[\r\n\0]/;

const tlsLib = lazy(() => require('node:tls') as typeof import('node:tls'), 'node:tls', import.meta.url);

/**
 * The buffer every plain-TCP connection reads into: one event loop, and a read is handled (its
 * head parsed, its body handed to the handler, which copies what it keeps) before the next.
 */
let shared: Buffer | undefined;
const readBuffer = () => (shared ??= Buffer.allocUnsafe(64 << 10));

/** Keep-alive connections to one origin. */
export class Http1Pool {
  readonly #host: string;
  readonly #port: number;
  readonly #hostHeader: string;
  readonly #opts: Http1Options;
  readonly #idle: Connection[] = [];
  readonly #busy = new Set<Connection>();
  #closed = false;
  /**
   * header arrays already checked for CR/LF, and their lines (host first) as sent: the client
   * reuses one array per session, so a request's head is its request line and these
   */
  readonly #lines = new WeakMap<string[], string>();

  constructor(opts: Http1Options) {
    const u = typeof opts.origin === 'string' ? new URL(opts.origin) : opts.origin;
    this.#opts = opts;
    this.#host = u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname;
    this.#port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
    this.#hostHeader = u.host;
  }

  dispatch(req: RequestOptions, handler: Handler): void {
    if (this.#closed) {
      handler.onError(new TransportError('the client is closed', 'UND_ERR_CLOSED'));
      return;
    }
    if ((!this.#lines.has(req.headers) && req.headers.some((h) => UNSAFE.test(h))) || UNSAFE.test(req.path)) {
      handler.onError(new TransportError('a request header or path holds CR, LF or NUL', 'UND_ERR_INVALID_ARG'));
      return;
    }
    const head = this.#head(req);
    const reused = this.#idle.pop();
    const conn = reused ?? new Connection(this, (onRead) => this.#connect(onRead));
    this.#busy.add(conn);
    conn.send(head, req, handler, !!reused);
  }

  #head(req: RequestOptions): string {
    let lines = this.#lines.get(req.headers);
    if (lines === undefined) {
      lines = `host: ${this.#hostHeader}\r\n`;
      const h = req.headers;
      for (let i = 0; i + 1 < h.length; i += 2) lines += `${h[i]}: ${h[i + 1]}\r\n`;
      this.#lines.set(req.headers, lines);
    }
    const s = `${req.method} ${req.path} HTTP/1.1\r\n${lines}`;
    if (req.body === undefined) return s + '\r\n';
    return `${s}content-length: ${Buffer.byteLength(req.body)}\r\n\r\n${req.body}`;
  }

  /**
   * A socket to the origin. Plain TCP reads into one buffer shared by every connection
   * (`onread`), handing `onRead` a view of what came: no allocation or copy per read and no
   * Readable stream machinery (what is kept past the call is copied: a partial head or chunk
   * line here, the body by the handler). TLS sockets emit 'data' as usual (`onRead` unused).
   */
  #connect(onRead: (d: Buffer) => void): net.Socket {
    const t = this.#opts.tls;
    const socket = t
      ? tlsLib().connect({
          host: this.#host,
          port: this.#port,
          secureContext: t.secureContext,
          rejectUnauthorized: t.rejectUnauthorized,
          // SNI only for names (RFC 6066 forbids IP literals)
          ...(net.isIP(this.#host) ? {} : { servername: this.#host }),
        })
      : net.connect({
          host: this.#host,
          port: this.#port,
          onread: {
            buffer: readBuffer(),
            callback: (n: number) => {
              onRead(readBuffer().subarray(0, n));
              return true; // false would pause the socket
            },
          },
        });
    socket.setNoDelay(true);
    return socket;
  }

  /** A new connection for a request whose kept-alive connection turned out closed. */
  retryFresh(head: string, req: RequestOptions, handler: Handler): void {
    if (this.#closed) {
      handler.onError(new TransportError('other side closed', 'UND_ERR_SOCKET'));
      return;
    }
    const conn = new Connection(this, (onRead) => this.#connect(onRead));
    this.#busy.add(conn);
    conn.send(head, req, handler, false);
  }

  /** A connection finished its request: kept for the next one, or closed. */
  release(conn: Connection, reusable: boolean): void {
    this.#busy.delete(conn);
    if (reusable && !this.#closed && this.#idle.length < this.#opts.connections) {
      this.#idle.push(conn);
      conn.idle(this.#opts.keepAliveMs);
    } else conn.destroy();
  }

  /** A connection closed while idle (the server's keep-alive timeout, or ours). */
  dropIdle(conn: Connection): void {
    const i = this.#idle.indexOf(conn);
    if (i >= 0) this.#idle.splice(i, 1);
  }

  get connectTimeoutMs(): number {
    return this.#opts.connectTimeoutMs;
  }

  /** Closes idle connections now and the others when their request ends. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const c of this.#idle.splice(0)) c.destroy();
  }

  /** Closes every connection now; requests in flight fail. */
  async destroy(): Promise<void> {
    this.#closed = true;
    for (const c of this.#idle.splice(0)) c.destroy();
    for (const c of [...this.#busy]) c.fail(new TransportError('the client was destroyed', 'UND_ERR_DESTROYED'));
  }
}

type BodyMode = 'none' | 'length' | 'chunked' | 'close';

/**
 * A cursor over the header lines of a response head: `name: value`, both trimmed; a line without
 * a colon, or starting with one, is skipped. One pass, no array of lines, and the value made into
 * a string only when asked for. (Native string operations, not loops over characters: this code
 * runs unoptimised in a crawl, where a loop over characters costs more than the strings it saves.)
 */
class HeaderLines {
  #start: number;
  /** the next colon at or after the current line, looked up again only once passed: linear in the head */
  #colon = -1;
  #eol = 0;
  /** the current header's name, trimmed */
  name = '';

  /** `from`: where the first header line starts (after the status line's CRLF) */
  constructor(
    readonly text: string,
    from: number,
  ) {
    this.#start = from;
  }

  next(): boolean {
    const head = this.text;
    for (let start = this.#start; start <= head.length; start = this.#start) {
      let eol = head.indexOf('\r\n', start);
      if (eol < 0) eol = head.length;
      this.#start = eol + 2;
      if (this.#colon < start) this.#colon = head.indexOf(':', start);
      const colon = this.#colon;
      if (colon <= start || colon > eol) {
        if (colon < 0) return false; // no header line left
        continue;
      }
      this.name = head.slice(start, colon).trim();
      this.#eol = eol;
      return true;
    }
    return false;
  }

  /** The current header's name is `lower` (a lowercase name), in any case. */
  nameIs(lower: string): boolean {
    return this.name.length === lower.length && this.name.toLowerCase() === lower;
  }

  value(): string {
    return this.text.slice(this.#colon + 1, this.#eol).trim();
  }
}

/** A response's headers, made into strings only when asked for (most answers are only framed). */
export class ResponseHead {
  constructor(
    readonly text: string,
    /** where the header lines start */
    readonly from: number,
  ) {}

  /** The first header of that name (given in lowercase), or undefined. */
  get(name: string): string | undefined {
    const lines = new HeaderLines(this.text, this.from);
    while (lines.next()) if (lines.nameIs(name)) return lines.value();
    return undefined;
  }

  /** name, value, name, value ... */
  raw(): string[] {
    const out: string[] = [];
    const lines = new HeaderLines(this.text, this.from);
    while (lines.next()) out.push(lines.name, lines.value());
    return out;
  }
}

/**
 * One timer for the timeouts of every connection. A socket timer (socket.setTimeout) is moved
 * in Node's timer list by every read and write, a clock read and two list moves per request
 * (~10% of a crawl's instructions per request); here a read or write sets a flag, and the
 * watchdog looks at each connection every eighth of the shortest limit it watches (at least every
 * 100 ms): one found quiet for its limit (since the look that last saw it stir) has timed out. A
 * timeout fires late by up to a quarter of its limit and at most 0.2 s (a BMC's deadline, which
 * caps the request timeout, is kept that closely), never early.
 */
class Watchdog {
  readonly #watched = new Set<Connection>();
  #timer: NodeJS.Timeout | undefined;
  #periodMs = Number.POSITIVE_INFINITY;

  /** Watches `c`, whose limit is now `limitMs`: the looks come often enough for it. */
  watch(c: Connection, limitMs: number): void {
    this.#watched.add(c);
    const period = Math.min(MAX_LOOK_MS, Math.max(MIN_LOOK_MS, Math.floor(limitMs / 8)));
    if (period >= this.#periodMs) return;
    this.#periodMs = period;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = setInterval(() => this.#look(), period).unref();
  }

  unwatch(c: Connection): void {
    if (!this.#watched.delete(c) || this.#watched.size) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#periodMs = Number.POSITIVE_INFINITY;
  }

  #look(): void {
    const now = Date.now();
    for (const c of this.#watched) c.look(now);
  }
}

/** The watchdog's shortest period: limits below 8 ms are checked every 1 ms. */
const MIN_LOOK_MS = 1;
/** ... and the longest: every connection is looked at ten times a second at least */
const MAX_LOOK_MS = 100;
const watchdog = new Watchdog();

/** One connection and the response it is reading. */
class Connection {
  #handler: Handler | undefined;
  #req: RequestOptions | undefined;
  #head = '';
  #reused = false;
  #connected = false;
  /** bytes of the response head read so far */
  #buf: Buffer | undefined;
  #phase: 'idle' | 'head' | 'body' = 'idle';
  #mode: BodyMode = 'none';
  /** body bytes left (length), or of the current chunk (chunked) */
  #left = 0;
  /** chunked: reading a size line, a chunk's data, the CRLF after it, or the trailers */
  #chunkState: 'size' | 'data' | 'crlf' | 'trailers' = 'size';
  #keepAlive = true;
  #gotBytes = false;
  /** how long the connection may stay without a read or write now (the connect or request timeout) */
  #limitMs = 0;
  /** a read or write since the watchdog last looked */
  #stirred = false;
  /** when the watchdog last saw it stir (or when it was opened) */
  #quietSince = 0;
  /** since when the connection is idle, and for how long it may stay so */
  #idleSince = 0;
  #keepAliveMs = 0;
  readonly socket: net.Socket;
  /** what a handler calls to abort its request: made once, not per request */
  readonly #abortRequest = (e: Error) => this.#abort(e);

  constructor(
    readonly pool: Http1Pool,
    open: (onRead: (d: Buffer) => void) => net.Socket,
  ) {
    const socket = open((d) => this.#onData(d));
    this.socket = socket;
    const encrypted = 'encrypted' in socket;
    if (encrypted) socket.on('data', (d: Buffer) => this.#onData(d));
    socket.on('error', (e: Error) => this.#onClose(e));
    socket.on('close', () => this.#onClose(undefined));
    socket.once(encrypted ? 'secureConnect' : 'connect', () => {
      this.#connected = true;
      this.#stirred = true;
      if (this.#phase === 'head') this.#limit(this.#req!.timeoutMs);
    });
    this.#quietSince = Date.now();
    this.#limit(pool.connectTimeoutMs);
  }

  /** The limit without a read or write from now on (a change only when it differs). */
  #limit(ms: number): void {
    if (ms === this.#limitMs) return;
    this.#limitMs = ms;
    watchdog.watch(this, ms);
  }

  /** The watchdog's look, at `now`: a connection quiet for its limit has timed out (an idle one past its keep-alive is closed). */
  look(now: number): void {
    if (this.#stirred) {
      this.#stirred = false;
      this.#quietSince = now;
    } else if (this.#phase === 'idle') {
      if (now - this.#idleSince < this.#keepAliveMs) return;
      watchdog.unwatch(this);
      this.pool.dropIdle(this);
      this.socket.destroy();
    } else if (now - this.#quietSince >= this.#limitMs) this.#onTimeout();
  }

  send(head: string, req: RequestOptions, handler: Handler, reused: boolean): void {
    this.#handler = handler;
    this.#req = req;
    this.#head = head;
    this.#reused = reused;
    this.#phase = 'head';
    this.#buf = undefined;
    this.#gotBytes = false;
    this.#keepAlive = true;
    this.#stirred = true;
    if (this.#connected) this.#limit(req.timeoutMs);
    handler.onConnect(this.#abortRequest);
    this.socket.write(head, 'latin1');
  }

  /** Idle: closed after `keepAliveMs` without use (checked at the watchdog's looks). */
  idle(keepAliveMs: number): void {
    this.#phase = 'idle';
    this.#handler = undefined;
    this.#req = undefined;
    this.#idleSince = Date.now();
    this.#keepAliveMs = keepAliveMs;
    if (keepAliveMs < this.#limitMs) watchdog.watch(this, keepAliveMs); // looked at often enough for it
  }

  destroy(): void {
    this.#handler = undefined;
    watchdog.unwatch(this);
    this.socket.destroy();
  }

  /** Ends the request in flight with `e` and the connection with it. */
  fail(e: Error): void {
    const h = this.#handler;
    this.#finish(false);
    h?.onError(e);
  }

  #abort(_e: Error): void {
    // the handler has reported its own error: no more callbacks
    this.#handler = undefined;
    this.#finish(false);
  }

  /** The request is over: the connection goes back to the pool or is closed. */
  #finish(reusable: boolean): void {
    this.#handler = undefined;
    this.#phase = 'idle';
    this.pool.release(this, reusable && this.#keepAlive);
  }

  #onTimeout(): void {
    const code = !this.#connected ? 'UND_ERR_CONNECT_TIMEOUT' : this.#phase === 'head' ? 'UND_ERR_HEADERS_TIMEOUT' : 'UND_ERR_BODY_TIMEOUT';
    this.fail(new TransportError(`${code === 'UND_ERR_BODY_TIMEOUT' ? 'body' : 'headers'} timeout`, code));
  }

  #onClose(e: Error | undefined): void {
    watchdog.unwatch(this);
    if (this.#phase === 'idle') return void this.pool.dropIdle(this);
    const h = this.#handler;
    if (!h) return;
    if (this.#phase === 'body' && this.#mode === 'close' && !e) {
      this.#finish(false);
      h.onComplete();
      return;
    }
    // a kept-alive connection the server had closed: the request was never read, send it again
    if (this.#reused && !this.#gotBytes && this.#req!.method !== 'POST') {
      this.#handler = undefined;
      this.#phase = 'idle';
      this.pool.release(this, false);
      this.pool.retryFresh(this.#head, this.#req!, h);
      return;
    }
    this.fail(e ?? new TransportError('other side closed', 'UND_ERR_SOCKET'));
  }

  #onData(d: Buffer): void {
    this.#gotBytes = true;
    this.#stirred = true;
    if (!this.#handler) return void (this.#phase === 'idle' && this.socket.destroy()); // bytes nobody asked for
    if (this.#phase === 'head') {
      const buf = this.#buf ? Buffer.concat([this.#buf, d]) : d;
      const end = buf.indexOf(CRLF2, this.#buf ? Math.max(0, this.#buf.length - 3) : 0);
      if (end < 0) {
        if (buf.length > MAX_HEAD) {
          this.fail(new TransportError('response head too large', 'UND_ERR_HEADERS_OVERFLOW'));
          return;
        }
        this.#buf = buf === d ? Buffer.from(d) : buf; // kept past this read: a copy (concat made one already)
        return;
      }
      this.#buf = undefined;
      const rest = this.#parseHead(buf.toString('latin1', 0, end));
      if (rest === false) return;
      // a 1xx answer: the real one follows
      if (rest === 'again') this.#onData(buf.subarray(end + 4));
      else this.#body(buf.subarray(end + 4));
      return;
    }
    this.#body(d);
  }

  /** Parses a response head; false when the request ended here, 'again' for a 1xx. */
  #parseHead(head: string): true | false | 'again' {
    let eol = head.indexOf('\r\n');
    if (eol < 0) eol = head.length;
    const m = STATUS_LINE.exec(eol === head.length ? head : head.slice(0, eol));
    if (!m) {
      this.fail(new TransportError('invalid HTTP response', 'HPE_INVALID_CONSTANT'));
      return false;
    }
    const status = Number(m[2]);
    if (status >= 100 && status < 200 && status !== 101) return 'again';
    let length: number | undefined;
    let chunked = false;
    let connection = '';
    // only the headers that frame the answer are made into strings here
    const lines = new HeaderLines(head, eol + 2);
    while (lines.next()) {
      const n = lines.name.length;
      if (n !== 14 && n !== 17 && n !== 10) continue; // not one of the three
      if (lines.nameIs('content-length')) {
        const value = lines.value();
        const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
        if (Number.isNaN(n) || (length !== undefined && length !== n)) {
          this.fail(new TransportError('invalid Content-Length', 'HPE_INVALID_CONTENT_LENGTH'));
          return false;
        }
        length = n;
      } else if (lines.nameIs('transfer-encoding')) chunked = /(?:^|,)\s*chunked\s*$/i.test(lines.value());
      else if (lines.nameIs('connection')) connection = lines.value().toLowerCase();
    }
    this.#keepAlive = m[1] === '1' ? !/\bclose\b/.test(connection) : /\bkeep-alive\b/.test(connection);
    const noBody = this.#req!.method === 'HEAD' || status === 204 || status === 304;
    this.#mode = noBody ? 'none' : chunked ? 'chunked' : length !== undefined ? 'length' : 'close';
    if (this.#mode === 'close') this.#keepAlive = false;
    this.#left = length ?? 0;
    this.#chunkState = 'size';
    this.#phase = 'body';
    const h = this.#handler!;
    if (!h.onHeaders(status, new ResponseHead(head, eol + 2), length, this.#mode === 'length') || this.#handler !== h) return false;
    return true;
  }

  /** Body bytes: handed on as they come, framed by the mode. */
  #body(d: Buffer): void {
    const h = this.#handler;
    if (!h) return;
    switch (this.#mode) {
      case 'none':
        this.#finish(d.length === 0);
        h.onComplete();
        return;
      case 'close':
        if (d.length) h.onData(d);
        return;
      case 'length': {
        const take = d.length > this.#left ? d.subarray(0, this.#left) : d;
        this.#left -= take.length;
        if (take.length && (!h.onData(take) || this.#handler !== h)) return;
        if (this.#left > 0) return;
        // bytes past the body: the server is out of step; this connection is not reused
        this.#finish(d.length === take.length);
        h.onComplete();
        return;
      }
      case 'chunked':
        this.#chunks(d, h);
        return;
    }
  }

  /** Chunked transfer coding: size lines (extensions ignored), data, CRLF, then trailers up to an empty line. */
  #chunks(input: Buffer, h: Handler): void {
    let d = this.#buf ? Buffer.concat([this.#buf, input]) : input;
    this.#buf = undefined;
    while (d.length) {
      if (this.#chunkState === 'data') {
        const take = d.length > this.#left ? d.subarray(0, this.#left) : d;
        this.#left -= take.length;
        d = d.subarray(take.length);
        if (!h.onData(take) || this.#handler !== h) return;
        if (this.#left === 0) this.#chunkState = 'crlf';
        continue;
      }
      const nl = d.indexOf(10);
      if (nl < 0) {
        if (d.length > MAX_HEAD) {
          this.fail(new TransportError('chunk line too long', 'HPE_INVALID_CHUNK_SIZE'));
          return;
        }
        this.#buf = Buffer.from(d); // kept past this read: a copy
        return;
      }
      const line = d.toString('latin1', 0, nl).replace(/\r$/, '');
      d = d.subarray(nl + 1);
      if (this.#chunkState === 'crlf') {
        if (line !== '') {
          this.fail(new TransportError('invalid chunk end', 'HPE_STRICT'));
          return;
        }
        this.#chunkState = 'size';
      } else if (this.#chunkState === 'size') {
        const size = /^([0-9a-fA-F]{1,12})[ \t]*(?:;.*)?$/.exec(line);
        if (!size) {
          this.fail(new TransportError('invalid chunk size', 'HPE_INVALID_CHUNK_SIZE'));
          return;
        }
        this.#left = Number.parseInt(size[1]!, 16);
        this.#chunkState = this.#left === 0 ? 'trailers' : 'data';
      } else if (line === '') {
        // the end of the trailers: the answer is complete
        this.#finish(d.length === 0);
        h.onComplete();
        return;
      }
    }
  }
}
