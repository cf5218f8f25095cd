/**
 * discover mode (network): asks every configured BMC (and every Redfish service found in the
 * ranges) and writes one HardwareInventory per System. Credentials come from the environment
 * or a mounted file and never reach the output, results or logs.
 */
import { readFileSync } from 'node:fs';
import type { Context, Desired, ResultOptions } from '../../src/krm/index.js';
import { Limiter, normalizePath, RedfishClient, type Credentials } from '../../src/redfish/client.js';
import { describeFailure, discoverSystem, listSystems } from '../../src/redfish/discover.js';
import { INVENTORY_API_VERSION, INVENTORY_KIND, type HardwareInventorySpec } from '../../src/model/hardware-inventory.js';
import { redactBmcAddress } from '../../src/model/bmc.js';
import { hostAddresses, parseCidr } from '../../src/model/ip.js';
import { dnsName, naturalCompare, OWNER_DISCOVER, type Spec } from './types.js';
import { credentialsFor, envKey, readCredentialsFile } from '../../src/secrets/bmc-credentials.js';

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

export class UserinfoError extends Error {}

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

export async function runDiscover(ctx: Context<Spec>): Promise<void> {
  const spec = ctx.spec;
  const fc = ctx.functionConfig;
  let file: Record<string, Credentials> | undefined;
  const credPath = spec.credentialsFile ?? ctx.env.BMC_CREDENTIALS_FILE;
  if (credPath) {
    try {
      file = readCredentialsFile(credPath);
      // the runtime scrubs them (and user:password, what Basic auth encodes) from every result
      for (const c of Object.values(file)) ctx.secrets.addCredentials(c.username, c.password);
    } catch (e) {
      ctx.results.error((e as Error).message, { object: fc, field: 'spec.credentialsFile', rule: 'discover/credentials' });
      return;
    }
  }
  const timeoutMs = Math.round((spec.timeoutSeconds ?? 10) * 1000);
  const limiter = new Limiter(spec.concurrency ?? 64);
  const targets: Target[] = [];
  (spec.bmcs ?? []).forEach((b, i) => {
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
      if (e instanceof UserinfoError)
        ctx.results.error(`bmcs[${i}]: address "${redactBmcAddress(b.address)}" is refused: ${e.message}`, {
          object: fc,
          field,
          rule: 'discover/credentials-in-address',
        });
      else
        ctx.results.error(
          `bmcs[${i}]: address "${redactBmcAddress(b.address)}" is not usable (${(e as Error).message}); write https://host[:port][/redfish/v1/Systems/<id>]`,
          { object: fc, field, rule: 'discover/bad-address' },
        );
    }
  });

  // ranges: probe every address for a Redfish service root (no credentials needed for it)
  for (const [i, r] of (spec.ranges ?? []).entries()) {
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
    const found = await Promise.all(
      hosts.map((h) =>
        limiter.run(async () => {
          const origin = rangeOrigin(scheme, h, port);
          const c = new RedfishClient({
            origin,
            timeoutMs: Math.min(timeoutMs, 2000),
            retries: 0,
            insecureSkipVerify: r.insecureSkipVerify ?? false,
            maxInFlight: 1,
          });
          try {
            const root = await c.get('/redfish/v1');
            return root.RedfishVersion || root.Systems ? origin : undefined;
          } catch {
            return undefined;
          } finally {
            await c.close();
          }
        }),
      ),
    );
    for (const origin of found) {
      if (!origin) continue;
      const address = origin; // URL.origin: no default port
      if (targets.some((t) => t.origin === origin)) continue; // listed in bmcs[] too (origins compare equal: default ports dropped)
      targets.push({
        label: `ranges[${i}] (${address})`,
        field: `spec.ranges[${i}]`,
        address,
        origin,
        credentialsSecret: r.credentialsSecret,
        insecureSkipVerify: r.insecureSkipVerify ?? false,
      });
    }
    ctx.results.info(
      `ranges[${i}] ${r.cidr}: ${found.filter(Boolean).length} Redfish service(s) on port ${port} among ${hosts.length} addresses`,
      { object: fc, field: `spec.ranges[${i}]`, rule: 'discover/range' },
    );
  }

  const failed = new Set<Target>();
  const closing: Promise<void>[] = [];
  // results are buffered per BMC and reported in configuration order, not completion order
  const buffered: { severity: 'error' | 'warning' | 'info'; message: string; opts: ResultOptions }[][] = targets.map(() => []);
  const perTarget = await Promise.all(
    targets.map((t, ti) =>
      limiter.run(async (): Promise<Found[]> => {
        const results = {
          error: (message: string, opts: ResultOptions) => buffered[ti]!.push({ severity: 'error', message, opts }),
          warning: (message: string, opts: ResultOptions) => buffered[ti]!.push({ severity: 'warning', message, opts }),
          info: (message: string, opts: ResultOptions) => buffered[ti]!.push({ severity: 'info', message, opts }),
        };
        const credentials = credentialsFor(t, ctx.env, file);
        if (!credentials) {
          failed.add(t);
          results.error(
            `${t.label}: no credentials; set BMC_USERNAME and BMC_PASSWORD${t.name ? ` (or BMC_${envKey(t.name)}_USERNAME / _PASSWORD)` : ''} or a credentialsFile`,
            { object: fc, field: t.field, rule: 'discover/credentials' },
          );
          return [];
        }
        let ca: string | undefined;
        if (t.caFile) {
          try {
            ca = readFileSync(t.caFile, 'utf8');
          } catch (e) {
            failed.add(t);
            results.error(`${t.label}: caFile ${t.caFile} cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`, {
              object: fc,
              field: t.field.replace(/address$/, 'caFile'),
              rule: 'discover/ca',
            });
            return [];
          }
        }
        const client = new RedfishClient({
          origin: t.origin,
          credentials,
          auth: spec.auth ?? 'basic',
          timeoutMs,
          retries: spec.retries ?? 2,
          insecureSkipVerify: t.insecureSkipVerify,
          ca,
          maxInFlight: spec.requestsPerBmc ?? 4,
          deadlineMs: Math.round((spec.bmcDeadlineSeconds ?? 300) * 1000),
        });
        const out: Found[] = [];
        try {
          const service = await listSystems(client, { expand: spec.expand, only: t.systemPath });
          const paths = service.paths;
          if (!paths.length) throw new Error('the service root lists no Systems');
          const shared = client.requests;
          for (const p of paths) {
            const before = client.requests;
            const bmc: HardwareInventorySpec['bmc'] = { address: t.address, systemPath: p };
            if (t.credentialsSecret) bmc.credentialsSecret = t.credentialsSecret;
            if (t.insecureSkipVerify) bmc.insecureSkipVerify = true;
            const inv = await discoverSystem(client, p, bmc, { expand: service.expand }, service.inline.get(p));
            out.push({
              target: t,
              inv,
              systemId: p.split('/').pop() ?? p,
              requests: client.requests - before + (paths.length === 1 ? shared : 0),
            });
          }
          results.info(
            `${t.label}: ${paths.length} System(s), ${client.requests} Redfish request(s)${paths.length > 1 ? ` (${shared} for the service root and Systems, then ${out.map((f) => f.requests).join(', ')})` : ''}`,
            {
              object: fc,
              field: t.field,
              rule: 'discover/requests',
              tags: { requests: String(client.requests), systems: String(paths.length) },
            },
          );
          for (const f of out)
            for (const m of f.inv.missing ?? [])
              results.warning(`${t.label}: ${f.systemId}: ${m} (recorded as missing; the rest of the System was read)`, {
                object: fc,
                field: t.field,
                rule: 'discover/missing',
              });
        } catch (e) {
          failed.add(t);
          results.error(`${t.label}: discovery failed: ${describeFailure(e)}`, { object: fc, field: t.field, rule: 'discover/bmc' });
          return [];
        } finally {
          // log out and close after the slot is free: the next BMC need not wait for it
          closing.push(client.close());
        }
        return out;
      }),
    ),
  );

  await Promise.all(closing); // close() never throws
  for (const list of buffered) for (const r of list) ctx.results.add(r.severity, r.message, r.opts);

  // names
  const desired: Desired[] = [];
  const names = new Map<string, string>();
  for (const found of perTarget) {
    for (const f of found) {
      const t = f.target;
      let name: string | undefined;
      if (t.name) name = found.length > 1 ? dnsName(`${t.name}-${f.systemId}`) : t.name;
      else name = applyTemplate(spec.nameTemplate ?? '{hostName|serviceTag|serialNumber}', f.inv, f.systemId);
      if (!name) {
        ctx.results.error(
          `${t.label}: System ${f.systemId} gives no name from nameTemplate "${spec.nameTemplate ?? '{hostName|serviceTag|serialNumber}'}"; set bmcs[].name`,
          { object: fc, field: t.field, rule: 'discover/name' },
        );
        continue;
      }
      const other = names.get(name);
      if (other) {
        ctx.results.error(`${t.label}: System ${f.systemId} would be named "${name}", like ${other}; set bmcs[].name for one of them`, {
          object: fc,
          field: t.field,
          rule: 'discover/duplicate-name',
        });
        continue;
      }
      names.set(name, `${t.label} ${f.systemId}`);
      desired.push({
        data: {
          apiVersion: INVENTORY_API_VERSION,
          kind: INVENTORY_KIND,
          metadata: { name, annotations: { 'config.kubernetes.io/local-config': 'true' } },
          spec: f.inv,
        },
        path: `inventory/${name}.yaml`,
      });
    }
  }
  // a BMC that failed this time keeps its last snapshot
  for (const item of ctx.ofKind(INVENTORY_KIND, 'baremetal-krm.dev')) {
    const addr = (item.data.spec as HardwareInventorySpec | undefined)?.bmc?.address;
    if (!addr || names.has(item.name)) continue;
    if ([...failed].some((t) => t.address === addr)) {
      desired.push({ data: structuredClone(item.data) });
      names.set(item.name, 'kept');
      ctx.results.warning(`${item.name}: kept the previous inventory snapshot because its BMC failed`, {
        object: item,
        rule: 'discover/kept',
      });
    }
  }
  desired.sort((a, b) =>
    naturalCompare(String((a.data.metadata as { name: string }).name), String((b.data.metadata as { name: string }).name)),
  );
  ctx.reconcile(OWNER_DISCOVER, desired);
  const systems = perTarget.reduce((n, f) => n + f.length, 0);
  const requests = perTarget.flat().reduce((n, f) => n + f.requests, 0);
  ctx.results.info(
    `discovered ${systems} System(s) from ${targets.length - failed.size} of ${targets.length} BMC(s)${systems ? `, ${(requests / systems).toFixed(1)} Redfish requests per System` : ''}`,
    { object: fc, rule: 'discover/summary' },
  );
}
