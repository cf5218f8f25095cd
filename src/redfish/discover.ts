/**
 * Crawls one Redfish System for what a BareMetalHost and HardwareData need, and nothing
 * more, then hands the raw JSON to `normalizeSystem`. Request budget per System (plain
 * address): ServiceRoot, Systems, System, Processors + the first CPU, EthernetInterfaces +
 * members, Storage + controllers + drives (or SimpleStorage + members), BootOptions +
 * members, and Bios only on Dell (PxeDev / HttpDev settings). Optional resources that fail
 * (401/403/404/5xx, bad JSON) are recorded in `missing` and the crawl goes on.
 */
import { normalizePath, RedfishClient, RedfishError } from './client.js';
import type { HardwareInventorySpec } from '../model/hardware-inventory.js';
import { normalizeSystem, type RawSystem } from './normalize.js';

type Json = Record<string, unknown>;

export interface CrawlOptions {
  /** ask collections with `$expand=.($levels=1)` and use inlined members when the BMC honours it */
  expand?: boolean;
}

function link(o: unknown, ...keys: string[]): string | undefined {
  let cur: unknown = o;
  for (const k of keys) {
    if (!cur || typeof cur !== 'object') return undefined;
    cur = (cur as Json)[k];
  }
  if (cur && typeof cur === 'object' && typeof (cur as Json)['@odata.id'] === 'string') return normalizePath((cur as Json)['@odata.id'] as string);
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
    try {
      return await this.client.get(path);
    } catch (e) {
      this.missing.push(`${label}: ${describeFailure(e)}`);
      return undefined;
    }
  }

  /** A collection's member links, following `Members@odata.nextLink` pages. */
  async collectionLinks(path: string, label: string): Promise<{ path: string; inline?: Json }[] | undefined> {
    let first: Json | undefined;
    if (this.opts.expand) {
      try {
        first = await this.client.get(`${path}?$expand=.($levels=1)`);
      } catch {
        first = undefined; // not supported: fall back
      }
    }
    first ??= await this.optional(path, label);
    if (!first) return undefined;
    const out = memberLinks(first);
    let next = first['Members@odata.nextLink'];
    const seen = new Set<string>();
    while (typeof next === 'string' && !seen.has(next) && seen.size < 1000) {
      seen.add(next);
      const page = await this.optional(next, `${label} (next page)`);
      if (!page) break;
      out.push(...memberLinks(page));
      next = page['Members@odata.nextLink'];
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

  async crawl(systemPath: string): Promise<RawSystem> {
    const system = await this.client.get(systemPath); // required: throws
    const manufacturer = String(system.Manufacturer ?? '');
    const raw: RawSystem = { path: systemPath, system, processors: [], ethernet: [], drives: [], simpleStorage: [], bootOptions: [], missing: this.missing };
    const tasks: Promise<void>[] = [];

    const procs = link(system, 'Processors');
    if (procs) {
      tasks.push(
        (async () => {
          const links = await this.collectionLinks(procs, 'Processors');
          // the summary gives sockets and often cores; one CPU gives model, arch and speed
          for (const l of links ?? []) {
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
              for (const p of (Array.isArray(c?.SupportedDeviceProtocols) ? c.SupportedDeviceProtocols : []) as unknown[]) protocols.add(String(p));
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

    const boot = link(system, 'Boot', 'BootOptions');
    if (boot) tasks.push(this.members(boot, 'BootOptions', systemPath).then((m) => void raw.bootOptions.push(...m)));

    const bios = link(system, 'Bios');
    if (bios && /dell/i.test(manufacturer))
      tasks.push(this.optional(bios, 'Bios').then((b) => void (b ? (raw.bios = b) : undefined)));

    await Promise.all(tasks);
    return raw;
  }
}

/** Crawls and normalises one System. */
export async function discoverSystem(
  client: RedfishClient,
  systemPath: string,
  bmc: HardwareInventorySpec['bmc'],
  opts: CrawlOptions = {},
): Promise<HardwareInventorySpec> {
  const crawler = new SystemCrawler(client, opts);
  const raw = await crawler.crawl(systemPath);
  return normalizeSystem(raw, bmc);
}

/** The System paths behind a service root (ServiceRoot -> Systems -> Members). */
export async function listSystems(client: RedfishClient): Promise<string[]> {
  const root = await client.get('/redfish/v1');
  const systems = link(root, 'Systems') ?? '/redfish/v1/Systems';
  const crawler = new SystemCrawler(client);
  const links = await crawler.collectionLinks(systems, 'Systems');
  if (!links) throw new RedfishError(crawler.missing.join('; '), 0, systems);
  return links.map((l) => l.path).sort();
}
