/**
 * A text that does not read is named by its position, never quoted: the messages of both
 * parsers (V8's JSON.parse, `yaml`) quote what they stumbled on, which may be a credential
 * (`password: *s3cr3t` is an alias, `password: !s3cr3t x` a tag, `'s3cr3t'` not JSON). Each
 * broken shape carries the credential where its parser's message would quote it, in every input
 * form, through a function that reads items whole and through the CLI.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runFunction } from '../../src/krm/index.js';
import { runValidate } from '../../src/cli/validate.js';
import { definition } from '../../functions/intent-validate/function.js';

const SECRET = 'Qv7s3cr3tXw';

/** Secrets whose text breaks YAML where the parser would quote the credential. */
const BROKEN_YAML = [
  `password: *${SECRET}`, // an alias without its anchor
  `password: !${SECRET} x`, // a tag no one defined
  `password: !<tag:${SECRET}> x`, // a verbatim tag
  `password: "a\\${SECRET}"`, // an escape that is none
  `password: |${SECRET}\n    x`, // a block scalar's header
].map((line) => `apiVersion: v1\nkind: Secret\nmetadata:\n  name: bmc\nstringData:\n  ${line}\n`);

/** The same as JSON items that JSON.parse refuses. */
const BROKEN_JSON = [`'${SECRET}'`, SECRET, `"${SECRET}\\q"`, `"${SECRET}`].map(
  (v) => `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"bmc"},"stringData":{"password":${v}}}`,
);

const asList = (doc: string): string =>
  `apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- ${doc.trimEnd().replace(/\n/g, '\n  ')}\n`;
const asJsonList = (item: string): string => `{"apiVersion":"config.kubernetes.io/v1","kind":"ResourceList","items":[${item}]}`;

describe('a text that does not read is never quoted', () => {
  it('in a function: results and stderr, every input form', async () => {
    const inputs = [...BROKEN_YAML.flatMap((d) => [d, asList(d), `---\n${d}`]), ...BROKEN_JSON.map(asJsonList)];
    for (const input of inputs) {
      const r = await runFunction(definition, input);
      expect(r.exitCode, input).toBe(1);
      expect(r.results.map((x) => x.message).join('\n') + r.stderr, input).not.toContain(SECRET);
    }
  });

  it('in the CLI: validate, text and SARIF', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parser-messages-'));
    const files = [...BROKEN_YAML.map((d, i) => [`y${i}.yaml`, d]), ...BROKEN_JSON.map((d, i) => [`j${i}.json`, asJsonList(d)])];
    for (const [name, text] of files) writeFileSync(join(dir, name!), text!);
    for (const format of [[], ['--format', 'sarif']]) {
      let out = '';
      const code = await runValidate([...format, dir], { out: (s: string) => void (out += s), err: (s: string) => void (out += s) });
      expect(code).toBe(1);
      expect(out).not.toContain(SECRET);
      expect(out).toMatch(/line \d+/);
    }
  });
});
