/**
 * discover mode (network): asks every configured BMC (and every Redfish service found in the
 * ranges) and writes one HardwareInventory per System. Credentials come from the environment
 * or a mounted file and never reach the output, results or logs.
 */
import { readFileSync } from 'node:fs';
import { type Context, type Desired, GENERATED_BY, type KubeObject, type ResultOptions } from '../../src/krm/index.js';
import { Limiter, normalizePath, RedfishClient, type Credentials } from '../../src/redfish/client.js';
import { describeFailure, discoverSystem, listSystems } from '../../src/redfish/discover.js';
import type { SystemNote } from '../../src/redfish/normalize.js';
import { INVENTORY_API_VERSION, INVENTORY_KIND, type HardwareInventorySpec } from '../../src/model/hardware-inventory.js';
import { redactBmcAddress } from '../../src/model/bmc.js';
import { toDnsLabel } from '../../src/model/dns-name.js';
import { hostAddresses, parseCidr } from '../../src/model/ip.js';
import { Redactor, scrubStrings } from '../../src/secrets/redact.js';
import { dnsName, naturalCompare, OWNER_DISCOVER, type Spec } from './types.js';
import { credentialsFor, envKey, readCredentialsFile } from '../../src/secrets/bmc-credentials.js';
import { pushAll } from '../../src/krm/index.js';

interface Target {
  /** how results name it: `bmcs[2] (node01, https://10.0.0.5)` */
  label: string;
  field: string;
  address: string;
  origin: string;
  systemPath?: string;
  name?: string;
  credentialsSecret?: string;
  insecureSkipVerify: boolean;
  caFile?: string;
}

interface Found {
  target: Target;
  inv: HardwareInventorySpec;
  systemId: string;
  requests: number;
}

type Severity = 'error' | 'warning' | 'info';
/** results of one BMC, kept until every BMC is done and then reported in configuration order */
type Buffered = { severity: Severity; message: string; opts: ResultOptions }[];

class UserinfoError extends Error {}

export function parseAddress(address: string): { origin: string; systemPath?: string } {
  const raw = /^[a-z][a-z0-9+.-]*:\/\//i.test(address) ? address : `https://${address}`;
  // before parsing: a URL error must not quote a password either
  if (/^[a-z][a-z0-9+.-]*:\/\/[^?#]*@/i.test(raw))
    throw new UserinfoError(
      'it carries a user name or password; remove them from the address and give the credentials in env BMC_USERNAME / BMC_PASSWORD (or BMC_<NAME>_USERNAME / _PASSWORD) or a credentialsFile',
    );
  const u = new URL(raw);
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error(`scheme ${u.protocol} is not http or https`);
  const p = normalizePath(u.pathname);
  const systemPath = /^\/redfish\/v1\/systems\/[^/]+$/i.test(p)
    ? p.replace(/^\/redfish\/v1\/systems\//i, '/redfish/v1/Systems/')
    : undefined;
  return { origin: u.origin, systemPath };
}

/** The origin a range probes, written as URL.origin writes it (as parseAddress does): the default port dropped. */
export function rangeOrigin(scheme: string, host: string, port: number): string {
  return new URL(`${scheme}://${host}:${port}`).origin;
}

function hostsOf(text: string): string[] {
  const cidr = parseCidr(text, { strict: false });
  if (cidr?.family !== 4) throw new Error(`${text} is not an IPv4 CIDR`);
  if (cidr.prefix < 20) throw new Error(`${text} has more than 4096 addresses; split it into /20 or smaller ranges`);
  return [...hostAddresses(cidr)];
}

/** `{hostName|serviceTag|serialNumber}` over the inventory; undefined when every choice is empty. */
export function applyTemplate(template: string, inv: HardwareInventorySpec, systemId: string): string | undefined {
  let empty = false;
  const fields: Record<string, string | undefined> = { ...inv.system, systemId };
  const s = template.replace(/\{([^}]*)\}/g, (_m, alts: string) => {
    for (const a of alts.split('|')) {
      const v = fields[a.trim()];
      if (v && dnsName(v)) return v;
    }
    empty = true;
    return '';
  });
  if (empty) return undefined;
  return dnsName(s) || undefined;
}

/**
 * The name a System gets when its own names cannot be used (nothing to name it by, or the same
 * name as another System's): the BMC's host and port and the System Id, e.g. `10-0-0-5-437xr1138r2`.
 */
function fallbackName(address: string, systemId: string): string {
  const u = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(address) ? address : `https://${address}`);
  return toDnsLabel(`${u.hostname}${u.port ? `-${u.port}` : ''}-${systemId}`);
}

const DEFAULT_TEMPLATE = '{hostName|serviceTag|serialNumber}';

/** The credentials file, or the error that stops discovery (results already reported). */
function credentialsFile(ctx: Context<Spec>): { file?: Record<string, Credentials>; failed: boolean } {
  const path = ctx.spec.credentialsFile ?? ctx.env.BMC_CREDENTIALS_FILE;
  if (!path) return { failed: false };
  try {
    const file = readCredentialsFile(path);
    // the runtime scrubs them (and user:password, what Basic auth encodes) from every result
    for (const c of Object.values(file)) ctx.secrets.addCredentials(c.username, c.password);
    return { file, failed: false };
  } catch (e) {
    ctx.results.error((e as Error).message, { object: ctx.functionConfig, field: 'spec.credentialsFile', rule: 'discover/credentials' });
    return { failed: true };
  }
}

/** The BMCs of `spec.bmcs[]`; an address that cannot be used is an error (redacted, never contacted). */
function listedTargets(ctx: Context<Spec>): Target[] {
  const fc = ctx.functionConfig;
  const targets: Target[] = [];
  (ctx.spec.bmcs ?? []).forEach((b, i) => {
    const field = `spec.bmcs[${i}].address`;
    try {
      const { origin, systemPath: fromUrl } = parseAddress(b.address);
      const systemPath = fromUrl ?? (b.systemId ? `/redfish/v1/Systems/${encodeURIComponent(b.systemId)}` : undefined);
      targets.push({
        label: `bmcs[${i}] (${b.name ? b.name + ', ' : ''}${b.address})`,
        field,
        address: b.address,
        origin,
        systemPath,
        name: b.name,
        credentialsSecret: b.credentialsSecret,
        insecureSkipVerify: b.insecureSkipVerify ?? false,
        caFile: b.caFile,
      });
    } catch (e) {
      const shown = `bmcs[${i}]: address "${redactBmcAddress(b.address)}"`;
      if (e instanceof UserinfoError)
        ctx.results.error(`${shown} is refused: ${e.message}`, { object: fc, field, rule: 'discover/credentials-in-address' });
      else
        ctx.results.error(`${shown} is not usable (${(e as Error).message}); write https://host[:port][/redfish/v1/Systems/<id>]`, {
          object: fc,
          field,
          rule: 'discover/bad-address',
        });
    }
  });
  return targets;
}

/** Probes every address of `spec.ranges[]` for a Redfish service root (no credentials needed) and adds what answers. */
async function rangeTargets(ctx: Context<Spec>, limiter: Limiter, timeoutMs: number, targets: Target[]): Promise<void> {
  const fc = ctx.functionConfig;
  for (const [i, r] of (ctx.spec.ranges ?? []).entries()) {
    let hosts: string[];
    try {
      hosts = hostsOf(r.cidr);
    } catch (e) {
      ctx.results.error(`ranges[${i}]: ${(e as Error).message}`, {
        object: fc,
        field: `spec.ranges[${i}].cidr`,
        rule: 'discover/bad-range',
      });
      continue;
    }
    const scheme = r.scheme ?? 'https';
    const port = r.port ?? (scheme === 'https' ? 443 : 80);
    const probe = async (h: string) => {
      const origin = rangeOrigin(scheme, h, port);
      const opts = { origin, timeoutMs: Math.min(timeoutMs, 2000), retries: 0, maxInFlight: 1 };
      const c = new RedfishClient({ ...opts, insecureSkipVerify: r.insecureSkipVerify ?? false });
      try {
        const root = await c.get('/redfish/v1');
        return root.RedfishVersion || root.Systems ? origin : undefined;
      } catch {
        return undefined;
      } finally {
        await c.close();
      }
    };
    const found = await Promise.all(hosts.map((h) => limiter.run(() => probe(h))));
    for (const origin of found) {
      // listed in bmcs[] too: read once (origins compare equal: URL.origin drops default ports)
      if (!origin || targets.some((t) => t.origin === origin)) continue;
      targets.push({
        label: `ranges[${i}] (${origin})`,
        field: `spec.ranges[${i}]`,
        address: origin,
        origin,
        credentialsSecret: r.credentialsSecret,
        insecureSkipVerify: r.insecureSkipVerify ?? false,
      });
    }
    ctx.results.info(
      `ranges[${i}] ${r.cidr}: ${found.filter(Boolean).length} Redfish service(s) on port ${port} among ${hosts.length} addresses`,
      {
        object: fc,
        field: `spec.ranges[${i}]`,
        rule: 'discover/range',
      },
    );
  }
}

/** What crawling one BMC needs besides the target: the run's settings and where its results and closes go. */
interface CrawlRun {
  ctx: Context<Spec>;
  file?: Record<string, Credentials>;
  /** the environment, copied once: process.env is slow to read, and is read for every BMC */
  env: Record<string, string | undefined>;
  timeoutMs: number;
  failed: Set<Target>;
  closing: Promise<void>[];
}

/** The client for one BMC, or undefined (and an error buffered) when its credentials or CA cannot be had. */
function clientFor(run: CrawlRun, t: Target, out: Buffered): RedfishClient | undefined {
  const { ctx } = run;
  const fc = ctx.functionConfig;
  const credentials = credentialsFor(t, run.env, run.file);
  if (!credentials) {
    const perHost = t.name ? ` (or BMC_${envKey(t.name)}_USERNAME / _PASSWORD)` : '';
    out.push({
      severity: 'error',
      message: `${t.label}: no credentials; set BMC_USERNAME and BMC_PASSWORD${perHost} or a credentialsFile`,
      opts: { object: fc, field: t.field, rule: 'discover/credentials' },
    });
    return undefined;
  }
  let ca: string | undefined;
  if (t.caFile) {
    try {
      ca = readFileSync(t.caFile, 'utf8');
    } catch (e) {
      out.push({
        severity: 'error',
        message: `${t.label}: caFile ${t.caFile} cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`,
        opts: { object: fc, field: t.field.replace(/address$/, 'caFile'), rule: 'discover/ca' },
      });
      return undefined;
    }
  }
  const spec = ctx.spec;
  return new RedfishClient({
    origin: t.origin,
    credentials,
    auth: spec.auth ?? 'basic',
    timeoutMs: run.timeoutMs,
    retries: spec.retries ?? 2,
    insecureSkipVerify: t.insecureSkipVerify,
    ca,
    maxInFlight: spec.requestsPerBmc ?? 4,
    deadlineMs: Math.round((spec.bmcDeadlineSeconds ?? 300) * 1000),
  });
}

/**
 * Crawls every System of one BMC. Its results are buffered in `out`; everything reported or
 * kept is scrubbed of the credentials and session tokens in use (a BMC may echo them).
 */
async function crawlBmc(run: CrawlRun, t: Target, out: Buffered): Promise<Found[]> {
  const client = clientFor(run, t, out);
  if (!client) {
    run.failed.add(t);
    return [];
  }
  const fc = run.ctx.functionConfig;
  const found: Found[] = [];
  const notes: { systemId: string; note: SystemNote }[] = [];
  try {
    const service = await listSystems(client, { expand: run.ctx.spec.expand, only: t.systemPath });
    const paths = service.paths;
    if (!paths.length) throw new Error('the service root lists no Systems');
    const shared = client.requests;
    for (const p of paths) {
      const before = client.requests;
      const bmc: HardwareInventorySpec['bmc'] = { address: t.address, systemPath: p };
      if (t.credentialsSecret) bmc.credentialsSecret = t.credentialsSecret;
      if (t.insecureSkipVerify) bmc.insecureSkipVerify = true;
      const d = await discoverSystem(client, p, bmc, { service: service.service }, service.inline.get(p));
      const systemId = p.split('/').pop() ?? p;
      found.push({ target: t, inv: d.inventory, systemId, requests: client.requests - before + (paths.length === 1 ? shared : 0) });
      for (const note of d.notes) notes.push({ systemId, note });
    }
    const perSystem =
      paths.length > 1 ? ` (${shared} for the service root and Systems, then ${found.map((f) => f.requests).join(', ')})` : '';
    out.push({
      severity: 'info',
      message: `${t.label}: ${paths.length} System(s), ${client.requests} Redfish request(s)${perSystem}`,
      opts: {
        object: fc,
        field: t.field,
        rule: 'discover/requests',
        tags: { requests: String(client.requests), systems: String(paths.length) },
      },
    });
    for (const f of found)
      for (const m of f.inv.missing ?? [])
        out.push({
          severity: 'warning',
          message: `${t.label}: ${f.systemId}: ${m} (recorded as missing; the rest of the System was read)`,
          opts: { object: fc, field: t.field, rule: 'discover/missing' },
        });
    for (const { systemId, note } of notes)
      out.push({
        severity: note.severity,
        message: `${t.label}: ${systemId}: ${note.message}`,
        opts: { object: fc, field: t.field, rule: note.rule },
      });
  } catch (e) {
    run.failed.add(t);
    out.push({
      severity: 'error',
      message: `${t.label}: discovery failed: ${describeFailure(e)}`,
      opts: { object: fc, field: t.field, rule: 'discover/bmc' },
    });
    found.length = 0;
  } finally {
    // log out and close after the slot is free: the next BMC need not wait for it
    run.closing.push(client.close());
  }
  // session tokens: the runtime scrubs them from every result too
  for (const token of client.secrets()) run.ctx.secrets.add(token);
  const redactor = redactorFor(client.secrets());
  const scrub = (text: string) => redactor.scrubKnown(text);
  for (const r of out) r.message = scrub(r.message);
  // one look at the whole inventory; its strings are walked only when a credential is in it
  return found.map((f) => {
    const text = JSON.stringify(f.inv);
    return scrub(text) === text ? f : { ...f, inv: scrubStrings(f.inv, scrub) };
  });
}

/** A Redactor of these secrets: one for every BMC that shares its credentials (and has no session token of its own). */
const redactors = new Map<string, Redactor>();
function redactorFor(secrets: string[]): Redactor {
  const key = secrets.join('\0');
  let r = redactors.get(key);
  if (!r) {
    r = new Redactor();
    for (const s of secrets) r.add(s);
    if (redactors.size < 64) redactors.set(key, r);
  }
  return r;
}

/** The name a System would get from the configuration: bmcs[].name (with the System Id when a BMC has several), else the template. */
function configuredName(spec: Spec, f: Found, systemsOfBmc: number): { name?: string; explicit: boolean } {
  const t = f.target;
  if (t.name) return { name: systemsOfBmc > 1 ? dnsName(`${t.name}-${f.systemId}`) : t.name, explicit: true };
  return { name: applyTemplate(spec.nameTemplate ?? DEFAULT_TEMPLATE, f.inv, f.systemId), explicit: false };
}

/**
 * Names every System found. A System the template cannot name, and every System whose
 * template name another System also gets, is named from its BMC address and System Id
 * (fallbackName) with a warning naming the others: one name problem never stops a fleet scan.
 * Two Systems named the same by bmcs[].name are an error (the configuration contradicts itself).
 */
function nameSystems(ctx: Context<Spec>, perTarget: Found[][]): Map<string, Found> {
  const fc = ctx.functionConfig;
  const template = ctx.spec.nameTemplate ?? DEFAULT_TEMPLATE;
  const wanted = perTarget.flatMap((found) => found.map((f) => ({ f, ...configuredName(ctx.spec, f, found.length) })));
  const byName = new Map<string, typeof wanted>();
  for (const w of wanted) if (w.name) byName.set(w.name, [...(byName.get(w.name) ?? []), w]);
  const who = (f: Found) => `${f.target.label} System ${f.systemId}`;
  const named = new Map<string, Found>();
  for (const w of wanted) {
    const t = w.f.target;
    let name = w.name;
    const same = name ? byName.get(name)!.filter((o) => o !== w) : [];
    if (!name || (!w.explicit && same.length)) {
      name = fallbackName(t.address, w.f.systemId);
      const why = w.name
        ? `would be named "${w.name}" like ${same.map((o) => who(o.f)).join(', ')}`
        : `gives no name from nameTemplate "${template}" (no hostName, serial number or other usable identity)`;
      ctx.results.warning(`${who(w.f)} ${why}; named "${name}" from its BMC address and System Id (set bmcs[].name to choose)`, {
        object: fc,
        field: t.field,
        rule: w.name ? 'discover/duplicate-name' : 'discover/name',
      });
    }
    const other = named.get(name);
    if (other) {
      ctx.results.error(`${who(w.f)} would be named "${name}", like ${who(other)}; set bmcs[].name for one of them`, {
        object: fc,
        field: t.field,
        rule: 'discover/duplicate-name',
      });
      continue;
    }
    named.set(name, w.f);
  }
  return named;
}

/** The targets that asked for this System: same origin, and no System of their own or this one. */
function askedBy(targets: readonly Target[], bmc: HardwareInventorySpec['bmc'] | undefined): Target[] {
  if (!bmc?.address) return [];
  let origin: string;
  try {
    origin = parseAddress(bmc.address).origin;
  } catch {
    return [];
  }
  const system = bmc.systemPath?.toLowerCase();
  return targets.filter((t) => t.origin === origin && (t.systemPath === undefined || t.systemPath.toLowerCase() === system));
}

/** Names for a message: the first 20, then how many more. */
function listed(names: readonly string[]): string {
  return names.length > 20 ? `${names.slice(0, 20).join(', ')} and ${names.length - 20} more` : names.join(', ');
}

/**
 * The snapshots discover wrote before and does not write again this time that it keeps: its
 * output is the package's inventory, so an item it drops is a file deleted (kpt, --sink).
 * It drops only the snapshot of a System whose BMC it asked and that answered without it
 * (gone, or now named otherwise). A BMC that failed keeps its snapshots (a warning); one this
 * run did not ask (not listed, an address it refused, a range that no longer finds it) keeps
 * them too (an info naming them): delete those files to retire a host.
 */
function keptSnapshots(ctx: Context<Spec>, targets: readonly Target[], failed: Set<Target>, names: Set<string>): Desired[] {
  const kept: Desired[] = [];
  const notAsked: KubeObject[] = [];
  for (const item of ctx.ofKind(INVENTORY_KIND, 'baremetal-krm.dev') as KubeObject[]) {
    if (item.annotations[GENERATED_BY] !== OWNER_DISCOVER || names.has(item.name)) continue;
    const asked = askedBy(targets, (item.data.spec as HardwareInventorySpec | undefined)?.bmc);
    if (asked.length && !asked.some((t) => failed.has(t))) continue;
    kept.push({ data: structuredClone(item.data) });
    names.add(item.name);
    if (asked.length)
      ctx.results.warning(`${item.name}: kept the previous inventory snapshot because its BMC failed`, {
        object: item,
        rule: 'discover/kept',
      });
    else notAsked.push(item);
  }
  if (notAsked.length)
    ctx.results.info(
      `kept the inventory of ${notAsked.length} host(s) whose BMC this run did not ask (not in spec.bmcs or spec.ranges): ${listed(notAsked.map((o) => o.name))}; delete their files to retire them`,
      { object: notAsked[0], rule: 'discover/not-asked' },
    );
  return kept;
}

/**
 * V8 optimises a function once it has run enough bytecode: right for a long process, wasted on a
 * discovery of a few hundred BMCs, a short process that mostly waits. Its per-System code (the
 * crawl, the normalisation, the request path) ran a few hundred to a few thousand times and
 * TurboFan compiled 80 functions for it: ~1 s of compile jobs, a quarter of the process's CPU
 * at 500 BMCs (perf). With ten times the budget (bytecode run per tick before TurboFan is
 * considered; V8 11 has 66 KiB, V8 12 and later 132 KiB, with Maglev below it) the function
 * used ~15% less CPU at 500 BMCs x 20 ms, about the same at 1,000 x 50 ms, and ~25% more at
 * 10,000 (hot code ran unoptimised for longer): so only for fleets up to SHORT_RUN_BMCS.
 * A hundred times the budget does better still (instructions of the whole process, all threads,
 * under valgrind on the simulator: 300 BMCs -6.5%, 500 BMCs -3.4%, 1,000 BMCs the same; the
 * default budget costs +23% at 300): the compile jobs cost more than the optimised code saves
 * until well past a thousand BMCs. Set once the BMCs are known, after the bundle's code cache
 * was read (V8 checks the cache against the flags it was made with).
 */
const DISCOVERY_INTERRUPT_BUDGET = 100 * 66 * 1024;
const SHORT_RUN_BMCS = 1000;

/**
 * V8's young generation starts at 1 MiB and doubles when enough of it survives; a crawl keeps
 * much of it alive (the 100 BMCs in flight: sockets, promises, the Systems being read), so it
 * scavenged 1-2 MiB at a time, copying and promoting most of it, until it had doubled its way
 * to the maximum (16 MiB), which it reaches in every crawl of a few hundred BMCs. Grown at once
 * (read at each growth, so a flag that can be set now), a crawl of 500 BMCs x 20 ms scavenged 9
 * times instead of 16, with 9% fewer page faults and ~3% fewer instructions (valgrind); 8% fewer
 * faults at 1,000 x 50 ms.
 */
const DISCOVERY_GC_FLAGS = '--semi-space-growth-factor=16';

export async function runDiscover(ctx: Context<Spec>): Promise<void> {
  const { file, failed: badFile } = credentialsFile(ctx);
  if (badFile) return;
  const timeoutMs = Math.round((ctx.spec.timeoutSeconds ?? 10) * 1000);
  const limiter = new Limiter(ctx.spec.concurrency ?? 64);
  const targets = listedTargets(ctx);
  await rangeTargets(ctx, limiter, timeoutMs, targets);
  // node:v8 is loaded here, not imported at the top: loading it costs ~7M instructions (~8% of
  // node's own start), which every run of the bundle would pay (generate, --help ...)
  const budget = targets.length <= SHORT_RUN_BMCS ? ` --interrupt-budget=${DISCOVERY_INTERRUPT_BUDGET}` : '';
  process.getBuiltinModule('node:v8').setFlagsFromString(DISCOVERY_GC_FLAGS + budget);

  const run: CrawlRun = { ctx, file, env: { ...ctx.env }, timeoutMs, failed: new Set(), closing: [] };
  const buffered: Buffered[] = targets.map(() => []);
  const perTarget = await Promise.all(targets.map((t, i) => limiter.run(() => crawlBmc(run, t, buffered[i]!))));
  await Promise.all(run.closing); // close() never throws
  for (const list of buffered) for (const r of list) ctx.results.add(r.severity, r.message, r.opts);

  const named = nameSystems(ctx, perTarget);
  const desired: Desired[] = [...named].map(([name, f]) => ({
    data: {
      apiVersion: INVENTORY_API_VERSION,
      kind: INVENTORY_KIND,
      metadata: { name, annotations: { 'config.kubernetes.io/local-config': 'true' } },
      spec: f.inv,
    },
    path: `inventory/${name}.yaml`,
  }));
  pushAll(desired, keptSnapshots(ctx, targets, run.failed, new Set(named.keys())));
  const nameOf = (d: Desired) => String((d.data.metadata as { name: string }).name);
  desired.sort((a, b) => naturalCompare(nameOf(a), nameOf(b)));
  ctx.reconcile(OWNER_DISCOVER, desired);
  const systems = perTarget.reduce((n, f) => n + f.length, 0);
  const requests = perTarget.flat().reduce((n, f) => n + f.requests, 0);
  const rate = systems ? `, ${(requests / systems).toFixed(1)} Redfish requests per System` : '';
  ctx.results.info(`discovered ${systems} System(s) from ${targets.length - run.failed.size} of ${targets.length} BMC(s)${rate}`, {
    object: ctx.functionConfig,
    rule: 'discover/summary',
  });
}
