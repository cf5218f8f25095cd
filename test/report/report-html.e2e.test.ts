/**
 * The HTML report in headless Chromium (Debian `chromium`, playwright-core): it renders with no
 * network at all, its tables and SVG charts are there, sorting (numeric and text) and filtering
 * work, and nothing is logged to the console. A screenshot goes to .e2e-out/report-html/.
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../golden.js';
import { reportMain } from '../../src/report/cli.js';
import type { Report } from '../../src/report/model.js';
import { NOW, writeVariants } from './variants.js';

const OUT = join(repoRoot, '.e2e-out/report-html');
const CONFIG = join(import.meta.dirname, 'report-config.yaml');
let browser: Browser;
let page: Page;
let report: Report;
const external: string[] = [];
const consoleErrors: string[] = [];

async function cells(table: string, col: number): Promise<string[]> {
  // runs in the page: rows typed structurally (the project compiles without the DOM lib)
  type Row = { style: { display: string }; cells: { textContent: string | null }[] };
  return page.$$eval(
    `#${table} tbody tr`,
    (rows, c) => (rows as unknown as Row[]).filter((r) => r.style.display !== 'none').map((r) => r.cells[c]!.textContent ?? ''),
    col,
  );
}

beforeAll(async () => {
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  const root = relative(process.cwd(), join(OUT, 'sites'));
  const s = writeVariants(root);
  const args = ['--now', NOW, '--config', CONFIG, s['test-site'], s['site-b'], s['site-c'], s['site-d']];
  let json = '';
  await reportMain(['--format', 'json', ...args], { out: (t) => void (json += t), err: () => undefined });
  report = JSON.parse(json) as Report;
  expect(
    await reportMain(['--format', 'html', '--output', join(OUT, 'report.html'), ...args], { out: () => undefined, err: () => undefined }),
  ).toBe(0);
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('file:')) return route.continue();
    external.push(url);
    return route.abort();
  });
  await page.goto(pathToFileURL(join(OUT, 'report.html')).href);
});

afterAll(async () => {
  if (page) await page.screenshot({ path: join(OUT, 'report.png'), fullPage: true });
  await browser?.close();
});

describe('HTML report in Chromium', () => {
  it('loads without network and without console errors', () => {
    expect(external).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });

  it('renders every table with the report rows', async () => {
    expect(await page.locator('#certificates-table tbody tr').count()).toBe(report.certificates.length);
    expect(await page.locator('#hardware-table tbody tr').count()).toBe(report.hardware.hosts.length);
    expect(await page.locator('#workloads-table tbody tr').count()).toBe(report.workloads.length);
    expect(await page.locator('#security-table tbody tr').count()).toBe(report.security.length);
    expect(await page.locator('#capacity-table tbody tr').count()).toBe(report.capacity.length);
    expect(await page.locator('#sites-table tbody tr').count()).toBe(4);
    // site-d holds an expired certificate and no --fail-on is set: red count, no green verdict
    expect(await page.locator('.ok-banner').count()).toBe(0);
    expect(await page.locator('.broken-banner').textContent()).toBe('1 certificate(s) expired');
    expect(await page.locator('.neutral-banner').textContent()).toBe('no thresholds set (--fail-on): nothing gates this report');
  });

  it('never breaks a short word in a narrow column', async () => {
    const narrow = await browser.newPage({ viewport: { width: 480, height: 800 } });
    await narrow.goto(pathToFileURL(join(OUT, 'report.html')).href);
    // runs in the page: the number of line boxes of each cell's text (a Range over its contents)
    type Rects = { length: number };
    type Doc = { createRange(): { selectNodeContents(n: unknown): void; getClientRects(): Rects } };
    type Cell = { textContent: string | null; ownerDocument: Doc };
    const lines = await narrow.$$eval('td.word', (tds) =>
      (tds as unknown as Cell[]).map((td) => {
        const range = td.ownerDocument.createRange();
        range.selectNodeContents(td);
        return { text: td.textContent ?? '', lines: range.getClientRects().length };
      }),
    );
    expect(lines.length).toBeGreaterThan(10);
    expect(lines.filter((x) => x.text === 'expired').length).toBeGreaterThan(0);
    expect(lines.filter((x) => x.lines !== 1)).toEqual([]);
    await narrow.close();
  });

  it('draws the certificate timeline and the hardware mix', async () => {
    const dots = page.locator('#cert-chart circle.cert-dot');
    expect(await dots.count()).toBe(report.certificates.length);
    expect(await page.locator('#cert-chart circle.cert-dot.expired').count()).toBe(1);
    expect(await page.locator('#mix-chart rect.mix-bar').count()).toBe(report.hardware.mix.length);
    for (const id of ['#cert-chart', '#mix-chart']) {
      const box = await page.locator(id).boundingBox();
      expect(box!.width).toBeGreaterThan(400);
      expect(box!.height).toBeGreaterThan(50);
    }
    // the expired certificate is left of "now", the others right of it
    const nowX = Number(await page.locator('#cert-chart line.now').getAttribute('x1'));
    const expiredX = Number(await page.locator('#cert-chart circle.expired').getAttribute('cx'));
    expect(expiredX).toBeLessThan(nowX);
    const title = await page.locator('#cert-chart circle.expired title').textContent();
    expect(title).toContain('site-d: O=system:masters, CN=kubernetes-admin');
  });

  it('sorts numerically and by text when a header is clicked', async () => {
    const ram = page.locator('#hardware-table th', { hasText: 'RAM GiB' });
    await ram.click();
    expect(await ram.getAttribute('aria-sort')).toBe('ascending');
    const asc = (await cells('hardware-table', 7)).filter((v) => v !== '').map(Number);
    expect(asc).toEqual([...asc].sort((a, b) => a - b));
    expect(asc[0]).toBe(512); // a text sort would put 1024 first
    await ram.click();
    expect(await ram.getAttribute('aria-sort')).toBe('descending');
    const desc = (await cells('hardware-table', 7)).filter((v) => v !== '').map(Number);
    expect(desc[0]).toBe(2048);
    const host = page.locator('#hardware-table th', { hasText: /^host$/ });
    await host.click();
    const names = await cells('hardware-table', 1);
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b)));
    const days = page.locator('#certificates-table th', { hasText: 'days left' });
    await days.click();
    await days.click();
    expect((await cells('certificates-table', 0))[0]).toBe(String(Math.max(...report.certificates.map((c) => c.daysLeft))));
  });

  it('filters rows', async () => {
    await page.fill('input[data-table="certificates-table"]', 'site-d');
    const visible = await cells('certificates-table', 2);
    expect(visible.length).toBe(report.certificates.filter((c) => c.site === 'site-d').length);
    expect(new Set(visible)).toEqual(new Set(['site-d']));
    await page.fill('input[data-table="certificates-table"]', '');
    expect((await cells('certificates-table', 2)).length).toBe(report.certificates.length);
  });

  it('saves a screenshot', async () => {
    await page.screenshot({ path: join(OUT, 'report-top.png') });
    expect(existsSync(join(OUT, 'report-top.png'))).toBe(true);
  });
});
