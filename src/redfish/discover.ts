/**
 * Crawls one Redfish System for what a BareMetalHost and HardwareData need, and nothing
 * more, then hands the raw JSON to `normalizeSystem`. Request budget per System (plain
 * address): ServiceRoot, Systems, System, Processors + the first CPU (members that look like
 * CPUs first), EthernetInterfaces + members, Storage + controllers + drives (or SimpleStorage
 * + members), BootOptions + only the options up to the first network boot option in BootOrder
 * that names its NIC, and Bios only on Dell (PxeDev / HttpDev settings). With `expand`, and
 * only when the service root advertises it (ProtocolFeaturesSupported.ExpandQuery),
 * collections are read with their members inline; a BMC that refuses or ignores the query
 * gets the plain crawl. Optional resources that fail (401/403/404/5xx, bad JSON) are recorded
 * in `missing` and the crawl goes on.
 */
import { BudgetError, normalizePath, type RedfishClient, RedfishError } from './client.js';
import type { HardwareInventorySpec } from '../model/hardware-inventory.js';
import { bootOptionNic, normalizeSystem, type RawSystem } from './normalize.js';

type Json = Record<string, unknown>;

export interface CrawlOptions {
  /**
   * the `$expand` query to ask collections with (`.($levels=1)`, from `expandQuery(root)`),
   * using inlined members when the BMC honours it; absent: plain crawl
   */
  expand?: string;
  /** most members one collection may list, over all its pages; default 4096 */
  maxMembers?: number;
  /** most bytes one collection's pages may take together; default 16 MiB */
  maxCollectionBytes?: number;
}

export const DEFAULT_MAX_MEMBERS = 4096;
export const DEFAULT_MAX_COLLECTION_BYTES = 16 << 20;

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
  if (cur && typeof cur === 'object' && typeof (cur as Json)['@odata.id'] === 'string')
    return normalizePath((cur as Json)['@odata.id'] as string);
  return undefined;
}

function memberLinks(coll: Json): { path: string; inline?: Json }[] {
  const m = coll.Members;
  if (!Array.isArray(m)) return [];
  const out: { path: string; inline?: Json }[] = [];
  for (const x of m) {
    if (!x || typeof x !== 'object' || typeof (x as Json)['@odata.id'] !== 'string') continue;
    const path = normalizePath((x as Json)['@odata.id'] as string);
    const expanded = Object.keys(x as Json).some((k) => !k.startsWith('@odata.'));
    out.push(expanded ? { path, inline: x as Json } : { path });
  }
  return out;
}

export function describeFailure(e: unknown): string {
  if (e instanceof RedfishError) return e.message;
  return (e as Error).message ?? String(e);
}

export class SystemCrawler {
  readonly missing: string[] = [];
  constructor(
    readonly client: RedfishClient,
    readonly opts: CrawlOptions = {},
  ) {}

  #rel(path: string, systemPath: string): string {
    return path.startsWith(systemPath + '/') ? path.slice(systemPath.length + 1) : path;
  }

  /** GET an optional resource: undefined (and a `missing` entry) when it cannot be read. */
  async optional(path: string, label: string): Promise<Json | undefined> {
    return (await this.#optionalSized(path, label))?.json;
  }

  async #optionalSized(path: string, label: string): Promise<{ json: Json; bytes: number } | undefined> {
    try {
      return await this.client.getSized(path);
    } catch (e) {
      if (e instanceof BudgetError) throw new BudgetError(`${label}: ${e.message}`, e.path); // stops the crawl of this BMC
      this.missing.push(`${label}: ${describeFailure(e)}`);
      return undefined;
    }
  }

  /**
   * A collection's member links, following `Members@odata.nextLink` pages, within
   * `maxMembers` and `maxCollectionBytes` (a BudgetError naming the collection past them).
   */
  async collectionLinks(path: string, label: string): Promise<{ path: string; inline?: Json }[] | undefined> {
    const maxMembers = this.opts.maxMembers ?? DEFAULT_MAX_MEMBERS;
    const maxBytes = this.opts.maxCollectionBytes ?? DEFAULT_MAX_COLLECTION_BYTES;
    let first: { json: Json; bytes: number } | undefined;
    if (this.opts.expand) {
      try {
        first = await this.client.getSized(`${path}?$expand=${this.opts.expand}`);
      } catch (e) {
        if (e instanceof BudgetError) throw new BudgetError(`${label}: ${e.message}`, e.path);
        first = undefined; // refused: fall back to the plain collection
      }
    }
    first ??= await this.#optionalSized(path, label);
    if (!first) return undefined;
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
    const seen = new Set<string>();
    while (typeof next === 'string' && !seen.has(next)) {
      seen.add(next);
      const page = await this.#optionalSized(next, `${label} (next page)`);
      if (!page) break;
      bytes += page.bytes;
      out.push(...memberLinks(page.json));
      check();
      next = page.json['Members@odata.nextLink'];
    }
    const dedup = new Map<string, { path: string; inline?: Json }>();
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
   * PxeDev/HttpDev interface). An option is fetched by its member path when that ends in its
   * reference (`.../BootOptions/Boot0001`), else members are read in order until found. With no
   * BootOrder, or no such option, every option is read. The result does not depend on
   * `$expand` or on how many requests run at once.
   */
  async #bootOptions(path: string, system: Json, systemPath: string, bios: Promise<Json | undefined>): Promise<Json[]> {
    const links = await this.collectionLinks(path, 'BootOptions');
    if (!links?.length) return [];
    const order = ((system.Boot as Json | undefined)?.BootOrder ?? []) as unknown[];
    const refs = Array.isArray(order) ? order.filter((r): r is string => typeof r === 'string') : [];
    const got = new Map<string, Json | undefined>(); // member path -> body (undefined: unreadable)
    const byRef = new Map<string, Json>();
    const read = async (l: { path: string; inline?: Json }) => {
      if (got.has(l.path)) return;
      got.set(l.path, undefined);
      const j = l.inline ?? (await this.optional(l.path, this.#rel(l.path, systemPath)));
      if (!j) return;
      got.set(l.path, j);
      const ref = typeof j.BootOptionReference === 'string' ? j.BootOptionReference : l.path.split('/').pop()!;
      byRef.set(ref.toLowerCase(), j);
    };
    const chosen: Json[] = [];
    let cursor = 0;
    // members named after their references (Dell, Supermicro, DMTF): a reference with no such member is not there
    const namedByRef = links.every((l) => /^Boot[0-9A-F]{4}$/i.test(l.path.split('/').pop()!));
    for (const ref of refs) {
      const key = ref.toLowerCase();
      const direct = links.find((l) => l.path.split('/').pop()!.toLowerCase() === key);
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

  async crawl(systemPath: string, inline?: Json): Promise<RawSystem> {
    const system = inline ?? (await this.client.get(systemPath)); // required: throws
    const manufacturer = String(system.Manufacturer ?? '');
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
    const tasks: Promise<void>[] = [];

    const procs = link(system, 'Processors');
    if (procs) {
      tasks.push(
        (async () => {
          const links = await this.collectionLinks(procs, 'Processors');
          // the summary gives sockets and often cores; one CPU gives model, arch and speed.
          // Members named like CPUs first (Dell lists Video.Slot.2-1, a GPU, before CPU.Socket.1).
          const cpuLike = (l: { path: string }) => (/cpu|proc|socket/i.test(l.path.slice(procs.length)) ? 0 : 1);
          const ordered = (links ?? [])
            .map((l, i) => ({ l, i }))
            .sort((a, b) => cpuLike(a.l) - cpuLike(b.l) || a.i - b.i)
            .map((x) => x.l);
          for (const l of ordered) {
            const p = l.inline ?? (await this.optional(l.path, this.#rel(l.path, systemPath)));
            if (!p) continue;
            raw.processors.push(p);
            if ((p.ProcessorType ?? 'CPU') === 'CPU' && (p.Status as Json | undefined)?.State !== 'Absent') break;
          }
        })(),
      );
    } else this.missing.push('Processors: not linked');

    const eth = link(system, 'EthernetInterfaces');
    if (eth) tasks.push(this.members(eth, 'EthernetInterfaces', systemPath).then((m) => void raw.ethernet.push(...m)));
    else this.missing.push('EthernetInterfaces: not linked');

    const storage = link(system, 'Storage');
    const simple = link(system, 'SimpleStorage');
    if (storage) {
      tasks.push(
        (async () => {
          const ctrls = await this.members(storage, 'Storage', systemPath);
          const seen = new Set<string>();
          const jobs: Promise<void>[] = [];
          for (const s of ctrls) {
            const protocols = new Set<string>();
            for (const c of (Array.isArray(s.StorageControllers) ? s.StorageControllers : []) as Json[])
              for (const p of (Array.isArray(c?.SupportedDeviceProtocols) ? c.SupportedDeviceProtocols : []) as unknown[])
                protocols.add(String(p));
            const drives = Array.isArray(s.Drives) ? (s.Drives as Json[]) : [];
            for (const d of drives) {
              const id = d && typeof d['@odata.id'] === 'string' ? normalizePath(d['@odata.id']) : undefined;
              if (!id || seen.has(id)) continue;
              seen.add(id);
              const inline = Object.keys(d).some((k) => !k.startsWith('@odata.')) ? d : undefined;
              jobs.push(
                (async () => {
                  const j = inline ?? (await this.optional(id, this.#rel(id, systemPath)));
                  if (j) raw.drives.push({ path: id, drive: j, controllerProtocols: [...protocols].sort() });
                })(),
              );
            }
          }
          await Promise.all(jobs);
          if (seen.size === 0 && simple) raw.simpleStorage.push(...(await this.members(simple, 'SimpleStorage', systemPath)));
        })(),
      );
    } else if (simple) {
      tasks.push(this.members(simple, 'SimpleStorage', systemPath).then((m) => void raw.simpleStorage.push(...m)));
    } else this.missing.push('Storage: not linked');

    const biosPath = link(system, 'Bios');
    const bios: Promise<Json | undefined> =
      biosPath && /dell/i.test(manufacturer) ? this.optional(biosPath, 'Bios') : Promise.resolve(undefined);
    tasks.push(bios.then((b) => void (b ? (raw.bios = b) : undefined)));

    const boot = link(system, 'Boot', 'BootOptions');
    if (boot) tasks.push(this.#bootOptions(boot, system, systemPath, bios).then((m) => void raw.bootOptions.push(...m)));

    await Promise.all(tasks);
    return raw;
  }
}

/** Crawls and normalises one System (`inline`: its body, when a `$expand`ed Systems collection gave it). */
export async function discoverSystem(
  client: RedfishClient,
  systemPath: string,
  bmc: HardwareInventorySpec['bmc'],
  opts: CrawlOptions = {},
  inline?: Json,
): Promise<HardwareInventorySpec> {
  const crawler = new SystemCrawler(client, opts);
  const raw = await crawler.crawl(systemPath, inline);
  return normalizeSystem(raw, bmc);
}

export interface ServiceSystems {
  /** System paths, sorted */
  paths: string[];
  /** System bodies the expanded Systems collection already gave */
  inline: Map<string, Json>;
  /** the `$expand` query to use on this service (only when asked for and advertised) */
  expand?: string;
}

/**
 * The System paths behind a service root (ServiceRoot -> Systems -> Members). With `expand`,
 * the `$expand` query the root advertises, and the System bodies when the BMC inlined them.
 * `only`: a known System path; then the Systems collection is not read (and the root only
 * when `expand` needs it).
 */
export async function listSystems(client: RedfishClient, opts: { expand?: boolean; only?: string } = {}): Promise<ServiceSystems> {
  if (opts.only && !opts.expand) return { paths: [opts.only], inline: new Map() };
  const root = await client.get('/redfish/v1');
  const expand = opts.expand ? expandQuery(root) : undefined;
  if (opts.only) return { paths: [opts.only], inline: new Map(), expand };
  const systems = link(root, 'Systems') ?? '/redfish/v1/Systems';
  const crawler = new SystemCrawler(client, { expand });
  const links = await crawler.collectionLinks(systems, 'Systems');
  if (!links) throw new RedfishError(crawler.missing.join('; '), 0, systems);
  const inline = new Map<string, Json>();
  for (const l of links) if (l.inline) inline.set(l.path, l.inline);
  return { paths: links.map((l) => l.path).sort(), inline, expand };
}
