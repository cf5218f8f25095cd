/**
 * A Redfish simulator: serves Redfish-Mockup-Creator trees (`<tree>/redfish/v1/.../index.json`)
 * as virtual BMCs on loopback, each its own HTTP or HTTPS listener, with Basic and session
 * auth, injectable latency and faults (500, HTML error pages, timeouts, truncated or invalid
 * JSON, 401, 503 session exhaustion, redirects), collection paging and `$expand`. Paths are
 * matched case-insensitively, without trailing slash or fragment, as real BMCs do. Read-only:
 * only session login/logout are accepted besides GET.
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
  /** 500 whose error message echoes the request's Authorization and X-Auth-Token headers (seen on real BMC firmware) */
  | 'echo-credentials';

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

export function newCounters(): SimCounters {
  return { requests: 0, connections: 0, inFlight: 0, peakInFlight: 0, firstAt: 0, lastAt: 0 };
}

export interface BmcOptions {
  /** shared counters to update */
  counters?: SimCounters;
  /** directory holding `redfish/v1/index.json` */
  tree: string;
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

const treeCache = new Map<string, Map<string, Buffer>>();
/** expanded / paged collection bodies, per tree (keyed by the tree's map) and query */
const derived = new WeakMap<Map<string, Buffer>, Map<string, Buffer>>();

/** Reads every `index.json` of a tree (and `_case-variants/`) into a path -> body map, once per tree. */
export function loadTree(dir: string): Map<string, Buffer> {
  const cached = treeCache.get(dir);
  if (cached) return cached;
  const map = new Map<string, Buffer>();
  const walk = (base: string, rel: string) => {
    const full = join(base, rel);
    if (!existsSync(full)) return;
    for (const e of readdirSync(full)) {
      const p = join(full, e);
      if (statSync(p).isDirectory()) walk(base, rel + '/' + e);
      else if (e === 'index.json') map.set(key(rel), readFileSync(p));
    }
  };
  walk(dir, 'redfish');
  if (existsSync(join(dir, '_case-variants'))) {
    const variants = new Map<string, Buffer>();
    const before = new Map(map);
    map.clear();
    walk(join(dir, '_case-variants'), 'redfish');
    for (const [k, v] of map) variants.set(k, v);
    map.clear();
    for (const [k, v] of before) map.set(k, v);
    for (const [k, v] of variants) if (!map.has(k)) map.set(k, v);
  }
  if (!map.has('/redfish/v1')) throw new Error(`${dir} is not a Redfish mockup tree (no redfish/v1/index.json)`);
  treeCache.set(dir, map);
  return map;
}

function key(p: string): string {
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
  const b = Buffer.from(JSON.stringify(body));
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(b.length), 'odata-version': '4.0', ...headers });
  res.end(b);
}

function redfishError(code: string, message: string) {
  return { error: { code: `Base.1.8.${code}`, message, '@Message.ExtendedInfo': [{ MessageId: `Base.1.8.${code}`, Message: message }] } };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => resolve(''));
  });
}

export async function startBmc(opts: BmcOptions): Promise<SimBmc> {
  const tree = loadTree(opts.tree);
  const username = opts.username ?? 'admin';
  const password = opts.password ?? 'password';
  const maxSessions = opts.maxSessions ?? 8;
  const sessions = new Map<string, string>(); // token -> session path
  const stats = { created: 0, deleted: 0 };
  const faults = (opts.faults ?? []).map((f) => ({ ...f, left: f.times ?? Infinity, k: f.path === '*' ? '*' : key(f.path) }));
  const log: string[] = [];
  const keepLog = opts.keepLog !== false;
  const counters = opts.counters;
  const sockets = new Set<Socket>();
  let sessionSeq = 0;

  const basic = 'Basic ' + Buffer.from(`${username}:${password}`).toString('base64');
  const authorized = (req: IncomingMessage): boolean => {
    const auth = req.headers.authorization;
    if (auth === basic) return true;
    const token = req.headers['x-auth-token'];
    if (typeof token === 'string' && sessions.has(token)) return true;
    if (auth?.startsWith('Basic ')) {
      const [u, ...rest] = Buffer.from(auth.slice(6), 'base64').toString('utf8').split(':');
      return u === username && rest.join(':') === password;
    }
    return false;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    // cheap for the common case (no query): the benchmark sends 12,000 requests through here
    const rawUrl = req.url ?? '/';
    const url = rawUrl.includes('?') ? new URL(rawUrl, 'http://x') : { pathname: rawUrl, search: '', searchParams: new URLSearchParams() };
    const k = key(url.pathname);
    if (keepLog) log.push(`${req.method} ${url.pathname}${url.search}`);
    if (opts.latencyMs) await new Promise((r) => setTimeout(r, opts.latencyMs));
    if (counters) {
      // answered now (TLS may report the write finished later, when the client already sent its next request)
      counters.inFlight--;
      counters.lastAt = performance.timeOrigin + performance.now();
    }
    const isRoot = k === '/redfish/v1' || k === '/redfish';
    if (k === '/redfish') return json(res, 200, { v1: '/redfish/v1/' });

    // faults: on GETs; on the login POST only when named by its exact path (`*` does not apply)
    const login = req.method === 'POST' && k === '/redfish/v1/sessionservice/sessions';
    if (!isRoot && (req.method === 'GET' || req.method === 'HEAD' || login)) {
      const fault = faults.find((f) => f.left > 0 && (login ? f.k === k : f.k === '*' || f.k === k));
      if (fault) {
        fault.left--;
        switch (fault.kind) {
          case 'http-500':
            return json(res, 500, redfishError('InternalError', 'The request failed due to an internal service error.'));
          case 'html-500': {
            res.writeHead(500, { 'content-type': 'text/html' });
            return res.end('<html><head><title>500 Internal Server Error</title></head><body><h1>Internal Server Error</h1></body></html>');
          }
          case 'http-404':
            return json(res, 404, redfishError('ResourceMissingAtURI', `The resource at the URI ${url.pathname} was not found.`));
          case 'http-401':
            return json(res, 401, redfishError('InsufficientPrivilege', 'Unauthorized.'));
          case 'http-403':
            return json(res, 403, redfishError('InsufficientPrivilege', 'Forbidden.'));
          case 'timeout':
            return; // never answers; closed with the server
          case 'truncated-json': {
            const body = tree.get(k) ?? Buffer.from('{"Id": "x", "Name": "truncated"}');
            const cut = body.subarray(0, Math.max(1, Math.floor(body.length / 2)));
            res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(cut.length) });
            return res.end(cut);
          }
          case 'invalid-json': {
            res.writeHead(200, { 'content-type': 'application/json' });
            return res.end('{"Id": "oops", "Name": }');
          }
          case 'redirect-same-origin':
          case 'redirect-other-origin': {
            res.writeHead(307, { location: fault.location ?? url.pathname + '/' });
            return res.end();
          }
          case 'echo-credentials': {
            const echoed = `Authorization: ${req.headers.authorization ?? '-'}; X-Auth-Token: ${String(req.headers['x-auth-token'] ?? '-')}`;
            return json(res, 500, redfishError('InternalError', `The request failed (${echoed}).`));
          }
          case 'huge-body': {
            res.writeHead(200, { 'content-type': 'application/json' });
            res.write('{"Pad": "');
            const chunk = 'x'.repeat(1 << 16);
            for (let i = 0; i < 256 && !res.destroyed; i++) res.write(chunk);
            return res.end('"}');
          }
        }
      }
    }
    // sessions
    if (k === '/redfish/v1/sessionservice/sessions' && req.method === 'POST') {
      const body = await readBody(req);
      let creds: { UserName?: string; Password?: string } = {};
      try {
        creds = JSON.parse(body) as typeof creds;
      } catch {
        return json(res, 400, redfishError('MalformedJSON', 'The request body is not JSON.'));
      }
      if (creds.UserName !== username || creds.Password !== password)
        return json(res, 401, redfishError('InsufficientPrivilege', 'Invalid user name or password.'));
      if (sessions.size >= maxSessions)
        return json(
          res,
          503,
          redfishError(
            'SessionLimitExceeded',
            'The session establishment failed due to the number of simultaneous sessions exceeding the limit of the implementation.',
          ),
        );
      const id = String(++sessionSeq);
      const token = `${opts.sessionTokenPrefix ?? 'tok'}-${id}-${Math.random().toString(36).slice(2)}`;
      const path = `/redfish/v1/SessionService/Sessions/${id}`;
      sessions.set(token, path);
      stats.created++;
      return json(res, 201, { '@odata.id': path, Id: id, UserName: username }, { 'x-auth-token': token, location: path });
    }
    if (req.method === 'DELETE' && k.startsWith('/redfish/v1/sessionservice/sessions/')) {
      if (!authorized(req)) return json(res, 401, redfishError('InsufficientPrivilege', 'Unauthorized.'));
      for (const [t, p] of sessions)
        if (key(p) === k) {
          sessions.delete(t);
          stats.deleted++;
          res.writeHead(204);
          return res.end();
        }
      return json(res, 404, redfishError('ResourceMissingAtURI', 'No such session.'));
    }
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return json(res, 405, redfishError('OperationNotAllowed', 'The simulator is read-only.'));

    if (!isRoot && !authorized(req))
      return json(res, 401, redfishError('InsufficientPrivilege', 'Unauthorized.'), { 'www-authenticate': 'Basic realm="redfish"' });
    const body = tree.get(k);
    if (!body) return json(res, 404, redfishError('ResourceMissingAtURI', `The resource at the URI ${url.pathname} was not found.`));
    const expand = url.searchParams.get('$expand');
    const skip = Number(url.searchParams.get('$skip') ?? 0);
    if ((opts.pageSize || (expand && opts.expand !== false)) && body.includes('"Members"')) {
      // the trees never change: an expanded or paged collection is built once per tree and query
      const memoKey = `${k}?${expand && opts.expand !== false ? 'x' : ''}&${opts.pageSize ?? 0}&${skip}`;
      let perTree = derived.get(tree);
      if (!perTree) derived.set(tree, (perTree = new Map()));
      const memo = perTree.get(memoKey);
      if (memo) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(memo.length), 'odata-version': '4.0' });
        return res.end(memo);
      }
      const doc = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
      if (Array.isArray(doc.Members)) {
        let members = doc.Members as { '@odata.id'?: string }[];
        if (expand && opts.expand !== false)
          members = members.map((m) => {
            const b = m['@odata.id'] ? tree.get(key(m['@odata.id'])) : undefined;
            return b ? (JSON.parse(b.toString('utf8')) as { '@odata.id'?: string }) : m;
          });
        if (opts.pageSize) {
          const page = members.slice(skip, skip + opts.pageSize);
          if (skip + opts.pageSize < members.length) doc['Members@odata.nextLink'] = `${url.pathname}?$skip=${skip + opts.pageSize}`;
          members = page;
        }
        doc.Members = members;
        const b = Buffer.from(JSON.stringify(doc));
        perTree.set(memoKey, b);
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(b.length), 'odata-version': '4.0' });
        return res.end(b);
      }
    }
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length), 'odata-version': '4.0' });
    res.end(req.method === 'HEAD' ? undefined : body);
  };

  const listener = (req: IncomingMessage, res: ServerResponse) => {
    if (counters) {
      if (counters.requests++ === 0) counters.firstAt = performance.timeOrigin + performance.now();
      if (++counters.inFlight > counters.peakInFlight) counters.peakInFlight = counters.inFlight;
    }
    handle(req, res).catch((e: Error) => {
      if (!res.headersSent) json(res, 500, redfishError('InternalError', e.message));
    });
  };
  const server: Server = opts.tls ? createHttps({ key: opts.tls.key, cert: opts.tls.cert }, listener) : createHttp(listener);
  server.keepAliveTimeout = 60_000;
  server.on('connection', (s: Socket) => {
    if (counters) counters.connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('secureConnection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
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
    log,
    stats,
    sessions: () => sessions.size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

export interface SimulatorOptions extends Omit<BmcOptions, 'tree' | 'port'> {
  /** trees, used round-robin over the BMCs */
  trees: string[];
  count: number;
  /** consecutive ports from here; 0/absent = any free port */
  basePort?: number;
}

/** Starts `count` virtual BMCs. */
export async function startSimulator(opts: SimulatorOptions): Promise<{ bmcs: SimBmc[]; counters: SimCounters; close(): Promise<void> }> {
  const bmcs: SimBmc[] = [];
  const counters = opts.counters ?? newCounters();
  for (let i = 0; i < opts.count; i++) {
    bmcs.push(await startBmc({ ...opts, counters, tree: opts.trees[i % opts.trees.length]!, port: opts.basePort ? opts.basePort + i : 0 }));
  }
  return { bmcs, counters, close: async () => void (await Promise.all(bmcs.map((b) => b.close()))) };
}
