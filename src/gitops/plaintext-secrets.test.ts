/**
 * render writes no plaintext credential into the folder Flux applies: a Secret with a plain
 * credential value is an error naming the file, the Secret and the field (never the value), and
 * nothing is written; SOPS ciphertext, placeholders and non-credential keys pass.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flatten } from './flatten.js';
import { renderSite } from './render.js';

let tmp = '';
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'render-plaintext-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const secret = (section: string, entries: string): string =>
  `apiVersion: v1\nkind: Secret\nmetadata:\n  name: node-1-bmc-secret\n  namespace: infra\ntype: Opaque\n${section}:\n${entries}`;
const SOPS = 'sops:\n  age:\n  - recipient: age1xyz\n    enc: x\n  mac: ENC[AES256_GCM,data:abc,type:str]\n  version: 3.10.2\n';

const problems = (text: string) => flatten([{ path: 'hosts/secrets.yaml', text }]).problems.map((p) => `${p.severity}: ${p.message}`);

describe('render and plaintext Secrets', () => {
  it('refuses a plain stringData or data credential, naming file, Secret and field and the fix, never the value', () => {
    const [m] = problems(secret('stringData', '  username: admin\n  password: hunter2-Pa55\n'));
    expect(m).toMatch(
      /^error: hosts\/secrets\.yaml: Secret\/infra\/node-1-bmc-secret holds plain-text credentials \(stringData\.username, stringData\.password\)/,
    );
    expect(m).toContain('encrypt it with SOPS');
    expect(m).toContain('credentials.mode: sops');
    expect(m).not.toContain('hunter2');
    expect(m).not.toContain('admin');
    const data = problems(secret('data', `  password: ${Buffer.from('hunter2-Pa55').toString('base64')}\n`));
    expect(data).toHaveLength(1);
    expect(data[0]).toContain('(data.password)');
    expect(data[0]).not.toContain(Buffer.from('hunter2-Pa55').toString('base64'));
  });

  it('passes SOPS-encrypted Secrets, placeholders and non-credential keys; a sops block over plain values is still plain', () => {
    expect(problems(`${secret('data', '  password: ENC[AES256_GCM,data:Zm9v,iv:x,tag:y,type:str]\n')}${SOPS}`)).toEqual([]);
    const fluxVariable = ['$', '{BMC_PASSWORD}'].join(''); // substituted by Flux post-build
    expect(problems(secret('stringData', `  password: ${fluxVariable}\n`))).toEqual([]);
    expect(problems(secret('stringData', '  networkData: "links: []"\n'))).toEqual([]);
    expect(problems(`${secret('stringData', '  password: hunter2\n')}${SOPS}`)).toHaveLength(1);
  });

  it('a value that only starts like ciphertext is plain text (nothing decrypts it; what follows the bracket goes to Git)', () => {
    for (const v of ['ENC[x] hunter2-Pa55', 'ENC[AES256_GCM,data:Zm9v', 'ENC[AES256_GCM,data:Zm9v,iv:x,tag:y,type:str] hunter2']) {
      const found = problems(`${secret('stringData', `  password: "${v}"\n`)}${SOPS}`);
      expect(found, v).toHaveLength(1);
      expect(found[0]).toContain('(stringData.password)');
      expect(found[0]).not.toContain('hunter2');
    }
  });

  it('writes nothing when the package holds a plaintext Secret (--no-kpt and after kpt alike: one flatten)', () => {
    const site = join(tmp, 'pkg');
    const write = (rel: string, text: string) => {
      mkdirSync(dirname(join(site, rel)), { recursive: true });
      writeFileSync(join(site, rel), text);
    };
    write('Kptfile', 'apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: s\n');
    write('hosts/secret.yaml', secret('stringData', '  password: hunter2\n'));
    const r = renderSite({ site, out: join(tmp, 'out'), noKpt: true, env: {}, log: () => {} });
    expect(r.summary).toBeUndefined();
    expect(r.problems.map((p) => p.severity)).toEqual(['error']);
    expect(existsSync(join(tmp, 'out'))).toBe(false);
  });

  it('property: any credential-named key with a plain value is an error, its value never in a message', () => {
    const key = fc.constantFrom('password', 'bmcPassword', 'token', 'api-key', 'client-secret', 'PRIVATE_KEY', 'passwd');
    const value = fc.string({ minLength: 6, maxLength: 30 }).filter((v) => /^[A-Za-z0-9]+$/.test(v) && !/^ENC\[/.test(v));
    fc.assert(
      fc.property(fc.constantFrom('data', 'stringData'), key, value, (section, k, v) => {
        const shown = section === 'data' ? Buffer.from(v).toString('base64') : v;
        const found = problems(secret(section, `  ${k}: "${shown}"\n`));
        expect(found).toHaveLength(1);
        expect(found[0]).toContain(`${section}.${k}`);
        expect(found[0]).not.toContain(shown);
      }),
      { numRuns: 200, seed: 17 },
    );
  });
});
