/** What the crawl may cost at most: members and bytes per collection, bytes and time per BMC, and the Limiter that bounds BMCs and requests at once. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { itemsStream, repoRoot, resourceList } from '../../test/golden.js';
import { runFunction } from '../../src/krm/index.js';
import { SystemCrawler } from '../../src/redfish/discover.js';
import { BudgetError, Limiter, RedfishClient as Client } from '../../src/redfish/client.js';
import type { BmcOptions, SimBmc } from '../../src/redfish-sim/server.js';
import { definition } from './function.js';
import { simulatedBmcs } from './test-support.js';

const tree = (t: string) => join(repoRoot, '../shared/fixtures/redfish', t);
const ENV = { BMC_USERNAME: 'admin', BMC_PASSWORD: 'password' };
const simulated = simulatedBmcs();
const bmc = (t: string, opts: Partial<BmcOptions> = {}): Promise<SimBmc> => simulated({ tree: tree(t), ...opts });

describe('Limiter', () => {
  it('never lets more than n in, also when callers arrive while one leaves; everyone runs, in order', async () => {
    const lim = new Limiter(3);
    let inside = 0;
    let peak = 0;
    const order: number[] = [];
    const task = (i: number) =>
      lim.run(async () => {
        inside++;
        peak = Math.max(peak, inside);
        order.push(i);
        await new Promise((r) => setTimeout(r, 1 + (i % 3)));
        inside--;
        // a newcomer arriving just as this one leaves must queue behind the waiters
        if (i < 20 && i % 4 === 0) void extra.push(task(100 + i));
        return i;
      });
    const extra: Promise<number>[] = [];
    const first = await Promise.all(Array.from({ length: 20 }, (_, i) => task(i)));
    await Promise.all(extra);
    expect(first).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(peak).toBe(3);
    expect(order.filter((i) => i < 20)).toEqual(Array.from({ length: 20 }, (_, i) => i)); // first come, first in
    expect(order).toHaveLength(25);
  });
});

describe('budgets: a BMC cannot make the crawl hold unbounded memory or run forever', () => {
  const EI = '/redfish/v1/Systems/1/EthernetInterfaces';
  let server: Server | undefined;
  afterEach(() => void server?.close());
  /** a collection whose pages never end, each with one expanded member of `pad` bytes */
  async function endless(pad: number): Promise<{ origin: string; pages: () => number }> {
    let pages = 0;
    server = createServer((req, res) => {
      pages++;
      const k = Number(/skip=(\d+)/.exec(req.url!)?.[1] ?? 0);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ Members: [{ '@odata.id': `${EI}/${k}`, Pad: 'x'.repeat(pad) }], 'Members@odata.nextLink': `${EI}?skip=${k + 1}` }),
      );
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, pages: () => pages };
  }

  it('members per collection: past maxMembers, one BudgetError naming the collection', async () => {
    const s = await endless(10);
    const c = new Client({ origin: s.origin, retries: 0 });
    const err = await new SystemCrawler(c, { maxMembers: 50 }).collectionLinks(EI, 'EthernetInterfaces').catch((e: unknown) => e);
    await c.close();
    expect(err).toBeInstanceOf(BudgetError);
    expect((err as Error).message).toBe('EthernetInterfaces: more than 50 members; the crawl of this BMC stopped');
    expect(s.pages()).toBe(51);
  });

  it('bytes per collection: 1 MiB pages stop at the 4 MiB cap (default 16 MiB), nothing recorded as missing', async () => {
    const s = await endless(1 << 20);
    const c = new Client({ origin: s.origin, retries: 0 });
    const crawler = new SystemCrawler(c, { maxCollectionBytes: 4 << 20 });
    const err = await crawler.collectionLinks(EI, 'EthernetInterfaces').catch((e: unknown) => e);
    await c.close();
    expect((err as Error).message).toBe('EthernetInterfaces: its pages take more than 4 MiB; the crawl of this BMC stopped');
    expect(s.pages()).toBe(4);
    expect(crawler.missing).toEqual([]);
  });

  it('bytes per BMC: past maxTotalBytes the crawl stops with one error naming the resource', async () => {
    const s = await endless(1 << 16);
    const c = new Client({ origin: s.origin, retries: 2, maxTotalBytes: 1 << 20 });
    const err = await new SystemCrawler(c).collectionLinks(EI, 'EthernetInterfaces').catch((e: unknown) => e);
    await c.close();
    expect((err as Error).message).toBe('EthernetInterfaces (next page): more than 1 MiB read from this BMC in all; the crawl stopped');
    expect(s.pages()).toBe(16); // 16 x 64 KiB and a bit: not retried
  });

  it('deadline per BMC: one error for that BMC, the others are written, the session logged out', async () => {
    const slow = await bmc('dmtf-public-rackmount1', { latencyMs: 150 });
    const fast = await bmc('dmtf-public-rackmount1');
    const cfg = JSON.stringify({
      apiVersion: 'baremetal-krm.dev/v1alpha1',
      kind: 'BMHFromRedfish',
      metadata: { name: 'd' },
      spec: {
        mode: 'discover',
        auth: 'session',
        bmcDeadlineSeconds: 1,
        requestsPerBmc: 1,
        bmcs: [
          { address: slow.url, name: 'slow' },
          { address: fast.url, name: 'fast' },
        ],
      },
    });
    const r = await runFunction(definition, resourceList([], cfg), ENV);
    expect(r.exitCode).toBe(1);
    const errors = r.results.filter((x) => x.severity === 'error').map((x) => x.message);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      new RegExp(`^bmcs\\[0\\] \\(slow, ${slow.url}\\): discovery failed: (.*: )?the 1 s deadline for this BMC passed; the crawl stopped$`),
    );
    expect(r.results.filter((x) => x.tags?.rule === 'discover/missing')).toEqual([]);
    expect([...itemsStream(r.output).matchAll(/^ {2}name: (.*)$/gm)].map((m) => m[1])).toEqual(['fast']);
    expect(slow.stats.created).toBe(1);
    expect(slow.sessions()).toBe(0);
  });
});
