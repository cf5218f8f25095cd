/**
 * A small read-only Redfish client on its own HTTP/1.1 transport (http1.ts): keep-alive connections per BMC, per-request
 * timeout, retries with exponential backoff on 5xx and connection errors, Basic auth (default)
 * or a session with guaranteed logout, TLS verified unless told otherwise, capped response
 * size, no credentials sent to a redirect on another origin, and a request counter.
 * Nothing it throws or logs contains the credentials.
 */
import type { SecureContext } from 'node:tls';
import { lazy } from '../krm/index.js';
import { type Handler, Http1Pool, type ResponseHead } from './http1.js';

export interface Credentials {
  username: string;
  password: string;
}

export interface ClientOptions {
  /** origin, `https://10.0.0.5` or `https://host:8443` */
  origin: string;
  credentials?: Credentials;
  /** `basic` (default): every request carries Basic auth; `session`: log in once, log out at close */
  auth?: 'basic' | 'session';
  /** per-request timeout (headers and body), ms; default 10000 */
  timeoutMs?: number;
  /** retries after the first attempt on 5xx / connection errors; default 2 */
  retries?: number;
  /** first backoff, doubled each retry; default 200 ms */
  backoffMs?: number;
  insecureSkipVerify?: boolean;
  /** PEM CA bundle to trust instead of the system store */
  ca?: string;
  /** largest accepted body, bytes; default 8 MiB */
  maxBodyBytes?: number;
  /** requests in flight to this BMC at once; default 4 */
  maxInFlight?: number;
  /** most response bytes read from this BMC in all (a crawl reads ~0.1-1 MiB); default 64 MiB */
  maxTotalBytes?: number;
  /** the whole conversation with this BMC ends by then, ms from construction; default none */
  deadlineMs?: number;
}

export class RedfishError extends Error {
  constructor(
    message: string,
    /** HTTP status, or 0 for transport errors */
    readonly status: number,
    readonly path: string,
  ) {
    super(message);
  }
}

/**
 * A per-BMC budget is spent (total bytes, deadline, or a collection's bytes or members): the
 * crawl of that BMC stops with this one error, never recorded as a "missing" resource.
 */
export class BudgetError extends RedfishError {
  constructor(message: string, path: string) {
    super(message, -2, path);
  }
}

/** `/redfish/v1/Systems/1/` or `/redfish/v1/systems/1#/Foo` -> `/redfish/v1/Systems/1` (fragment and trailing slash gone, prefix case fixed). */
const CANONICAL = /^\/redfish\/v1(?:\/[^/#?\s]+)*$/;

export function normalizePath(p: string): string {
  if (CANONICAL.test(p)) return p; // the common case: nothing to fix
  let s = p.trim();
  try {
    if (/^https?:\/\//i.test(s)) s = new URL(s).pathname + new URL(s).search;
  } catch {
    /* keep as is */
  }
  const hash = s.indexOf('#');
  if (hash >= 0) s = s.slice(0, hash);
  s = s.replace(/\/{2,}/g, '/');
  if (s.length > 1) s = s.replace(/\/+$/, '');
  s = s.replace(/^\/redfish\/v1(?=\/|$)/i, '/redfish/v1');
  if (!s.startsWith('/')) s = '/' + s;
  return s;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A semaphore: at most `n` callers inside at once. A leaving caller hands its slot straight to
 * the first waiter, so a caller arriving in between cannot slip in and make it n + 1.
 */
export class Limiter {
  #active = 0;
  #queue: (() => void)[] = [];
  #head = 0;
  constructor(readonly n: number) {}

  /** A slot now (true: the caller holds it), or false: `wait()` for one. */
  tryEnter(): boolean {
    if (this.#active >= this.n) return false;
    this.#active++;
    return true;
  }

  /** Resolves once the caller holds a slot (after `tryEnter()` said false). */
  wait(): Promise<void> {
    return new Promise<void>((r) => this.#queue.push(r));
  }

  /** The caller gives its slot up: to the first waiter, if any. */
  leave(): void {
    if (this.#head < this.#queue.length) {
      const next = this.#queue[this.#head]!;
      this.#queue[this.#head++] = undefined as never;
      if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
        this.#queue = this.#queue.slice(this.#head);
        this.#head = 0;
      }
      next();
    } else this.#active--;
  }

  async run<T>(f: () => Promise<T>): Promise<T> {
    if (!this.tryEnter()) await this.wait(); // woken holding a slot
    try {
      return await f();
    } finally {
      this.leave();
    }
  }
}

const tls = lazy(() => require('node:tls') as typeof import('node:tls'), 'node:tls', import.meta.url);

/**
 * One TLS SecureContext (the CA store, parsed once) per CA setting, shared by every BMC client:
 * without it Node builds a context per connection (~1 ms with a CA bundle). No TLS session
 * cache: a crawl opens its few connections to a BMC at once, before any session exists to
 * resume (and a cache keyed by host offered BMCs behind one address each other's sessions).
 */
const contexts = new Map<string, SecureContext>();
function secureContext(ca: string | undefined): SecureContext {
  const key = ca ?? '';
  let c = contexts.get(key);
  if (!c) contexts.set(key, (c = tls().createSecureContext(ca ? { ca } : {})));
  return c;
}

interface RawResponse {
  status: number;
  head: ResponseHead;
  /** the body, decoded as UTF-8 */
  text: string;
  /** its size in bytes */
  size: number;
}

/** One header (the first of that name, given in lowercase), or undefined. */
const header = (r: RawResponse, name: string) => r.head.get(name);

const ACCEPT = ['accept', 'application/json', 'odata-version', '4.0'];

const ok = (status: number) => status >= 200 && status < 300;

function retryable(status: number): boolean {
  return status === 0 || (status >= 500 && status !== 501);
}

export class RedfishClient {
  /** GET requests answered (each retry and redirect counts) */
  requests = 0;
  /** response body bytes read (every request) */
  bytes = 0;
  /**
   * wall-clock ms after which no request of the crawl is started (Infinity: none). With session
   * auth it comes before the BMC's deadline by the time a logout may take, so that the logout
   * too is sent and answered within the deadline.
   */
  readonly deadline: number;
  /** the BMC's deadline itself: nothing at all (logout included) is sent to this BMC after it */
  readonly #hardDeadline: number;
  readonly origin: string;
  #opts: Required<Omit<ClientOptions, 'credentials' | 'ca'>> & Pick<ClientOptions, 'credentials' | 'ca'>;
  #pool: Http1Pool;
  #limiter: Limiter;
  /** the headers of a GET (accept, OData version, Basic auth or the session token), built once per session */
  #getHeaders: string[] = ACCEPT;
  #token: string | undefined;
  /** the login in flight (shared by every caller), undefined otherwise: a failed login is never cached */
  #login: Promise<void> | undefined;
  /** session generation: incremented by each successful login */
  #gen = 0;
  /** the current session has answered an authenticated request with 2xx (a 401 on a fresh session means "forbidden", not "expired") */
  #proven = false;
  /** every session created and not yet logged out (token -> session URI), so close() logs out all of them */
  #sessions = new Map<string, string | undefined>();
  /** every session token this client was given: scrubbed from anything reported (secrets()) */
  #tokens: string[] = [];
  /** logouts of replaced sessions, awaited by close() */
  #logouts: Promise<void>[] = [];

  constructor(opts: ClientOptions) {
    const u = new URL(opts.origin);
    this.origin = u.origin;
    this.#hardDeadline = opts.deadlineMs === undefined ? Infinity : Date.now() + opts.deadlineMs;
    const logoutReserve =
      opts.auth === 'session' && opts.credentials && opts.deadlineMs !== undefined
        ? Math.min(opts.timeoutMs ?? 10_000, opts.deadlineMs / 4)
        : 0;
    this.deadline = this.#hardDeadline - logoutReserve;
    this.#opts = {
      auth: 'basic',
      maxTotalBytes: 64 << 20,
      deadlineMs: 0,
      timeoutMs: 10_000,
      retries: 2,
      backoffMs: 200,
      insecureSkipVerify: false,
      maxBodyBytes: 8 << 20,
      maxInFlight: 4,
      ...opts,
    };
    // One keep-alive connection per request in flight, to this BMC only. Timeouts: the
    // connection's (connect, head, body idle) plus a deadline checked as data arrives: no timer
    // or AbortSignal is created per request.
    const https = this.origin.startsWith('https:');
    this.#pool = new Http1Pool({
      origin: u,
      connections: this.#opts.maxInFlight,
      keepAliveMs: 30_000,
      connectTimeoutMs: this.#opts.timeoutMs,
      tls: https ? { secureContext: secureContext(this.#opts.ca), rejectUnauthorized: !this.#opts.insecureSkipVerify } : undefined,
    });
    this.#limiter = new Limiter(this.#opts.maxInFlight);
    this.#setGetHeaders();
  }

  /** The GET headers for the credentials and session in use now. */
  #setGetHeaders(): void {
    const c = this.#opts.credentials;
    if (!c) this.#getHeaders = ACCEPT;
    else if (this.#opts.auth === 'session') this.#getHeaders = this.#token ? [...ACCEPT, 'x-auth-token', this.#token] : ACCEPT;
    else this.#getHeaders = [...ACCEPT, 'authorization', 'Basic ' + Buffer.from(`${c.username}:${c.password}`).toString('base64')];
  }

  async #ensureSession(): Promise<void> {
    if (this.#opts.auth !== 'session' || !this.#opts.credentials || this.#token) return;
    this.#login ??= this.#doLogin().finally(() => {
      this.#login = undefined;
    });
    await this.#login;
  }

  /** POST a session, retried like a GET on 5xx / transport errors (with backoff); never a 401. */
  async #doLogin(): Promise<void> {
    const c = this.#opts.credentials!;
    const path = '/redfish/v1/SessionService/Sessions';
    const body = JSON.stringify({ UserName: c.username, Password: c.password });
    let r: RawResponse | undefined;
    for (let attempt = 0; ; attempt++) {
      if (attempt > 0) await sleep(this.#opts.backoffMs * 2 ** (attempt - 1));
      try {
        r = await this.#raw('POST', path, [...ACCEPT, 'content-type', 'application/json'], body);
      } catch (e) {
        if (e instanceof RedfishError && retryable(e.status) && attempt < this.#opts.retries) continue;
        throw e instanceof RedfishError ? new RedfishError(`session login: ${e.message}`, e.status, path) : e;
      }
      if (ok(r.status) || !retryable(r.status) || attempt >= this.#opts.retries) break;
    }
    // any 2xx that carries a token: 201 Created is the standard answer, 200 and 204 No Content are common
    if (!ok(r.status))
      throw new RedfishError(
        `session login refused: HTTP ${r.status}${r.status === 503 ? ' (the BMC has no free session; close others or use Basic auth)' : ''}`,
        r.status,
        path,
      );
    const token = header(r, 'x-auth-token');
    if (!token) throw new RedfishError('session login answered without X-Auth-Token', r.status, path);
    this.#tokens.push(token);
    let uri: string | undefined;
    const loc = header(r, 'location');
    if (loc) uri = normalizePath(loc);
    else {
      try {
        const j = JSON.parse(r.text) as Record<string, unknown>;
        if (typeof j['@odata.id'] === 'string') uri = normalizePath(j['@odata.id']);
      } catch {
        /* no body */
      }
    }
    this.#sessions.set(token, uri);
    this.#token = token;
    this.#setGetHeaders();
    this.#gen++;
    this.#proven = false;
  }

  /**
   * DELETE one session we created (best effort: the BMC expires it otherwise), within the BMC's
   * deadline like every other request: past it, the session is left to expire.
   */
  async #logout(token: string): Promise<void> {
    const uri = this.#sessions.get(token);
    this.#sessions.delete(token);
    if (!uri) return;
    try {
      await this.#raw('DELETE', uri, [...ACCEPT, 'x-auth-token', token], undefined, this.#hardDeadline);
    } catch {
      /* best effort */
    }
  }

  /**
   * A 401 on a request sent with session generation `gen`. True: retry the request with the
   * (new) session. A session already replaced by another request is just used; a session that
   * has answered before is replaced once, shared by every request that saw it fail, and the old
   * one logged out; a 401 on a session that never answered is "forbidden" (false), not expiry.
   */
  async #renewAfter401(gen: number): Promise<boolean> {
    if (gen !== this.#gen) {
      await this.#ensureSession(); // replaced (or being replaced) by another request
      return true;
    }
    if (!this.#login) {
      if (!this.#proven) return false;
      const old = this.#token;
      this.#token = undefined;
      this.#setGetHeaders();
      this.#login = this.#doLogin().finally(() => {
        this.#login = undefined;
      });
      if (old)
        this.#logouts.push(
          this.#login.then(
            () => this.#logout(old),
            () => this.#logout(old),
          ),
        );
    }
    await this.#login;
    return true;
  }

  #raw(
    method: string,
    path: string,
    headers: string[],
    body?: string,
    /** the deadline of this request: the crawl's, or the BMC's own for logouts */
    until = this.deadline,
  ): Promise<RawResponse> {
    const left = until - Date.now();
    if (left <= 0) return Promise.reject(this.#overDeadline(path));
    const timeoutMs = Math.max(1, Math.min(this.#opts.timeoutMs, Math.ceil(left)));
    return new Promise((resolve, reject) => {
      const exchange = new Exchange(this, path, timeoutMs, until, resolve, reject);
      this.#pool.dispatch({ path, method, headers, body, timeoutMs }, exchange);
    });
  }

  /** What an Exchange needs of its client: the caps, and the error past the deadline. */
  get limits(): { maxBodyBytes: number; maxTotalBytes: number; timeoutMs: number } {
    return this.#opts;
  }

  overDeadline(path: string): BudgetError {
    return this.#overDeadline(path);
  }

  #overDeadline(path: string): BudgetError {
    return new BudgetError(`the ${Math.round(this.#opts.deadlineMs / 1000)} s deadline for this BMC passed; the crawl stopped`, path);
  }

  /** GET a resource as JSON, with retries; follows same-origin redirects only. */
  async get(rawPath: string): Promise<Record<string, unknown>> {
    return (await this.#get(rawPath)).json;
  }

  /** `get`, with the size of the body it was parsed from. */
  getSized(rawPath: string): Promise<{ json: Record<string, unknown>; bytes: number }> {
    return this.#get(rawPath);
  }

  /**
   * One GET, with retries, within the BMC's requests in flight: the slot is taken and left here
   * rather than around a closure (Limiter.run), one async frame less on every request of a crawl.
   */
  async #get(rawPath: string): Promise<{ json: Record<string, unknown>; bytes: number }> {
    if (!this.#limiter.tryEnter()) await this.#limiter.wait(); // woken holding a slot
    try {
      if (this.#opts.auth === 'session') await this.#ensureSession();
      let path = rawPath.startsWith('/') ? rawPath : normalizePath(rawPath);
      let lastErr: RedfishError | undefined;
      const session = this.#opts.auth === 'session' && !!this.#opts.credentials;
      let renewed = false;
      for (let attempt = 0; attempt <= this.#opts.retries; attempt++) {
        if (attempt > 0) await sleep(this.#opts.backoffMs * 2 ** (attempt - 1));
        let redirects = 0;
        try {
          for (;;) {
            this.requests++;
            const gen = this.#gen;
            const r = await this.#raw('GET', path, this.#getHeaders);
            const location = r.status >= 300 && r.status < 400 ? header(r, 'location') : undefined;
            if (location) {
              const target = new URL(location, this.origin + path);
              if (target.origin !== this.origin)
                throw new RedfishError(
                  `redirect to another origin (${target.origin}) refused: credentials are never sent there`,
                  r.status,
                  path,
                );
              if (++redirects > 3) throw new RedfishError('too many redirects', r.status, path);
              path = target.pathname + target.search;
              continue;
            }
            if (r.status === 401 && session && !renewed) {
              // the session expired, or another request replaced it: at most once per request
              renewed = true;
              if (await this.#renewAfter401(gen)) continue;
            }
            const json = parsedAnswer(r, path);
            if (session && gen === this.#gen && path !== '/redfish/v1') this.#proven = true;
            return { json, bytes: r.size };
          }
        } catch (e) {
          if (!(e instanceof RedfishError)) throw e;
          lastErr = e;
          // truncated / invalid JSON is worth one more try too: a BMC under load cuts bodies
          if (e instanceof BudgetError || !(retryable(e.status) || e.status === -1) || /redirect|cap/.test(e.message)) throw e;
        }
      }
      throw lastErr!;
    } finally {
      this.#limiter.leave();
    }
  }

  /**
   * What this client must never let through to a result or a log: the password, `user:password`
   * (what Basic auth sends, base64-encoded) and every session token it was given.
   */
  secrets(): string[] {
    const c = this.#opts.credentials;
    const out = [...this.#tokens];
    if (c?.password) out.push(c.password, `${c.username}:${c.password}`);
    return out;
  }

  /**
   * Logs the session out (when there is one) and closes the connections, within the BMC's
   * deadline: past it the connections are dropped, not drained. Never throws.
   */
  async close(): Promise<void> {
    await this.#login?.catch(() => undefined);
    await Promise.all(this.#logouts);
    this.#token = undefined;
    await Promise.all([...this.#sessions.keys()].map((t) => this.#logout(t)));
    if (Date.now() >= this.#hardDeadline) await this.#pool.destroy().catch(() => undefined);
    else await this.#pool.close().catch(() => undefined);
  }
}

/** A final answer's JSON object, or the RedfishError it is (an error status, not JSON, not an object, a Redfish error body). */
function parsedAnswer(r: RawResponse, path: string): Record<string, unknown> {
  if (!ok(r.status)) throw new RedfishError(`HTTP ${r.status}${describeErrorBody(r.text)}`, r.status, path);
  let j: unknown;
  try {
    j = JSON.parse(r.text);
  } catch {
    throw new RedfishError(`invalid JSON (${r.size} bytes${looksHtml(r.text) ? ', an HTML page' : ''})`, -1, path);
  }
  if (!j || typeof j !== 'object' || Array.isArray(j)) throw new RedfishError('the body is not a JSON object', -1, path);
  // some BMCs answer 200 with a Redfish error body for a member they cannot read
  if (isErrorBody(j as Record<string, unknown>))
    throw new RedfishError(`HTTP ${r.status} with a Redfish error body${messageIds(j as Record<string, unknown>)}`, -3, path);
  return j as Record<string, unknown>;
}

/**
 * One request and its answer, a handler of the transport (http1.ts): raw headers looked at
 * only when needed. Enforces the body cap, the BMC's byte budget and the
 * request's own deadline as data arrives, so no timer is created per request. A body that comes
 * whole in one read (the usual answer: a few KiB) is decoded straight from the transport's read
 * buffer; one in pieces is copied piece by piece (the transport reuses its buffer) and decoded
 * at the end.
 */
class Exchange implements Handler {
  #abort: ((e: Error) => void) | undefined;
  #status = 0;
  #head: ResponseHead | undefined;
  /** the body's size when Content-Length frames it, NaN otherwise */
  #whole = Number.NaN;
  #chunks: Buffer[] = [];
  #text: string | undefined;
  #size = 0;
  #failed = false;
  readonly #deadline: number;
  /** the BMC's deadline, not the request timeout, ends this request when it comes first */
  readonly #deadlineFirst: boolean;

  constructor(
    readonly client: RedfishClient,
    readonly path: string,
    readonly timeoutMs: number,
    readonly until: number,
    readonly resolve: (r: RawResponse) => void,
    readonly reject: (e: RedfishError) => void,
  ) {
    this.#deadline = Date.now() + timeoutMs;
    this.#deadlineFirst = timeoutMs < client.limits.timeoutMs;
  }

  #fail(e: RedfishError): boolean {
    this.#failed = true;
    this.reject(e);
    this.#abort?.(e);
    return false;
  }

  onConnect(abort: (e: Error) => void): void {
    this.#abort = abort;
  }

  onHeaders(statusCode: number, head: ResponseHead, contentLength: number | undefined, framedByLength: boolean): boolean {
    this.#status = statusCode;
    this.#head = head;
    const { maxBodyBytes } = this.client.limits;
    const declared = contentLength ?? Number.NaN;
    if (framedByLength) this.#whole = declared;
    if (declared > maxBodyBytes)
      return this.#fail(new RedfishError(`response of ${declared} bytes exceeds the ${maxBodyBytes}-byte cap`, statusCode, this.path));
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.#failed) return false;
    const { client, path } = this;
    const { maxBodyBytes, maxTotalBytes } = client.limits;
    this.#size += chunk.length;
    client.bytes += chunk.length;
    if (client.bytes > maxTotalBytes)
      return this.#fail(new BudgetError(`more than ${mib(maxTotalBytes)} read from this BMC in all; the crawl stopped`, path));
    if (this.#size > maxBodyBytes) return this.#fail(new RedfishError(`response exceeds the ${maxBodyBytes}-byte cap`, this.#status, path));
    if (Date.now() > this.#deadline)
      return this.#fail(
        this.#deadlineFirst || Date.now() > this.until
          ? client.overDeadline(path)
          : new RedfishError(`body: no complete answer within ${this.timeoutMs} ms`, 0, path),
      );
    // the whole body at once (the transport hands over no more than Content-Length): decoded now
    if (this.#size === this.#whole && this.#size === chunk.length) this.#text = chunk.toString();
    else this.#chunks.push(Buffer.from(chunk));
    return true;
  }

  onComplete(): void {
    if (this.#failed) return;
    const c = this.#chunks;
    const text = this.#text ?? (c.length === 1 ? c[0]!.toString() : Buffer.concat(c, this.#size).toString());
    this.resolve({ status: this.#status, head: this.#head!, text, size: this.#size });
  }

  onError(e: Error): void {
    if (this.#failed) return;
    this.#failed = true;
    const why = transportMessage(e, this.timeoutMs);
    if (Date.now() >= this.until || (this.#deadlineFirst && isTimeout(e))) this.reject(this.client.overDeadline(this.path));
    else this.reject(new RedfishError(this.#status ? `body: ${why}` : why, 0, this.path));
  }
}

function mib(n: number): string {
  return n % (1 << 20) === 0 ? `${n / (1 << 20)} MiB` : `${n} bytes`;
}

function looksHtml(text: string): boolean {
  return /^\s*</.test(text.slice(0, 64));
}

function isErrorBody(j: Record<string, unknown>): boolean {
  return !!j.error && typeof j.error === 'object' && !Array.isArray(j.error) && j['@odata.id'] === undefined;
}

/** A Redfish MessageId (`Base.1.8.ResourceMissingAtURI`): registry, version, name. Anything else is not repeated. */
const MESSAGE_ID = /^[A-Za-z][A-Za-z0-9]{0,40}(?:\.[0-9]{1,4}){0,3}\.[A-Za-z][A-Za-z0-9]{0,80}$/;

/**
 * ` (Base.1.8.InternalError, ...)`: the MessageIds of a Redfish error body, at most 3, or nothing.
 * A BMC's message text is never repeated: it is free text, and some BMCs echo the request in it
 * (an Authorization header, a session token).
 */
function messageIds(j: Record<string, unknown>): string {
  const e = j.error as Record<string, unknown> | undefined;
  const ids: string[] = [];
  const add = (v: unknown) => typeof v === 'string' && MESSAGE_ID.test(v) && !ids.includes(v) && ids.push(v);
  const info = e?.['@Message.ExtendedInfo'];
  if (Array.isArray(info)) for (const m of info) add((m as Record<string, unknown> | null)?.MessageId);
  if (!ids.length) add(e?.code);
  return ids.length ? ` (${ids.slice(0, 3).join(', ')})` : '';
}

/** What an error answer says, without its text: ` (MessageIds)`, ` (an HTML error page)` or nothing. */
function describeErrorBody(text: string): string {
  if (!text.length) return '';
  if (looksHtml(text)) return ' (an HTML error page)';
  try {
    const j = JSON.parse(text) as unknown;
    return j && typeof j === 'object' && !Array.isArray(j) ? messageIds(j as Record<string, unknown>) : '';
  } catch {
    return '';
  }
}

function isTimeout(e: unknown): boolean {
  const err = e as { name?: string; code?: string; cause?: { code?: string } };
  const code = err.code ?? err.cause?.code;
  return (
    err.name === 'TimeoutError' ||
    err.name === 'AbortError' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT'
  );
}

function transportMessage(e: unknown, timeoutMs: number): string {
  const err = e as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = err.code ?? err.cause?.code;
  if (isTimeout(e)) return `no answer within ${timeoutMs} ms`;
  // OpenSSL reading an HTTP answer as a TLS record: "wrong version number", "packet length too long", "http request"
  // (a write before the handshake failed reports it as EPROTO with OpenSSL's reason in the message)
  if (
    code === 'ERR_SSL_WRONG_VERSION_NUMBER' ||
    code === 'ERR_SSL_PACKET_LENGTH_TOO_LONG' ||
    code === 'ERR_SSL_HTTP_REQUEST' ||
    (code === 'EPROTO' && /wrong version number|packet length too long|http request/.test(err.message ?? ''))
  )
    return 'the BMC answered plain HTTP on an https address; write http:// in its address';
  if (code && /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/i.test(code))
    return `TLS certificate not trusted (${code}); set insecureSkipVerify or give a CA bundle`;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection reset';
  return `${code ?? err.name ?? 'error'}: ${err.cause?.message ?? err.message ?? ''}`.trim();
}
