/**
 * `credentials.mode: sops`: each host's BMC Secret written SOPS-encrypted for age recipients, in
 * its own file `<outputDir>/<secret name>.sops.yaml` (so `sops --decrypt` and `sops edit` open it),
 * in the format Flux's kustomize-controller decrypts (`spec.decryption.provider: sops`).
 *
 * Plaintext comes from the environment or a mounted credentials file (src/secrets/
 * bmc-credentials.ts), never from Git. Re-rendering never churns Git: an existing encrypted
 * Secret is kept byte for byte unless its credentials changed. How the function knows: with an
 * age identity (`SOPS_AGE_KEY_FILE` or `SOPS_AGE_KEY`) it decrypts the existing Secret and
 * compares; without one it cannot tell, keeps the Secret and says so (info) when credentials were
 * given. Recipients that changed are re-wrapped with the identity (values untouched, as `sops
 * updatekeys`), or re-encrypted from the given credentials.
 */
import { posix, relative, resolve } from 'node:path';
import type { Context, Desired, KubeObject } from '../../src/krm/index.js';
import { GENERATED_BY, LOCATION_ANNOTATION, isRecord } from '../../src/krm/index.js';
import { type BmcCredentials, credentialsFor, readCredentialsFile } from '../../src/secrets/bmc-credentials.js';
import {
  type CryptRules,
  SopsConfigError,
  SopsError,
  decryptDocument,
  encryptDocument,
  identitiesFromEnv,
  isAgeRecipient,
  metadataOf,
  readSopsConfig,
  recipientsOf,
  rewrapDocument,
  ruleFor,
} from '../../src/sops/index.js';
import type { RenderedHost } from './generate.js';
import type { Spec } from './spec.js';

/** What Flux's SOPS guide encrypts in Kubernetes Secrets. */
export const DEFAULT_ENCRYPTED_REGEX = '^(data|stringData)$';

type Json = Record<string, unknown>;

interface Settings {
  env: Record<string, string | undefined>;
  identities: string[];
  file?: Record<string, BmcCredentials>;
  now: Date;
  owner: string;
}

/** The file of a host's encrypted BMC Secret in a folder. */
export function sopsSecretPath(folder: string, outputDir: string, secretName: string): string {
  return posix.join(folder, outputDir, `${secretName}.sops.yaml`);
}

/** Recipients and crypt rule for a file: spec, then env SOPS_AGE_RECIPIENTS, then the `.sops.yaml` SOPS_CONFIG names. */
function recipientsFor<S>(ctx: Context<S>, spec: Spec, path: string): { age: string[]; rules: CryptRules; from: string } | undefined {
  const encryptedRegex = spec.credentials?.sops?.encryptedRegex ?? DEFAULT_ENCRYPTED_REGEX;
  const given = spec.credentials?.sops?.age;
  if (given?.length) return { age: given, rules: { encryptedRegex }, from: 'spec.credentials.sops.age' };
  const env = ctx.env.SOPS_AGE_RECIPIENTS;
  if (env?.trim())
    return {
      age: env
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
      rules: { encryptedRegex },
      from: 'env SOPS_AGE_RECIPIENTS',
    };
  const config = ctx.env.SOPS_CONFIG;
  if (!config) return undefined;
  // paths in .sops.yaml are relative to its folder; the package's place comes from
  // BAREMETAL_KRM_PACKAGE_DIR (baremetal-krm render sets it), else the package is that folder
  const pkg = ctx.env.BAREMETAL_KRM_PACKAGE_DIR;
  const rel = pkg ? relative(resolve(config, '..'), resolve(pkg, path)).split('\\').join('/') : path;
  const rule = ruleFor(readSopsConfig(config), rel);
  if (!rule || rule.age.length === 0) return undefined;
  const rules = Object.keys(rule.rules).length ? rule.rules : { encryptedRegex };
  return { age: rule.age, rules, from: `${config} (creation rule for ${rel})` };
}

function withoutLocation(data: Json): Json {
  const md = isRecord(data.metadata) ? data.metadata : undefined;
  if (!md || !isRecord(md.annotations)) return data;
  const annotations = Object.fromEntries(Object.entries(md.annotations).filter(([k]) => !LOCATION_ANNOTATION.test(k)));
  return { ...data, metadata: { ...md, annotations } };
}

const sameSet = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && [...a].sort().join() === [...b].sort().join();

function plainSecret(name: string, namespace: string, owner: string, c: BmcCredentials): Json {
  const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { annotations: { [GENERATED_BY]: owner }, name, namespace },
    type: 'Opaque',
    data: { username: b64(c.username), password: b64(c.password) },
  };
}

const stable = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) => (isRecord(x) ? Object.fromEntries(Object.entries(x).sort()) : x));

interface HostSecret {
  host: string;
  name: string;
  namespace: string;
  address?: string;
  path: string;
  existing?: KubeObject;
}

/** The encrypted Secret to write for one host, or undefined after an error result. */
async function secretFor<S>(ctx: Context<S>, spec: Spec, s: HostSecret, set: Settings): Promise<Json | undefined> {
  const where = { field: 'spec.credentials', rule: 'credentials/sops' };
  const target = recipientsFor(ctx, spec, s.path);
  if (!target) {
    ctx.results.error(
      `host ${s.host}: no age recipients to encrypt ${s.name} for: set spec.credentials.sops.age, env SOPS_AGE_RECIPIENTS, or a .sops.yaml creation rule (baremetal-krm render finds it; or set SOPS_CONFIG)`,
      { ...where, rule: 'credentials/no-recipients' },
    );
    return undefined;
  }
  const bad = target.age.find((r) => !isAgeRecipient(r));
  if (bad !== undefined) {
    ctx.results.error(`${target.from}: "${bad}" is not an age recipient (age1...)`, { ...where, rule: 'credentials/bad-recipient' });
    return undefined;
  }
  const creds = credentialsFor({ name: s.host, address: s.address }, set.env, set.file);
  const wanted = creds ? plainSecret(s.name, s.namespace, set.owner, creds) : undefined;
  const encrypt = (why: string): Promise<Json> => {
    if (why)
      ctx.results.info(`host ${s.host}: ${s.name} encrypted for ${target.age.length} age recipient(s) (${why})`, {
        ...where,
        rule: 'credentials/encrypted',
      });
    return encryptDocument(wanted!, { recipients: target.age, rules: target.rules, now: set.now });
  };
  const existing = s.existing ? withoutLocation(s.existing.data) : undefined;
  if (!existing || !metadataOf(existing)) {
    if (!wanted) return missing(ctx, s);
    return encrypt(existing ? 'it was not encrypted' : 'new');
  }
  const sameRecipients = sameSet(recipientsOf(existing), target.age);
  let opened: Awaited<ReturnType<typeof decryptDocument>>;
  try {
    opened = await decryptDocument(existing, set.identities);
  } catch (e) {
    if (e instanceof SopsError && wanted) return encrypt(`the committed one cannot be decrypted: ${e.message}`);
    throw e;
  }
  if (opened) {
    const unchanged = opened.macOk && (!wanted || stable(opened.doc) === stable(wanted));
    if (!unchanged) return encrypt(opened.macOk ? 'credentials changed' : 'the committed one fails its MAC check');
    if (sameRecipients) return existing;
    ctx.results.info(`host ${s.host}: ${s.name} re-wrapped for the age recipients of ${target.from} (values unchanged)`, {
      ...where,
      rule: 'credentials/encrypted',
    });
    return rewrapDocument(existing, opened.dataKey, target.age);
  }
  if (sameRecipients) {
    if (wanted)
      ctx.results.info(
        `host ${s.host}: kept the committed ${s.name}: without an age identity that opens it (SOPS_AGE_KEY_FILE or SOPS_AGE_KEY) changed credentials cannot be told apart; to rotate, give the identity or delete ${s.path}`,
        { ...where, rule: 'credentials/kept' },
      );
    return existing;
  }
  if (wanted) return encrypt(`the recipients changed (${target.from})`);
  ctx.results.error(
    `host ${s.host}: ${s.name} is encrypted for other age recipients than ${target.from} names, and neither an identity that opens it (SOPS_AGE_KEY_FILE) nor credentials (BMC_USERNAME/BMC_PASSWORD, BMC_CREDENTIALS_FILE) are given to re-encrypt it`,
    { ...where, rule: 'credentials/cannot-reencrypt' },
  );
  return undefined;
}

function missing<S>(ctx: Context<S>, s: HostSecret): undefined {
  ctx.results.error(
    `host ${s.host}: no BMC credentials to encrypt into ${s.name}: set env BMC_USERNAME and BMC_PASSWORD (all hosts), BMC_<HOST>_USERNAME / _PASSWORD, or BMC_CREDENTIALS_FILE (a mounted file {default: {username, password}, ${s.host}: {...}}); they are never read from Git`,
    { field: 'spec.credentials.mode', rule: 'credentials/missing' },
  );
  return undefined;
}

function loadSettings<S>(ctx: Context<S>, owner: string): Settings | undefined {
  const epoch = Number(ctx.env.SOURCE_DATE_EPOCH);
  const set: Settings = {
    env: ctx.env,
    identities: [],
    now: Number.isFinite(epoch) && epoch > 0 ? new Date(epoch * 1000) : new Date(),
    owner,
  };
  try {
    set.identities = identitiesFromEnv(ctx.env);
    if (ctx.env.BMC_CREDENTIALS_FILE) set.file = readCredentialsFile(ctx.env.BMC_CREDENTIALS_FILE);
  } catch (e) {
    ctx.results.error((e as Error).message, { field: 'spec.credentials', rule: 'credentials/sops' });
    return undefined;
  }
  return set;
}

/**
 * The encrypted BMC Secrets of the rendered hosts, one file per Secret and folder (a host in two
 * phase folders gets the same bytes in both). Undefined after error results (nothing written).
 */
export async function sopsBmcSecrets<S>(ctx: Context<S>, spec: Spec, hosts: RenderedHost[], owner: string): Promise<Desired[] | undefined> {
  const set = loadSettings(ctx, owner);
  if (!set) return undefined;
  const outputDir = (spec.outputDir ?? 'hosts').replace(/\/+$/, '');
  const secrets = ctx.ofKind('Secret').filter((o) => o.apiVersion === 'v1');
  const out: Desired[] = [];
  let failed = false;
  for (const h of hosts) {
    const bmh = h.docs[0] as { metadata: { namespace: string }; spec: { bmc: { credentialsName: string; address?: string } } };
    const { credentialsName: name, address } = bmh.spec.bmc;
    const namespace = bmh.metadata.namespace;
    const paths = h.folders.map((f) => sopsSecretPath(f, outputDir, name));
    const existing =
      secrets.find((o) => o.name === name && o.namespace === namespace && metadataOf(o.data)) ??
      secrets.find((o) => o.name === name && o.namespace === namespace);
    let data: Json | undefined;
    try {
      data = await secretFor(ctx, spec, { host: h.name, name, namespace, address, path: paths[0]!, existing }, set);
    } catch (e) {
      if (!(e instanceof SopsConfigError || e instanceof SopsError)) throw e;
      ctx.results.error(e.message, { field: 'spec.credentials', rule: 'credentials/sops' });
    }
    if (!data) {
      failed = true;
      continue;
    }
    for (const path of paths) out.push({ data: structuredClone(data), path });
  }
  return failed ? undefined : out;
}
