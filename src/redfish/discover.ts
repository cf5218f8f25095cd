/**
 * Crawls one Redfish System for what a BareMetalHost and HardwareData need, and nothing
 * more, then hands the raw JSON to `normalizeSystem`. Request budget per System (plain
 * address): the Systems collection (no service root: `/redfish/v1/Systems` is the URI the
 * Redfish specification fixes), the System, Processors + the first CPU (members that look like
 * CPUs first), EthernetInterfaces + members, Storage + controllers + drives (or SimpleStorage +
 * members), BootOptions + only the options up to the first network boot option in BootOrder that
 * names its NIC, Bios only on Dell (PxeDev / HttpDev settings, BootMode), the VirtualMedia
 * collection (the boot method BMO can use), and the Manager only when the System has a HostName
 * (is it the BMC's own?) or links no VirtualMedia itself.
 *
 * Collections are asked with `?only`: a service that honours it answers a one-member collection
 * with the member itself (one request instead of two); one that does not ignores it, as the
 * specification requires of query parameters without `$`. A service that refuses it (400, 501)
 * is asked plainly from then on. With `expand`, and only when the service root advertises it
 * (ProtocolFeaturesSupported.ExpandQuery), collections are read with their members inline; a
 * BMC that refuses or ignores the query gets the plain crawl. Optional resources that fail
 * (401/403/404/5xx, bad JSON, a Redfish error body) are recorded in `missing` and the crawl goes on.
 */
import { BudgetError, normalizePath, type RedfishClient, RedfishError } from './client.js';
import type { HardwareInventorySpec } from '../model/hardware-inventory.js';
import { bootOptionNic, normalizeSystem, type RawSystem, type SystemNote } from './normalize.js';
import { hostNameText } from './text.js';
import { pushAll } from '../krm/index.js';

type Json = Record<string, unknown>;
interface Link {
  path: string;
  inline?: Json;
}

/** What one Redfish service understands, learnt once per BMC and shared by its Systems. */
export interface ServiceFeatures {
  /** the `$expand` query to ask collections with (`.($levels=1)`, from `expandQuery(root)`); absent: none */
  expand?: string;
  /** ask collections `?only` (true until the service refuses it) */
  only: boolean;
}

export interface CrawlOptions {
  service?: ServiceFeatures;
  /** most members one collection may list, over all its pages; default 4096 */
  maxMembers?: number;
  /** most bytes one collection's pages may take together; default 16 MiB */
  maxCollectionBytes?: number;
  /** most pages in a row without a member before a collection is given up; default 8 */
  maxEmptyPages?: number;
}

const DEFAULT_MAX_MEMBERS = 4096;
const DEFAULT_MAX_COLLECTION_BYTES = 16 << 20;
const DEFAULT_MAX_EMPTY_PAGES = 8;

/**
 * The `$expand` value a service root advertises for "this collection's members, one level":
 * `.` needs ExpandQuery.NoLinks, `*` ExpandAll; `($levels=1)` only with ExpandQuery.Levels.
 * Undefined when the service does not advertise $expand.
 */
export function expandQuery(root: Json): string | undefined {
  const pf = root.ProtocolFeaturesSupported as Json | undefined;
  const eq = (pf && typeof pf === 'object' ? pf.ExpandQuery : undefined) as Json | undefined;
  if (!eq || typeof eq !== 'object') return undefined;
  const what = eq.NoLinks === true ? '.' : eq.ExpandAll === true ? '*' : undefined;
  if (!what) return undefined;
  return eq.Levels === true ? `${what}($levels=1)` : what;
}

function link(o: unknown, ...keys: string[]): string | undefined {
  let cur: unknown = o;
  for (const k of keys) {
    if (!cur || typeof cur !== 'object') return undefined;
    cur = (cur as Json)[k];
  }
  if (Array.isArray(cur)) cur = cur[0];
  if (cur && typeof cur === 'object' && typeof (cur as Json)['@odata.id'] === 'string')
    return normalizePath((cur as Json)['@odata.id'] as string);
  return undefined;
}

function memberLinks(coll: Json): Link[] {
  const m = coll.Members;
  if (!Array.isArray(m)) return [];
  const out: Link[] = [];
  for (const x of m) {
    if (!x || typeof x !== 'object' || typeof (x as Json)['@odata.id'] !== 'string') continue;
    const path = normalizePath((x as Json)['@odata.id'] as string);
    const expanded = Object.keys(x as Json).some((k) => !k.startsWith('@odata.'));
    out.push(expanded ? { path, inline: x as Json } : { path });
  }
  return out;
}

const lastSegment = (path: string) => path.slice(path.lastIndexOf('/') + 1);

export function describeFailure(e: unknown): string {
  if (e instanceof RedfishError) return e.message;
  return (e as Error).message ?? String(e);
}

/** `?only` was not understood: the service refused the query or answered it with garbage */
const onlyRefused = (e: RedfishError) => e.status === 400 || e.status === 405 || e.status === 501 || e.status === -1;

const isCpu = (p: Json) => (p.ProcessorType ?? 'CPU') === 'CPU' && (p.Status as Json | undefined)?.State !== 'Absent';
const CPU_NAME = /cpu|proc|socket/i;
const ACCELERATOR_NAME = /gpu|fpga|accel|npu|dpu|dsp/i;

export class SystemCrawler {
  readonly missing: string[] = [];
  readonly service: ServiceFeatures;
  constructor(
    readonly client: RedfishClient,
    readonly opts: CrawlOptions = {},
  ) {
    this.service = opts.service ?? { only: true };
  }

  #rel(path: string, systemPath: string): string {
    return path.startsWith(systemPath + '/') ? path.slice(systemPath.length + 1) : path;
  }

  /** GET an optional resource: undefined (and a `missing` entry) when it cannot be read. */
  async optional(path: string, label: string): Promise<Json | undefined> {
    try {
      return (await this.client.getSized(path)).json; // no wrapper around #optionalSized: one async frame per request less
    } catch (e) {
      this.#missed(e, label);
      return undefined;
    }
  }

  async #optionalSized(path: string, label: string): Promise<{ json: Json; bytes: number } | undefined> {
    try {
      return await this.client.getSized(path);
    } catch (e) {
      this.#missed(e, label);
      return undefined;
    }
  }

  /** An optional resource could not be read: a `missing` entry, or the crawl of this BMC stops (a budget). */
  #missed(e: unknown, label: string): void {
    if (e instanceof BudgetError) throw new BudgetError(`${label}: ${e.message}`, e.path);
    this.missing.push(`${label}: ${describeFailure(e)}`);
  }

  /** The first page of a collection: `$expand`ed, `?only`, or plain; errors thrown. */
  async #firstPage(path: string, label: string): Promise<{ json: Json; bytes: number }> {
    const { expand } = this.service;
    const query = expand ? `$expand=${expand}` : this.service.only ? 'only' : undefined;
    if (query) {
      try {
        return await this.client.getSized(`${path}?${query}`);
      } catch (e) {
        if (e instanceof BudgetError) throw new BudgetError(`${label}: ${e.message}`, e.path);
        if (!(e instanceof RedfishError)) throw e;
        // $expand refused: the plain collection. `?only` refused: never again on this service;
        // a 404 may be a service that takes the query for part of the path: asked plainly once
        if (expand || onlyRefused(e) || e.status === 404) {
          const plain = await this.client.getSized(path);
          if (!expand) this.service.only = false;
          return plain;
        }
        throw e;
      }
    }
    return this.client.getSized(path);
  }

  /**
   * A collection's member links, following `Members@odata.nextLink` pages, within `maxMembers`
   * and `maxCollectionBytes` (a BudgetError naming the collection past them). A page that
   * repeats an earlier one, or more than `maxEmptyPages` pages in a row without a member, end
   * the collection with a `missing` entry saying so. Unreadable: undefined and a `missing` entry
   * (`required`: the error is thrown instead).
   */
  async collectionLinks(path: string, label: string, required = false): Promise<Link[] | undefined> {
    let first: { json: Json; bytes: number };
    try {
      first = await this.#firstPage(path, label);
    } catch (e) {
      if (e instanceof BudgetError) throw e;
      if (required) throw e instanceof RedfishError ? new RedfishError(`${label}: ${e.message}`, e.status, e.path) : e;
      this.missing.push(`${label}: ${describeFailure(e)}`);
      return undefined;
    }
    if (!Array.isArray(first.json.Members)) {
      // `?only` on a one-member collection: the member itself (the collection when it names itself)
      const id = typeof first.json['@odata.id'] === 'string' ? normalizePath(first.json['@odata.id']) : undefined;
      if (id && id !== path) return [{ path: id, inline: first.json }];
      return [];
    }
    return this.#pages(path, label, first);
  }

  async #pages(path: string, label: string, first: { json: Json; bytes: number }): Promise<Link[]> {
    const maxMembers = this.opts.maxMembers ?? DEFAULT_MAX_MEMBERS;
    const maxBytes = this.opts.maxCollectionBytes ?? DEFAULT_MAX_COLLECTION_BYTES;
    const maxEmpty = this.opts.maxEmptyPages ?? DEFAULT_MAX_EMPTY_PAGES;
    let bytes = first.bytes;
    const out = memberLinks(first.json);
    const check = () => {
      if (out.length > maxMembers) throw new BudgetError(`${label}: more than ${maxMembers} members; the crawl of this BMC stopped`, path);
      if (bytes > maxBytes)
        throw new BudgetError(
          `${label}: its pages take more than ${maxBytes >= 1 << 20 ? `${maxBytes / (1 << 20)} MiB` : `${maxBytes} bytes`}; the crawl of this BMC stopped`,
          path,
        );
    };
    check();
    let next = first.json['Members@odata.nextLink'];
    const seen = new Set<string>([path]);
    let empty = 0;
    while (typeof next === 'string') {
      const at = normalizePath(next) + (next.includes('?') ? next.slice(next.indexOf('?')) : '');
      if (seen.has(at)) {
        this.missing.push(`${label}: Members@odata.nextLink repeats an earlier page; the collection was read up to there`);
        break;
      }
      if (empty >= maxEmpty) {
        this.missing.push(`${label}: ${empty} pages in a row without a member; the collection was read up to there`);
        break;
      }
      seen.add(at);
      const page = await this.#optionalSized(next, `${label} (next page)`);
      if (!page) break;
      bytes += page.bytes;
      const members = memberLinks(page.json);
      empty = members.length ? 0 : empty + 1;
      pushAll(out, members);
      check();
      next = page.json['Members@odata.nextLink'];
    }
    const dedup = new Map<string, Link>();
    for (const m of out) if (!dedup.has(m.path)) dedup.set(m.path, m);
    return [...dedup.values()];
  }

  /** Every member of a collection (fetched in parallel, bounded by the client). */
  async members(path: string, label: string, systemPath: string): Promise<Json[]> {
    const links = await this.collectionLinks(path, label);
    if (!links) return [];
    const got = await Promise.all(links.map((l) => l.inline ?? this.optional(l.path, this.#rel(l.path, systemPath))));
    return got.filter((x): x is Json => x !== undefined);
  }

  /**
   * The BootOptions that decide the boot NIC: following Boot.BootOrder, each option up to and
   * including the first network boot option that names its NIC (MAC, or a Dell BIOS
   * PxeDev/HttpDev interface). An option is fetched by its member path when that is named after
   * its reference (`.../BootOptions/Boot0001`, or `.../BootOptions/0001` for `Boot0001`), else
   * members are read in order until found. With no BootOrder, or no such option, every option is
   * read. The result does not depend on `$expand` or on how many requests run at once.
   */
  async #bootOptions(path: string, system: Json, systemPath: string, bios: Promise<Json | undefined>): Promise<Json[]> {
    const links = await this.collectionLinks(path, 'BootOptions');
    if (!links?.length) return [];
    const order = ((system.Boot as Json | undefined)?.BootOrder ?? []) as unknown[];
    const refs = Array.isArray(order) ? order.filter((r): r is string => typeof r === 'string') : [];
    const got = new Map<string, Json | undefined>(); // member path -> body (undefined: unreadable)
    const byRef = new Map<string, Json>();
    const read = async (l: Link) => {
      if (got.has(l.path)) return;
      got.set(l.path, undefined);
      const j = l.inline ?? (await this.optional(l.path, this.#rel(l.path, systemPath)));
      if (!j) return;
      got.set(l.path, j);
      const ref = typeof j.BootOptionReference === 'string' ? j.BootOptionReference : lastSegment(l.path);
      byRef.set(ref.toLowerCase(), j);
    };
    // a member id is the reference (`Boot0001`) or its hex number (`0001`)
    const refOf = (l: Link) =>
      lastSegment(l.path)
        .toLowerCase()
        .replace(/^(?=[0-9a-f]{4}$)/, 'boot');
    const byMemberRef = new Map(links.map((l) => [refOf(l), l]));
    // members named after their references (Dell, Supermicro, DMTF): a reference with no such member is not there
    const namedByRef = links.every((l) => /^boot[0-9a-f]{4}$/.test(refOf(l)));
    const chosen: Json[] = [];
    let cursor = 0;
    for (const ref of refs) {
      const key = ref.toLowerCase();
      const direct = byMemberRef.get(key);
      if (direct)
        await read(direct); // unreadable: a missing entry, and on to the next reference
      else if (!namedByRef) while (!byRef.has(key) && cursor < links.length) await read(links[cursor++]!);
      const o = byRef.get(key);
      if (!o || chosen.includes(o)) continue;
      chosen.push(o);
      // a Dell "HTTP Device 1: ..." names its NIC only through the BIOS attributes
      const attrs = /^(HTTP|PXE) Device \d+/i.test(String(o.DisplayName ?? ''))
        ? ((await bios)?.Attributes as Json | undefined)
        : undefined;
      if (bootOptionNic(o, attrs)) return chosen;
    }
    // no BootOrder, or no network option in it that names a NIC: every option, in member order
    await Promise.all(links.map((l) => read(l)));
    return links.map((l) => got.get(l.path)).filter((j): j is Json => j !== undefined);
  }

  /**
   * Processors up to the first CPU (members named like CPUs first: Dell lists its GPU
   * `Video.Slot.2-1` before `CPU.Socket.1`): the summary gives sockets and often cores, one CPU
   * model, architecture and speed. A System that may be no server (`acceleratorOnly`) stops as
   * soon as every member left is named like an accelerator.
   */
  async #processors(system: Json, raw: RawSystem, acceleratorOnly: boolean): Promise<void> {
    const procs = link(system, 'Processors');
    if (!procs) return void this.missing.push('Processors: not linked');
    const links = (await this.collectionLinks(procs, 'Processors')) ?? [];
    raw.processorCount = links.length;
    const cpuLike = (l: Link) => (CPU_NAME.test(l.path.slice(procs.length)) ? 0 : 1);
    const ordered = links
      .map((l, i) => ({ l, i }))
      .sort((a, b) => cpuLike(a.l) - cpuLike(b.l) || a.i - b.i)
      .map((x) => x.l);
    for (const [i, l] of ordered.entries()) {
      if (acceleratorOnly && raw.processors.length && ordered.slice(i).every((m) => ACCELERATOR_NAME.test(lastSegment(m.path)))) break;
      const p = l.inline ?? (await this.optional(l.path, this.#rel(l.path, raw.path)));
      if (!p) continue;
      raw.processors.push(p);
      if (isCpu(p)) break;
    }
  }

  /** Storage controllers and their drives (each drive once), or SimpleStorage when there are none. */
  async #storage(system: Json, raw: RawSystem): Promise<void> {
    const storage = link(system, 'Storage');
    const simple = link(system, 'SimpleStorage');
    if (!storage) {
      if (simple) pushAll(raw.simpleStorage, await this.members(simple, 'SimpleStorage', raw.path));
      else this.missing.push('Storage: not linked');
      return;
    }
    const ctrls = await this.members(storage, 'Storage', raw.path);
    const seen = new Set<string>();
    const jobs: Promise<void>[] = [];
    for (const s of ctrls) {
      const protocols = new Set<string>();
      for (const c of (Array.isArray(s.StorageControllers) ? s.StorageControllers : []) as Json[])
        for (const p of (Array.isArray(c?.SupportedDeviceProtocols) ? c.SupportedDeviceProtocols : []) as unknown[])
          protocols.add(String(p));
      for (const d of (Array.isArray(s.Drives) ? s.Drives : []) as Json[]) {
        const id = d && typeof d['@odata.id'] === 'string' ? normalizePath(d['@odata.id']) : undefined;
        if (!id || seen.has(id)) continue;
        seen.add(id);
        const inline = Object.keys(d).some((k) => !k.startsWith('@odata.')) ? d : undefined;
        jobs.push(
          (async () => {
            const j = inline ?? (await this.optional(id, this.#rel(id, raw.path)));
            if (j) raw.drives.push({ path: id, drive: j, controllerProtocols: [...protocols].sort() });
          })(),
        );
      }
    }
    await Promise.all(jobs);
    if (seen.size === 0 && simple) pushAll(raw.simpleStorage, await this.members(simple, 'SimpleStorage', raw.path));
  }

  /** How many VirtualMedia devices a collection lists; undefined when it cannot be read. */
  async #mediaCount(path: string): Promise<number | undefined> {
    return (await this.collectionLinks(path, 'VirtualMedia'))?.length;
  }

  /**
   * The System's VirtualMedia (its own link, else its Manager's) and, when the System has a
   * HostName, its Manager: the Manager is read only when one of the two needs it.
   */
  async #managerAndMedia(system: Json, raw: RawSystem): Promise<void> {
    const own = link(system, 'VirtualMedia');
    const managerPath = link(system, 'Links', 'ManagedBy');
    const needManager = !!managerPath && (hostNameText(system.HostName) !== undefined || !own);
    const [manager, count] = await Promise.all([
      needManager ? this.optional(managerPath, 'Manager') : undefined,
      own ? this.#mediaCount(own) : undefined,
    ]);
    if (manager) raw.manager = manager;
    if (own) raw.virtualMedia = count;
    else if (manager) {
      const theirs = link(manager, 'VirtualMedia');
      raw.virtualMedia = theirs ? await this.#mediaCount(theirs) : 0;
    } else if (!managerPath) raw.virtualMedia = 0; // nothing links any: there is none
  }

  /**
   * The DIMMs, when they are needed or cheap: the summary is missing or zero (a host that is off
   * may report none), or `$expand` gives them inline in one request (to check the summary
   * against them; a BMC that does not inline them is not asked DIMM by DIMM for that).
   */
  async #memory(system: Json, raw: RawSystem): Promise<void> {
    const path = link(system, 'Memory');
    if (!path) return;
    const gib = (system.MemorySummary as Json | undefined)?.TotalSystemMemoryGiB;
    const summarised = typeof gib === 'number' && gib > 0;
    if (summarised && !this.service.expand) return;
    const links = await this.collectionLinks(path, 'Memory');
    if (!links || (summarised && links.some((l) => !l.inline))) return;
    const dimms = await Promise.all(links.map((l) => l.inline ?? this.optional(l.path, this.#rel(l.path, raw.path))));
    raw.memory = dimms.filter((d): d is Json => d !== undefined);
  }

  async crawl(systemPath: string, inline?: Json): Promise<RawSystem> {
    const system = inline ?? (await this.client.get(systemPath)); // required: throws
    const raw: RawSystem = {
      path: systemPath,
      system,
      processors: [],
      ethernet: [],
      drives: [],
      simpleStorage: [],
      bootOptions: [],
      missing: this.missing,
    };
    const eth = link(system, 'EthernetInterfaces');
    // no Boot object, no NICs, no storage: maybe an accelerator baseboard, not a server
    const maybeNoHost = !system.Boot && !eth && !link(system, 'Storage') && !link(system, 'SimpleStorage');
    const biosPath = link(system, 'Bios');
    const bios: Promise<Json | undefined> =
      biosPath && /dell/i.test(String(system.Manufacturer ?? '')) ? this.optional(biosPath, 'Bios') : Promise.resolve(undefined);
    const boot = link(system, 'Boot', 'BootOptions');
    const tasks: Promise<unknown>[] = [this.#processors(system, raw, maybeNoHost), bios.then((b) => b && (raw.bios = b))];
    if (!maybeNoHost) {
      if (eth) tasks.push(this.members(eth, 'EthernetInterfaces', systemPath).then((m) => pushAll(raw.ethernet, m)));
      else this.missing.push('EthernetInterfaces: not linked');
      tasks.push(this.#storage(system, raw), this.#managerAndMedia(system, raw), this.#memory(system, raw));
      if (boot) tasks.push(this.#bootOptions(boot, system, systemPath, bios).then((m) => pushAll(raw.bootOptions, m)));
    }
    await Promise.all(tasks);
    return raw;
  }
}

/** One System discovered: its inventory, and what discovery has to say about it (not kept in the inventory). */
export interface DiscoveredSystem {
  inventory: HardwareInventorySpec;
  notes: SystemNote[];
}

/** Crawls and normalises one System (`inline`: its body, when the Systems collection gave it). */
export async function discoverSystem(
  client: RedfishClient,
  systemPath: string,
  bmc: HardwareInventorySpec['bmc'],
  opts: CrawlOptions = {},
  inline?: Json,
): Promise<DiscoveredSystem> {
  const crawler = new SystemCrawler(client, opts);
  const raw = await crawler.crawl(systemPath, inline);
  return normalizeSystem(raw, bmc);
}

export interface ServiceSystems {
  /** System paths, sorted */
  paths: string[];
  /** System bodies the Systems collection already gave (`?only` or `$expand`) */
  inline: Map<string, Json>;
  /** what the service understands, for every System's crawl */
  service: ServiceFeatures;
}

/**
 * The System paths behind a service: the Systems collection at the URI the specification fixes
 * (`?only`: a service with one System answers with it), or where the service root says when it
 * is not there. The service root is read first only for `expand` (to learn what it advertises).
 * `only`: a known System path; then the Systems collection is not read.
 */
export async function listSystems(client: RedfishClient, opts: { expand?: boolean; only?: string } = {}): Promise<ServiceSystems> {
  const service: ServiceFeatures = { only: true };
  let root: Json | undefined;
  if (opts.expand) {
    root = await client.get('/redfish/v1');
    service.expand = expandQuery(root);
  }
  if (opts.only) return { paths: [opts.only], inline: new Map(), service };
  const crawler = new SystemCrawler(client, { service });
  const at = (root && link(root, 'Systems')) ?? '/redfish/v1/Systems';
  let links: Link[];
  try {
    links = (await crawler.collectionLinks(at, 'Systems', true))!;
  } catch (e) {
    if (root || !(e instanceof RedfishError) || e.status !== 404) throw e;
    root = await client.get('/redfish/v1');
    const elsewhere = link(root, 'Systems');
    if (!elsewhere || elsewhere === at) throw e;
    links = (await crawler.collectionLinks(elsewhere, 'Systems', true))!;
  }
  const inline = new Map<string, Json>();
  for (const l of links) if (l.inline) inline.set(l.path, l.inline);
  return { paths: links.map((l) => l.path).sort(), inline, service };
}
