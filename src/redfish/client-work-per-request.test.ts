/**
 * What one Redfish GET costs the client besides the exchange itself, counted (never timed): the
 * promises it makes (async_hooks sees each one, with the one `await` makes while hooks are on).
 * A crawl makes thousands of requests on unoptimised code, where every async frame, promise and
 * closure per request shows in the CPU it takes (issue 16): before the request slot was taken in
 * the client's own frame and optional() lost its inner frame, a GET made 8 and an optional
 * resource 12.
 */
import { createHook } from 'node:async_hooks';
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedfishClient } from './client.js';
import { SystemCrawler } from './discover.js';

let server: Server;
let origin = '';

beforeAll(async () => {
  server = createServer((socket) => {
    let got = '';
    socket.on('data', (d) => {
      got += d.toString('latin1');
      while (got.includes('\r\n\r\n')) {
        got = got.slice(got.indexOf('\r\n\r\n') + 4);
        const body = '{"Id":"1","Name":"x"}';
        socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`);
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

/** Promises made per call of `f`, over `n` calls one after another (the odd one made by the test runner meanwhile included). */
async function promisesPer(f: () => Promise<unknown>, n = 100): Promise<number> {
  let made = 0;
  const hook = createHook({
    init(_id, type) {
      if (type === 'PROMISE') made++;
    },
  });
  hook.enable();
  try {
    for (let i = 0; i < n; i++) await f();
  } finally {
    hook.disable();
  }
  return made / n;
}

describe('work per Redfish request', () => {
  it('a GET makes 4 promises, an optional resource of a crawl 6', async () => {
    const client = new RedfishClient({ origin, credentials: { username: 'u', password: 'p' }, maxInFlight: 1 });
    const crawler = new SystemCrawler(client);
    try {
      await client.getSized('/redfish/v1/Systems/1'); // the connection is open
      const get = await promisesPer(() => client.getSized('/redfish/v1/Systems/1'));
      const optional = await promisesPer(() => crawler.optional('/redfish/v1/Systems/1', 'System'));
      expect(get).toBeLessThan(4.1);
      expect(optional).toBeLessThan(6.1);
      expect(client.requests).toBe(201);
      expect(crawler.missing).toEqual([]);
    } finally {
      await client.close();
    }
  });
});
