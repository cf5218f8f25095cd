/**
 * SOPS files as getsops/sops and Flux read them, proven with independent implementations:
 * `sops-age` (its own SOPS tree and AES-GCM code, its own age copy) decrypts what we write,
 * Debian's `age` CLI opens the data key, and WebCrypto + SHA-512 over sops-age's plaintext give
 * the MAC we stored.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { decryptSops } from 'sops-age';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeObject } from '../krm/index.js';
import {
  SopsError,
  decryptDocument,
  decryptValue,
  encryptDocument,
  encryptValue,
  metadataOf,
  newIdentity,
  parseSopsConfig,
  recipientOf,
  rewrapDocument,
  ruleFor,
  shouldEncrypt,
} from './index.js';
import { goFloatText } from './tree.js';

const AGE_CLI = '/usr/bin/age';
const hasAgeCli = spawnSync(AGE_CLI, ['--version']).status === 0;

let identity = '';
let recipient = '';
let other = '';
let dir = '';
beforeAll(async () => {
  identity = await newIdentity();
  recipient = await recipientOf(identity);
  other = await recipientOf(await newIdentity());
  dir = mkdtempSync(join(tmpdir(), 'sops-test-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const NOW = new Date('2025-03-04T05:06:07.890Z');
const RULES = { encryptedRegex: '^(data|stringData)$' };

function secret(password = 'calvin'): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      annotations: { 'baremetal-krm.dev/generated-by': 'site-from-catalogue/hosts' },
      name: 'r750-01-bmc-secret',
      namespace: 'target-infra',
    },
    type: 'Opaque',
    data: { username: Buffer.from('root').toString('base64'), password: Buffer.from(password).toString('base64') },
  };
}

/** The YAML our runtime writes for a generated item (what lands in Git). */
const yamlOf = (doc: object): string => KubeObject.fromData(doc).body;

describe('SOPS documents', () => {
  it('writes the metadata SOPS >= 3.10 writes, in its order, and values as ENC[AES256_GCM,...,type:str]', async () => {
    const enc = await encryptDocument(secret(), { recipients: [recipient, other], rules: RULES, now: NOW });
    expect(Object.keys(enc)).toEqual(['apiVersion', 'kind', 'metadata', 'type', 'data', 'sops']);
    const sops = enc.sops as Record<string, unknown>;
    expect(Object.keys(sops)).toEqual(['age', 'lastmodified', 'mac', 'encrypted_regex', 'version']);
    expect(sops.lastmodified).toBe('2025-03-04T05:06:07Z');
    expect(sops.encrypted_regex).toBe('^(data|stringData)$');
    expect(sops.version).toMatch(/^3\.\d+\.\d+$/);
    expect((sops.age as { recipient: string }[]).map((a) => a.recipient)).toEqual([recipient, other]);
    for (const a of sops.age as { enc: string }[])
      expect(a.enc).toMatch(/^-----BEGIN AGE ENCRYPTED FILE-----\n[\s\S]+\n-----END AGE ENCRYPTED FILE-----\n$/);
    const value = /^ENC\[AES256_GCM,data:([A-Za-z0-9+/=]+),iv:([A-Za-z0-9+/=]+),tag:([A-Za-z0-9+/=]+),type:str\]$/;
    for (const v of [...Object.values(enc.data as object), sops.mac]) {
      const m = value.exec(String(v));
      expect(m, String(v).slice(0, 40)).not.toBeNull();
      expect(Buffer.from(m![2]!, 'base64')).toHaveLength(32); // SOPS's nonce size
      expect(Buffer.from(m![3]!, 'base64')).toHaveLength(16);
    }
    // clear outside the crypt rule, as SOPS leaves them
    expect(enc.metadata).toEqual(secret().metadata);
    expect(enc.type).toBe('Opaque');
  });

  it('decrypts back with the MAC verified, and sees any change to a clear or an encrypted value', async () => {
    const enc = await encryptDocument(secret(), { recipients: [recipient], rules: RULES, now: NOW });
    const dec = await decryptDocument(enc, [identity]);
    expect(dec?.doc).toEqual(secret());
    expect(dec?.macOk).toBe(true);
    const renamed = structuredClone(enc) as { metadata: { name: string } };
    renamed.metadata.name = 'other';
    expect((await decryptDocument(renamed, [identity]))?.macOk).toBe(false);
    const swapped = structuredClone(enc) as { data: { username: string; password: string } };
    [swapped.data.username, swapped.data.password] = [swapped.data.password, swapped.data.username];
    await expect(decryptDocument(swapped, [identity])).rejects.toThrow(SopsError);
    // an identity that is not a recipient opens nothing
    expect(await decryptDocument(enc, [await newIdentity()])).toBeUndefined();
  });

  it('sops-age (an independent implementation) decrypts the YAML as written, for every recipient', async () => {
    const second = await newIdentity();
    const enc = await encryptDocument(secret('s3cr3t:p@ss'), {
      recipients: [recipient, await recipientOf(second)],
      rules: RULES,
      now: NOW,
    });
    for (const key of [identity, second]) {
      const plain = await decryptSops(yamlOf(enc), { secretKey: key, fileType: 'yaml' });
      expect(Buffer.from(plain.data.password, 'base64').toString()).toBe('s3cr3t:p@ss');
      expect(plain.metadata.name).toBe('r750-01-bmc-secret');
    }
    // and the JSON Flux's kustomize-controller hands to SOPS (res.MarshalJSON)
    const plain = await decryptSops(JSON.stringify(enc), { secretKey: identity, fileType: 'json' });
    expect(plain.data).toEqual(secret('s3cr3t:p@ss').data);
  });

  it.skipIf(!hasAgeCli)(
    'Debian age opens the data key; WebCrypto AES-GCM and SHA-512 over sops-age output give the stored MAC',
    async () => {
      const enc = await encryptDocument(secret(), { recipients: [recipient], rules: RULES, now: NOW });
      const meta = metadataOf(enc)!;
      writeFileSync(join(dir, 'id.txt'), `${identity}\n`);
      writeFileSync(join(dir, 'key.age'), meta.age[0]!.enc);
      const dataKey = execFileSync(AGE_CLI, ['--decrypt', '-i', join(dir, 'id.txt'), join(dir, 'key.age')]);
      expect(dataKey).toHaveLength(32);
      const m = /^ENC\[AES256_GCM,data:(.+),iv:(.+),tag:(.+),type:str\]$/.exec(meta.mac)!;
      const key = await crypto.subtle.importKey('raw', dataKey, 'AES-GCM', false, ['decrypt']);
      const sealed = Buffer.concat([Buffer.from(m[1]!, 'base64'), Buffer.from(m[3]!, 'base64')]);
      const mac = Buffer.from(
        await crypto.subtle.decrypt(
          { name: 'AES-GCM', iv: Buffer.from(m[2]!, 'base64'), additionalData: Buffer.from(meta.lastmodified) },
          key,
          sealed,
        ),
      ).toString();
      const plain = await decryptSops(yamlOf(enc), { secretKey: identity, fileType: 'yaml' });
      const leaves: string[] = [];
      const walk = (v: unknown): void => {
        if (v && typeof v === 'object') for (const x of Object.values(v)) walk(x);
        else leaves.push(String(v));
      };
      const { sops: _s, ...rest } = plain;
      walk(rest);
      const digest = Buffer.from(await crypto.subtle.digest('SHA-512', Buffer.from(leaves.join(''))))
        .toString('hex')
        .toUpperCase();
      expect(mac).toBe(digest);
    },
  );

  it('re-wraps the data key for new recipients without touching values, MAC or lastmodified (sops updatekeys)', async () => {
    // with the data key (from an identity of the old recipients) the values stay byte for byte
    const otherId = await newIdentity();
    const enc2 = await encryptDocument(secret(), { recipients: [await recipientOf(otherId)], rules: RULES, now: NOW });
    const key = (await decryptDocument(enc2, [otherId]))!.dataKey;
    expect(await decryptDocument(enc2, [identity])).toBeUndefined();
    const re = await rewrapDocument(enc2, key, [recipient]);
    expect(re.data).toEqual(enc2.data);
    expect((re.sops as Record<string, unknown>).mac).toBe((enc2.sops as Record<string, unknown>).mac);
    expect(Object.keys(re.sops as object)).toEqual(Object.keys(enc2.sops as object));
    expect((await decryptDocument(re, [identity]))?.macOk).toBe(true);
  });

  it('round-trips any document (property): sops-age agrees, the MAC holds', async () => {
    const key = fc.stringMatching(/^[a-z][a-zA-Z0-9_-]{0,8}$/);
    const scalar = fc.oneof(
      fc.string(),
      fc.integer(),
      fc.boolean(),
      fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }),
    );
    const tree = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        scalar,
        fc.array(tie('node'), { maxLength: 3 }),
        fc.dictionary(key, tie('node'), { maxKeys: 3 }),
      ),
    })).node;
    await fc.assert(
      fc.asyncProperty(fc.dictionary(key, tree, { minKeys: 1, maxKeys: 4 }), fc.boolean(), async (doc, all) => {
        fc.pre(!('sops' in doc));
        const rules = all ? {} : { encryptedRegex: '^(data|spec)$' };
        const enc = await encryptDocument(doc, { recipients: [recipient], rules, now: NOW });
        const dec = await decryptDocument(enc, [identity]);
        expect(dec?.doc).toEqual(doc);
        expect(dec?.macOk).toBe(true);
        const viaSopsAge = await decryptSops(JSON.stringify(enc), { secretKey: identity, fileType: 'json' });
        const { sops: _s, ...rest } = viaSopsAge;
        // compared as JSON carries them: JSON.stringify(-0) is "0" (the sign is checked above)
        expect(JSON.parse(JSON.stringify(rest))).toEqual(JSON.parse(JSON.stringify(doc)));
      }),
      { numRuns: Number(process.env.SOPS_RUNS ?? 40) },
    );
  });
});

describe('SOPS values and rules', () => {
  it('binds each value to its path (additional data) and types ints, floats and booleans as SOPS does', () => {
    const key = Buffer.alloc(32, 7);
    const v = encryptValue('x', key, 'data:password:');
    expect(decryptValue(v, key, 'data:password:')).toBe('x');
    expect(() => decryptValue(v, key, 'data:username:')).toThrow(SopsError);
    expect(encryptValue('', key, 'a:')).toBe('');
    expect(encryptValue(3, key, 'a:')).toMatch(/type:int\]$/);
    expect(encryptValue(1.5, key, 'a:')).toMatch(/type:float\]$/);
    expect(decryptValue(encryptValue(true, key, 'a:'), key, 'a:')).toBe(true);
    expect(goFloatText(1e21)).toBe('1000000000000000000000');
    expect(goFloatText(1.5e-7)).toBe('0.00000015');
    expect(goFloatText(-0)).toBe('-0'); // a fuzz find: negative zero kept its sign through SOPS
  });

  it('selects leaves as SOPS: a regex over any path element, the _unencrypted default, one rule only', () => {
    expect(shouldEncrypt(['data', 'password'], RULES)).toBe(true);
    expect(shouldEncrypt(['metadata', 'name'], RULES)).toBe(false);
    expect(shouldEncrypt(['metadata', 'name'], {})).toBe(true);
    expect(shouldEncrypt(['note_unencrypted'], {})).toBe(false);
    expect(() => shouldEncrypt(['a'], { encryptedRegex: 'a', unencryptedSuffix: '_x' })).toThrow(SopsError);
  });

  it('reads .sops.yaml creation rules: first matching path_regex, age as a list or a comma string, key_groups', () => {
    const rules = parseSopsConfig(
      [
        'creation_rules:',
        '- path_regex: hosts/.*bmc-secret.*\\.yaml$',
        '  encrypted_regex: ^(data|stringData)$',
        `  age: ${recipient}, ${other}`,
        '- key_groups:',
        `  - age: [${other}]`,
      ].join('\n'),
      '.sops.yaml',
    );
    expect(ruleFor(rules, 'site/hosts/r750-01-bmc-secret.sops.yaml')).toEqual({
      pathRegex: 'hosts/.*bmc-secret.*\\.yaml$',
      age: [recipient, other],
      rules: RULES,
    });
    expect(ruleFor(rules, 'other.yaml')?.age).toEqual([other]);
    expect(() => parseSopsConfig('a: 1', '.sops.yaml')).toThrow(/creation_rules/);
  });
});
