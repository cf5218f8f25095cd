/**
 * credentials.mode: sops: BMC Secrets SOPS-encrypted for age recipients, credentials from the
 * environment or a mounted file, nothing churned on re-render, nothing in plain text anywhere.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decryptSops } from 'sops-age';
import { parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runFunction, splitStream } from '../../src/krm/index.js';
import { newIdentity, recipientOf } from '../../src/sops/index.js';
import { itemsStream, resourceList, runBundle } from '../../test/golden.js';
import { definition } from './function.js';

const testdata = join(import.meta.dirname, 'testdata');
const norm = (stream: string): string[] => splitStream(stream).map((s) => s.trimEnd());
const input = (c: string): string[] => norm(readFileSync(join(testdata, c, 'input.yaml'), 'utf8'));
const ONE_FOLDER = input('roles-and-emitted-credentials');
const HOSTS = ['node03', 'node04', 'node05'];
/** canaries: neither they nor their base64 may appear in any output */
const PASSWORD = 'Canary-pw-7Qx!';
const FILE_PASSWORD = 'File-canary-9Zk';

let dir = '';
let id = '';
let rcp = '';
let otherId = '';
let otherRcp = '';
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sops-site-'));
  id = await newIdentity();
  rcp = await recipientOf(id);
  otherId = await newIdentity();
  otherRcp = await recipientOf(otherId);
  writeFileSync(join(dir, 'keys.txt'), `# test identity\n${id}\n`);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const config = (extra = ''): string =>
  `apiVersion: baremetal-krm.dev/v1alpha1\nkind: SiteFromCatalogue\nmetadata:\n  name: t\nspec:\n  hosts: [${HOSTS.join(', ')}]\n  credentials:\n    mode: sops\n${extra}`;

interface Run {
  items: string[];
  out: string;
  results: { severity: string; message: string; tags?: Record<string, string> }[];
  exitCode: number;
}
async function run(items: string[], env: Record<string, string>, extra = ''): Promise<Run> {
  const r = await runFunction(definition, resourceList(items, config(extra)), env);
  return { items: norm(itemsStream(r.output)), out: r.output, results: r.results, exitCode: r.exitCode };
}
const baseEnv = (): Record<string, string> => ({ SOPS_AGE_RECIPIENTS: rcp, BMC_USERNAME: 'root', BMC_PASSWORD: PASSWORD });
const secretsOf = (r: Run): string[] => r.items.filter((i) => /^kind: Secret$/m.test(i) && /-bmc-secret\n/.test(i));
const rules = (r: Run): string[] => r.results.map((x) => x.tags?.rule ?? '');
const b64 = (s: string): string => Buffer.from(s).toString('base64');

function noPlaintext(r: Run, ...secrets: string[]): void {
  const all = r.out + JSON.stringify(r.results);
  for (const s of secrets) {
    expect(all).not.toContain(s);
    expect(all).not.toContain(b64(s));
  }
}

describe('site-from-catalogue credentials.mode: sops', () => {
  it('writes one encrypted Secret per host in its own file; sops-age decrypts it to the credentials used', async () => {
    const r = await run(ONE_FOLDER, baseEnv());
    expect(r.exitCode).toBe(0);
    const secrets = secretsOf(r);
    expect(secrets).toHaveLength(3);
    for (const host of HOSTS) {
      const s = secrets.find((x) => x.includes(`name: ${host}-bmc-secret`))!;
      expect(s).toMatch(new RegExp(`config\\.kubernetes\\.io/path: '?hosts/${host}-bmc-secret\\.sops\\.yaml'?\\n`));
      const plain = await decryptSops(s, { secretKey: id, fileType: 'yaml' });
      expect(Buffer.from(plain.data.username, 'base64').toString()).toBe('root');
      expect(Buffer.from(plain.data.password, 'base64').toString()).toBe(PASSWORD);
      // the BareMetalHost references it
      expect(r.items.some((i) => i.includes('kind: BareMetalHost') && i.includes(`credentialsName: ${host}-bmc-secret`))).toBe(true);
    }
    expect(rules(r)).not.toContain('credentials/to-create');
    noPlaintext(r, PASSWORD);
  });

  it('takes per-host credentials from BMC_<HOST>_* and a mounted BMC_CREDENTIALS_FILE before the defaults', async () => {
    writeFileSync(join(dir, 'creds.yaml'), `node04: {username: admin, password: ${FILE_PASSWORD}}\n`);
    const r = await run(ONE_FOLDER, {
      ...baseEnv(),
      BMC_CREDENTIALS_FILE: join(dir, 'creds.yaml'),
      BMC_NODE05_USERNAME: 'ops',
      BMC_NODE05_PASSWORD: 'pw5',
    });
    const plain = async (host: string): Promise<string> => {
      const d = await decryptSops(secretsOf(r).find((x) => x.includes(`name: ${host}-bmc-secret`))!, { secretKey: id, fileType: 'yaml' });
      return `${Buffer.from(d.data.username, 'base64')}:${Buffer.from(d.data.password, 'base64')}`;
    };
    expect([await plain('node03'), await plain('node04'), await plain('node05')]).toEqual([
      `root:${PASSWORD}`,
      `admin:${FILE_PASSWORD}`,
      'ops:pw5',
    ]);
    noPlaintext(r, PASSWORD, FILE_PASSWORD);
  });

  it('re-renders without churn: kept byte for byte with or without an identity, and even without credentials (CI)', async () => {
    const first = await run(ONE_FOLDER, baseEnv());
    for (const env of [
      baseEnv(),
      { ...baseEnv(), SOPS_AGE_KEY_FILE: join(dir, 'keys.txt') },
      { SOPS_AGE_RECIPIENTS: rcp },
      { SOPS_AGE_KEY: id, SOPS_AGE_RECIPIENTS: rcp },
    ]) {
      const again = await run(first.items, env);
      expect(again.exitCode).toBe(0);
      expect(again.items).toEqual(first.items);
    }
    // credentials given but nothing to compare with: kept, and the function says so
    const blind = await run(first.items, baseEnv());
    expect(rules(blind).filter((x) => x === 'credentials/kept')).toHaveLength(3);
  });

  it('re-encrypts only what changed when an identity can compare; without one it keeps and says so', async () => {
    const first = await run(ONE_FOLDER, baseEnv());
    const changed = { ...baseEnv(), BMC_NODE04_USERNAME: 'root', BMC_NODE04_PASSWORD: 'rotated-pw' };
    const r = await run(first.items, { ...changed, SOPS_AGE_KEY_FILE: join(dir, 'keys.txt') });
    const before = secretsOf(first);
    const after = secretsOf(r);
    expect(after.filter((s) => !before.includes(s)).map((s) => /name: (\S+)/.exec(s)![1])).toEqual(['node04-bmc-secret']);
    const d = await decryptSops(after.find((s) => s.includes('name: node04-bmc-secret'))!, { secretKey: id, fileType: 'yaml' });
    expect(Buffer.from(d.data.password, 'base64').toString()).toBe('rotated-pw');
    const blind = await run(first.items, changed);
    expect(blind.items).toEqual(first.items);
    expect(blind.results.find((x) => x.message.includes('node04') && x.tags?.rule === 'credentials/kept')?.message).toMatch(
      /SOPS_AGE_KEY_FILE/,
    );
  });

  it('follows new recipients: re-wraps with an identity (values unchanged), re-encrypts from credentials, else an error', async () => {
    const first = await run(ONE_FOLDER, baseEnv());
    const rewrapped = await run(first.items, { SOPS_AGE_RECIPIENTS: otherRcp, SOPS_AGE_KEY: id });
    expect(rewrapped.exitCode).toBe(0);
    for (const s of secretsOf(rewrapped)) {
      expect(s).toContain(otherRcp);
      const old = secretsOf(first).find((x) => x.includes(/name: \S+/.exec(s)![0]))!;
      expect(/data:\n(?: {2}.*\n)+/.exec(s)![0]).toBe(/data:\n(?: {2}.*\n)+/.exec(old)![0]);
      await decryptSops(s, { secretKey: otherId, fileType: 'yaml' });
    }
    const fresh = await run(first.items, { ...baseEnv(), SOPS_AGE_RECIPIENTS: otherRcp });
    expect(secretsOf(fresh).every((s) => s.includes(otherRcp))).toBe(true);
    const stuck = await run(first.items, { SOPS_AGE_RECIPIENTS: otherRcp });
    expect(stuck.exitCode).toBe(1);
    expect(rules(stuck)).toContain('credentials/cannot-reencrypt');
  });

  it('stops with one error per host and writes nothing without credentials or recipients', async () => {
    const noCreds = await run(ONE_FOLDER, { SOPS_AGE_RECIPIENTS: rcp });
    expect(noCreds.exitCode).toBe(1);
    expect(rules(noCreds).filter((x) => x === 'credentials/missing')).toHaveLength(3);
    expect(noCreds.items).toEqual(ONE_FOLDER);
    const noRecipients = await run(ONE_FOLDER, { BMC_USERNAME: 'root', BMC_PASSWORD: PASSWORD });
    expect(rules(noRecipients)).toContain('credentials/no-recipients');
    expect(noRecipients.items).toEqual(ONE_FOLDER);
    const bad = await run(ONE_FOLDER, baseEnv(), '    sops:\n      age: [not-a-recipient]\n');
    expect(bad.results.find((x) => x.tags?.rule === 'credentials/bad-recipient')?.message).toContain('not-a-recipient');
    noPlaintext(noRecipients, PASSWORD);
  });

  it('takes recipients and the crypt rule from the .sops.yaml creation rule matching the file (SOPS_CONFIG)', async () => {
    writeFileSync(
      join(dir, '.sops.yaml'),
      `creation_rules:\n- path_regex: ^elsewhere/\n  age: ${otherRcp}\n- path_regex: ^site/hosts/.*\\.sops\\.yaml$\n  encrypted_regex: ^data$\n  age: ${rcp}\n`,
    );
    const r = await run(ONE_FOLDER, {
      BMC_USERNAME: 'root',
      BMC_PASSWORD: PASSWORD,
      SOPS_CONFIG: join(dir, '.sops.yaml'),
      BAREMETAL_KRM_PACKAGE_DIR: join(dir, 'site'),
    });
    expect(r.exitCode).toBe(0);
    for (const s of secretsOf(r)) {
      expect(s).toContain(rcp);
      expect(s).toContain('encrypted_regex: ^data$');
    }
  });

  it('writes a host of two phase folders into both with the same bytes', async () => {
    const items = input('test-site-several-lists');
    const r = await runFunction(
      definition,
      resourceList(
        items,
        'apiVersion: baremetal-krm.dev/v1alpha1\nkind: SiteFromCatalogue\nmetadata:\n  name: t\nspec:\n  credentials:\n    mode: sops\n',
      ),
      baseEnv(),
    );
    const secrets = splitStream(itemsStream(r.output)).filter((i) => /name: node03-bmc-secret\n/.test(i));
    expect(secrets.length).toBeGreaterThan(1);
    const body = (s: string): string => s.replace(/^ {4}(internal\.)?config\.kubernetes\.io\/(path|index): .*\n/gm, '');
    expect(new Set(secrets.map(body)).size).toBe(1);
  });

  it('works from the bundle (age loaded lazily in CommonJS) and stays valid YAML', async () => {
    const out = runBundle('site-from-catalogue', resourceList(ONE_FOLDER, config()), baseEnv());
    expect(out.status).toBe(0);
    const secrets = splitStream(itemsStream(out.stdout)).filter((i) => /-bmc-secret\n/.test(i) && i.includes('sops:'));
    expect(secrets).toHaveLength(3);
    for (const s of secrets) expect(parseAllDocuments(s)[0]!.errors).toEqual([]);
    const d = await decryptSops(secrets[0]!, { secretKey: id, fileType: 'yaml' });
    expect(Buffer.from(d.data.password, 'base64').toString()).toBe(PASSWORD);
  });
});
