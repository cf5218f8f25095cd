/**
 * A Redfish simulator: serves Redfish-Mockup-Creator trees (`<tree>/redfish/v1/.../index.json`,
 * or an edited in-memory copy: see scenarios.ts) as virtual BMCs on loopback, each its own HTTP
 * or HTTPS listener, with Basic and session auth, injectable latency and faults (500, HTML error
 * pages, timeouts, truncated or invalid JSON, 401, 503 session exhaustion, redirects, 200 with a
 * Redfish error body, error bodies that echo the request's credentials, looping or endless
 * paging), collection paging, `$expand` and `?only`. Paths are matched case-insensitively,
 * without trailing slash or fragment, as real BMCs do. Read-only: only session login/logout are
 * accepted besides GET.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer as createHttp, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttps } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';

export type FaultKind =
  | 'http-500'
  | 'html-500'
  | 'http-404'
  | 'http-401'
  | 'http-403'
  | 'timeout'
  | 'truncated-json'
  | 'invalid-json'
  | 'redirect-same-origin'
  | 'redirect-other-origin'
  | 'huge-body'
  /** 200 OK with a Redfish error body (some BMCs answer a member they cannot read so) */
  | 'error-200'
  /** 500 whose error body repeats the request's Authorization header and session token */
  | 'echo-credentials'
  /** a collection whose last page links back to its first */
  | 'page-loop'
  /** a collection of endless pages without a member */
  | 'empty-pages';

export interface Fault {
  /** a resource path (case-insensitive, `*` = every path but the service root); `/redfish/v1/SessionService/Sessions` also faults the login POST */
  path: string;
  kind: FaultKind;
  /** answer with the fault this many times, then normally; absent = always */
  times?: number;
  /** redirect target (redirect-* kinds) */
  location?: string;
}

/** Counters shared by every BMC of a simulator (the benchmark reads them). */
export interface SimCounters {
  requests: number;
  /** TCP connections accepted (keep-alive at work: about one per BMC and request in flight) */
  connections: number;
  inFlight: number;
  peakInFlight: number;
  /** wall-clock ms (performance.timeOrigin + performance.now()) of the first request received and of the last answer sent */
  firstAt: number;
  lastAt: number;
}

function newCounters(): SimCounters {
  return { requests: 0, connections: 0, inFlight: 0, peakInFlight: 0, firstAt: 0, lastAt: 0 };
}

/** A tree's resources: lowercased path (no trailing slash) -> JSON body. */
export type Tree = Map<string, Buffer>;

export interface BmcOptions {
  /** shared counters to update */
  counters?: SimCounters;
  /** directory holding `redfish/v1/index.json`, or a tree already loaded (scenarioTree) */
  tree: string | Tree;
  username?: string;
  password?: string;
  host?: string;
  port?: number;
  /** delay before each answer, ms */
  latencyMs?: number;
  faults?: Fault[];
  /** PEM key and cert: serve HTTPS */
  tls?: { key: string; cert: string };
  /** split collections into pages of this many members (`Members@odata.nextLink`) */
  pageSize?: number;
  /** most sessions open at once; more logins get 503 (iDRAC behaviour); default 8 */
  maxSessions?: number;
  /** honour `$expand=.($levels=1)` on collections (default true) */
  expand?: boolean;
  /**
   * `?only` on a one-member collection: answered with the member when the service root
   * advertises ProtocolFeaturesSupported.OnlyMemberQuery (`advertised`, the default), ignored
   * (as the specification requires of a service without it), or refused with 400
   */
  onlyQuery?: 'advertised' | 'ignore' | 'refuse';
  /** the status of a successful session login: 201 (default), 200, or 204 without a body */
  loginStatus?: 200 | 201 | 204;
  /** once a session is created, no request is answered any more (logout included) */
  hangAfterLogin?: boolean;
  /** keep every request in `log` (default true; the CLI turns it off: a long-running simulator would only grow) */
  keepLog?: boolean;
  /** session tokens start with this (default `tok`): tests plant a canary there */
  sessionTokenPrefix?: string;
}

export interface SimBmc {
  /** `https://127.0.0.1:40123` */
  url: string;
  host: string;
  port: number;
  /** requests answered, by method and path (`GET /redfish/v1/Systems`); empty with `keepLog: false` */
  log: string[];
  /** open sessions right now */
  sessions(): number;
  /** sessions ever created and deleted */
  stats: { created: number; deleted: number };
  close(): Promise<void>;
}

const treeCache = new Map<string, Tree>();
/** expanded / paged / `only` collection bodies, per tree (keyed by the tree's map) and query */
const derived = new WeakMap<Tree, Map<string, Buffer>>();

function walkTree(map: Tree, base: string, rel: string): void {
  const full = join(base, rel);
  if (!existsSync(full)) return;
  for (const e of readdirSync(full)) {
    const p = join(full, e);
    if (statSync(p).isDirectory()) walkTree(map, base, rel + '/' + e);
    else if (e === 'index.json') map.set(key(rel), readFileSync(p));
  }
}

/** Reads every `index.json` of a tree (and `_case-variants/`, where the tree has no such path) into a path -> body map, once per tree. */
export function loadTree(dir: string): Tree {
  const cached = treeCache.get(dir);
  if (cached) return cached;
  const map: Tree = new Map();
  walkTree(map, dir, 'redfish');
  const variants: Tree = new Map();
  walkTree(variants, join(dir, '_case-variants'), 'redfish');
  for (const [k, v] of variants) if (!map.has(k)) map.set(k, v);
  if (!map.has('/redfish/v1')) throw new Error(`${dir} is not a Redfish mockup tree (no redfish/v1/index.json)`);
  treeCache.set(dir, map);
  return map;
}

/** A request or link path as the tree is keyed: no fragment, query or trailing slash, decoded, lowercase. */
export function key(p: string): string {
  let s = p.split('#')[0]!.split('?')[0]!;
  try {
    s = decodeURIComponent(s);
  } catch {
    /* keep */
  }
  if (!s.startsWith('/')) s = '/' + s;
  s = s.replace(/\/+$/, '');
  return s.toLowerCase();
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  send(res, status, Buffer.from(JSON.stringify(body)), headers);
}

function send(res: ServerResponse, status: number, b: Buffer, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(b.length), 'odata-version': '4.0', ...headers });
  res.end(b);
}

function redfishError(code: string, message: string, args: string[] = []) {
  const id = `Base.1.8.${code}`;
  return { error: { code: id, message, '@Message.ExtendedInfo': [{ MessageId: id, Message: message, MessageArgs: args }] } };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => resolve(''));
  });
}

interface ParsedUrl {
  pathname: string;
  search: string;
  searchParams: URLSearchParams;
}
const NO_QUERY = new URLSearchParams();

/** One virtual BMC: what it serves and how it answers. */
class VirtualBmc {
  readonly tree: Tree;
  readonly log: string[] = [];
  readonly sessions = new Map<string, string>(); // token -> session path
  readonly stats = { created: 0, deleted: 0 };
  readonly #faults: (Fault & { left: number; k: string })[];
  readonly #basic: string;
  readonly #honourOnly: boolean;
  #sessionSeq = 0;
  #hung = false;

  constructor(readonly opts: BmcOptions) {
    this.tree = typeof opts.tree === 'string' ? loadTree(opts.tree) : opts.tree;
    this.#faults = (opts.faults ?? []).map((f) => ({ ...f, left: f.times ?? Infinity, k: f.path === '*' ? '*' : key(f.path) }));
    this.#basic = 'Basic ' + Buffer.from(`${this.username}:${this.password}`).toString('base64');
    const root = JSON.parse(this.tree.get('/redfish/v1')!.toString('utf8')) as {
      ProtocolFeaturesSupported?: { OnlyMemberQuery?: unknown };
    };
    this.#honourOnly = (opts.onlyQuery ?? 'advertised') === 'advertised' && root.ProtocolFeaturesSupported?.OnlyMemberQuery === true;
  }

  get username(): string {
    return this.opts.username ?? 'admin';
  }
  get password(): string {
    return this.opts.password ?? 'password';
  }

  authorized(req: IncomingMessage): boolean {
    const auth = req.headers.authorization;
    if (auth === this.#basic) return true;
    const token = req.headers['x-auth-token'];
    if (typeof token === 'string' && this.sessions.has(token)) return true;
    if (auth?.startsWith('Basic ')) {
      const [u, ...rest] = Buffer.from(auth.slice(6), 'base64').toString('utf8').split(':');
      return u === this.username && rest.join(':') === this.password;
    }
    return false;
  }

  async handle(req: IncomingMessage, res: ServerResponse, counters: SimCounters | undefined): Promise<void> {
    // cheap for the common case (no query): the benchmark sends millions of requests through here
    const rawUrl = req.url ?? '/';
    const url: ParsedUrl = rawUrl.includes('?') ? new URL(rawUrl, 'http://x') : { pathname: rawUrl, search: '', searchParams: NO_QUERY };
    const k = key(url.pathname);
    if (this.opts.keepLog !== false) this.log.push(`${req.method} ${url.pathname}${url.search}`);
    if (this.opts.latencyMs) await new Promise((r) => setTimeout(r, this.opts.latencyMs));
    if (counters) {
      // answered now (TLS may report the write finished later, when the client already sent its next request)
      counters.inFlight--;
      counters.lastAt = performance.timeOrigin + performance.now();
    }
    if (this.#hung) return; // never answers; closed with the server
    const isRoot = k === '/redfish/v1' || k === '/redfish';
    if (k === '/redfish') return json(res, 200, { v1: '/redfish/v1/' });
    // faults: on GETs; on the login POST only when named by its exact path (`*` does not apply)
    const login = req.method === 'POST' && k === '/redfish/v1/sessionservice/sessions';
    if (!isRoot && (req.method === 'GET' || req.method === 'HEAD' || login)) {
      const fault = this.#faults.find((f) => f.left > 0 && (login ? f.k === k : f.k === '*' || f.k === k));
      if (fault && this.#answerFault(fault, req, res, url, k)) return;
    }
    if (k === '/redfish/v1/sessionservice/sessions' && req.method === 'POST') return this.#login(req, res);
    if (req.method === 'DELETE' && k.startsWith('/redfish/v1/sessionservice/sessions/')) return this.#logout(req, res, k);
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return json(res, 405, redfishError('OperationNotAllowed', 'The simulator is read-only.'));
    if (!isRoot && !this.authorized(req))
      return json(res, 401, redfishError('InsufficientPrivilege', 'Unauthorized.'), { 'www-authenticate': 'Basic realm="redfish"' });
    const body = this.tree.get(k);
    if (!body) return json(res, 404, redfishError('ResourceMissingAtURI', `The resource at the URI ${url.pathname} was not found.`));
    const derivedBody = url.search || this.opts.pageSize ? this.#collection(k, body, url, res) : undefined;
    if (derivedBody === null) return; // answered (a refused query)
    const b = derivedBody ?? body;
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(b.length), 'odata-version': '4.0' });
    res.end(req.method === 'HEAD' ? undefined : b);
  }

  /** Answers with a fault; false when the fault does not apply here (the request is answered normally). */
  #answerFault(
    fault: { left: number; kind: FaultKind; location?: string },
    req: IncomingMessage,
    res: ServerResponse,
    url: ParsedUrl,
    k: string,
  ): boolean {
    const paging = fault.kind === 'page-loop' || fault.kind === 'empty-pages';
    if (paging && !this.tree.get(k)?.includes('"Members"')) return false;
    fault.left--;
    switch (fault.kind) {
      case 'http-500':
        json(res, 500, redfishError('InternalError', 'The request failed due to an internal service error.'));
        break;
      case 'html-500':
        res.writeHead(500, { 'content-type': 'text/html' });
        res.end('<html><head><title>500 Internal Server Error</title></head><body><h1>Internal Server Error</h1></body></html>');
        break;
      case 'http-404':
        json(res, 404, redfishError('ResourceMissingAtURI', `The resource at the URI ${url.pathname} was not found.`));
        break;
      case 'http-401':
        json(res, 401, redfishError('InsufficientPrivilege', 'Unauthorized.'));
        break;
      case 'http-403':
        json(res, 403, redfishError('InsufficientPrivilege', 'Forbidden.'));
        break;
      case 'timeout':
        break; // never answers; closed with the server
      case 'truncated-json': {
        const body = this.tree.get(k) ?? Buffer.from('{"Id": "x", "Name": "truncated"}');
        const cut = body.subarray(0, Math.max(1, Math.floor(body.length / 2)));
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(cut.length) });
        res.end(cut);
        break;
      }
      case 'invalid-json':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"Id": "oops", "Name": }');
        break;
      case 'redirect-same-origin':
      case 'redirect-other-origin':
        res.writeHead(307, { location: fault.location ?? url.pathname + '/' });
        res.end();
        break;
      case 'huge-body':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"Pad": "');
        for (let i = 0; i < 256 && !res.destroyed; i++) res.write('x'.repeat(1 << 16));
        res.end('"}');
        break;
      case 'error-200':
        json(res, 200, redfishError('GeneralError', `A general error has occurred reading ${url.pathname}.`));
        break;
      case 'echo-credentials':
        json(res, 500, echoedCredentials(req));
        break;
      case 'page-loop':
      case 'empty-pages':
        json(res, 200, badPage(fault.kind, url, this.tree.get(k)!));
        break;
    }
    return true;
  }

  async #login(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    let creds: { UserName?: string; Password?: string } = {};
    try {
      creds = JSON.parse(body) as typeof creds;
    } catch {
      return json(res, 400, redfishError('MalformedJSON', 'The request body is not JSON.'));
    }
    if (creds.UserName !== this.username || creds.Password !== this.password)
      return json(res, 401, redfishError('InsufficientPrivilege', 'Invalid user name or password.'));
    if (this.sessions.size >= (this.opts.maxSessions ?? 8))
      return json(
        res,
        503,
        redfishError(
          'SessionLimitExceeded',
          'The session establishment failed due to the number of simultaneous sessions exceeding the limit of the implementation.',
        ),
      );
    const id = String(++this.#sessionSeq);
    const token = `${this.opts.sessionTokenPrefix ?? 'tok'}-${id}-${Math.random().toString(36).slice(2)}`;
    const path = `/redfish/v1/SessionService/Sessions/${id}`;
    this.sessions.set(token, path);
    this.stats.created++;
    if (this.opts.hangAfterLogin) this.#hung = true;
    const status = this.opts.loginStatus ?? 201;
    if (status === 204) {
      res.writeHead(204, { 'x-auth-token': token, location: path });
      return void res.end();
    }
    json(res, status, { '@odata.id': path, Id: id, UserName: this.username }, { 'x-auth-token': token, location: path });
  }

  #logout(req: IncomingMessage, res: ServerResponse, k: string): void {
    if (!this.authorized(req)) {
      json(res, 401, redfishError('InsufficientPrivilege', 'Unauthorized.'));
      return;
    }
    for (const [t, p] of this.sessions)
      if (key(p) === k) {
        this.sessions.delete(t);
        this.stats.deleted++;
        res.writeHead(204);
        return void res.end();
      }
    json(res, 404, redfishError('ResourceMissingAtURI', 'No such session.'));
  }

  /**
   * A collection asked with `$expand`, `?only` or in pages: its body, built once per tree and
   * query; undefined when nothing applies (the stored body is served); null when answered here.
   */
  #collection(k: string, body: Buffer, url: ParsedUrl, res: ServerResponse): Buffer | undefined | null {
    if (!body.includes('"Members"')) return undefined;
    const expand = url.searchParams.get('$expand') !== null && this.opts.expand !== false;
    const only = url.searchParams.has('only');
    if (only && this.opts.onlyQuery === 'refuse') {
      json(res, 400, redfishError('QueryNotSupported', 'Querying is not supported by the implementation.'));
      return null;
    }
    const wantsOnly = only && this.#honourOnly;
    if (!expand && !wantsOnly && !this.opts.pageSize) return undefined;
    const skip = Number(url.searchParams.get('$skip') ?? 0);
    const memoKey = `${k}?${expand ? 'x' : ''}${wantsOnly ? 'o' : ''}&${this.opts.pageSize ?? 0}&${skip}`;
    let perTree = derived.get(this.tree);
    if (!perTree) derived.set(this.tree, (perTree = new Map()));
    const memo = perTree.get(memoKey);
    if (memo) return memo;
    const doc = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    if (!Array.isArray(doc.Members)) return undefined;
    let members = doc.Members as { '@odata.id'?: string }[];
    const member = (m: { '@odata.id'?: string }) => (m['@odata.id'] ? this.tree.get(key(m['@odata.id'])) : undefined);
    let b: Buffer;
    if (wantsOnly && members.length === 1 && member(members[0]!)) b = member(members[0]!)!;
    else {
      if (expand) members = members.map((m) => (member(m) ? (JSON.parse(member(m)!.toString('utf8')) as { '@odata.id'?: string }) : m));
      if (this.opts.pageSize) {
        const page = members.slice(skip, skip + this.opts.pageSize);
        if (skip + this.opts.pageSize < members.length)
          doc['Members@odata.nextLink'] = `${url.pathname}?$skip=${skip + this.opts.pageSize}`;
        members = page;
      }
      doc.Members = members;
      b = Buffer.from(JSON.stringify(doc));
    }
    perTree.set(memoKey, b);
    return b;
  }
}

/** An error body that repeats what the request authenticated with, as some BMCs do. */
function echoedCredentials(req: IncomingMessage) {
  const auth = req.headers.authorization ?? '';
  const token = String(req.headers['x-auth-token'] ?? '');
  const decoded = auth.startsWith('Basic ') ? Buffer.from(auth.slice(6), 'base64').toString('utf8') : '';
  const message = `Internal error processing request with Authorization: ${auth} (user ${decoded}) X-Auth-Token: ${token}`;
  return redfishError('InternalError', message, [auth, decoded, token]);
}

/** A page of a collection whose pages misbehave: the last one links back to the first, or none has a member. */
function badPage(kind: 'page-loop' | 'empty-pages', url: ParsedUrl, body: Buffer): Record<string, unknown> {
  const doc = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
  const skip = Number(url.searchParams.get('$skip') ?? 0);
  const members = (doc.Members ?? []) as unknown[];
  if (kind === 'empty-pages') return { ...doc, Members: [], 'Members@odata.nextLink': `${url.pathname}?$skip=${skip + 1}` };
  const next = skip + 1 < members.length ? `${url.pathname}?$skip=${skip + 1}` : url.pathname;
  return { ...doc, Members: members.slice(skip, skip + 1), 'Members@odata.nextLink': next };
}

export async function startBmc(opts: BmcOptions): Promise<SimBmc> {
  const bmc = new VirtualBmc(opts);
  const counters = opts.counters;
  const sockets = new Set<Socket>();
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    if (counters) {
      if (counters.requests++ === 0) counters.firstAt = performance.timeOrigin + performance.now();
      if (++counters.inFlight > counters.peakInFlight) counters.peakInFlight = counters.inFlight;
    }
    bmc.handle(req, res, counters).catch((e: Error) => {
      if (!res.headersSent) json(res, 500, redfishError('InternalError', e.message));
    });
  };
  const server: Server = opts.tls ? createHttps({ key: opts.tls.key, cert: opts.tls.cert }, listener) : createHttp(listener);
  server.keepAliveTimeout = 60_000;
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  };
  server.on('connection', (s: Socket) => {
    if (counters) counters.connections++;
    track(s);
  });
  server.on('secureConnection', track);
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${opts.tls ? 'https' : 'http'}://${host}:${port}`,
    host,
    port,
    log: bmc.log,
    stats: bmc.stats,
    sessions: () => bmc.sessions.size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

export interface SimulatorOptions extends Omit<BmcOptions, 'tree' | 'port'> {
  /** trees (a directory, or a tree with its own BMC options: scenarioBmc), used round-robin over the BMCs */
  trees: (string | BmcOptions)[];
  count: number;
  /** consecutive ports from here; 0/absent = any free port */
  basePort?: number;
}

/** Starts `count` virtual BMCs. */
export async function startSimulator(opts: SimulatorOptions): Promise<{ bmcs: SimBmc[]; counters: SimCounters; close(): Promise<void> }> {
  const bmcs: SimBmc[] = [];
  const counters = opts.counters ?? newCounters();
  const { trees, count, basePort, ...common } = opts;
  for (let i = 0; i < count; i++) {
    const t = trees[i % trees.length]!;
    const own = typeof t === 'string' ? { tree: t } : t;
    bmcs.push(await startBmc({ ...common, ...own, counters, port: basePort ? basePort + i : 0 }));
  }
  return { bmcs, counters, close: async () => void (await Promise.all(bmcs.map((b) => b.close()))) };
}
