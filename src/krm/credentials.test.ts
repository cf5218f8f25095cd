/**
 * The scrub reads the credentials of the items results name (addCredentialsOf): an item whose
 * credential shows only once its escapes are read (`"\x70assword"` in YAML, `"\u0070assword"` in
 * JSON) is read too, and a message that quotes its value is scrubbed, in the runtime and alike in
 * every input form.
 */
import { describe, expect, it } from 'vitest';
import { Redactor } from '../secrets/redact.js';
import { addCredentialsOf, type FunctionDefinition, readInput, runFunction } from './index.js';

const VALUE = 'Zq8-vault-value-5521';

/** ConfigMaps whose only credential key is written with an escape; no other credential word in them. */
const YAML_ITEM = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  "\\x70assword": ${VALUE}\n`;
const JSON_LIST = JSON.stringify({
  apiVersion: 'config.kubernetes.io/v1',
  kind: 'ResourceList',
  items: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app' }, data: { password: VALUE } }],
}).replace('"password"', '"\\u0070assword"');

/** A careless function: quotes every data value of every item in a message. */
const quoting: FunctionDefinition<unknown> = {
  name: 'quoting',
  configKind: 'Quoting',
  summary: 'quotes data values (test only)',
  specSchema: {},
  validateSpec: Object.assign(() => true, { errors: null }),
  run(ctx) {
    for (const o of ctx.resources()) {
      const data = o.readData().data as Record<string, string>;
      for (const v of Object.values(data)) ctx.results.warning(`the value is ${v}`, { object: o });
    }
  },
};

describe('credentials of the items results name', () => {
  it('an escaped credential key in YAML and in JSON is read: its value is scrubbed', () => {
    const yamlList = `apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- ${YAML_ITEM.trimEnd().replace(/\n/g, '\n  ')}\n`;
    for (const input of [YAML_ITEM, yamlList, JSON_LIST]) {
      const [o] = readInput(input).items;
      expect(o!.original ?? o!.body, input).not.toMatch(/password/);
      const secrets = new Redactor();
      addCredentialsOf(secrets, o!);
      expect(secrets.scrubKnown(`quoted: ${VALUE}`), input).toBe('quoted: ***');
    }
  });

  it('a function that quotes the value: the runtime scrubs it from its results, in every input form', async () => {
    const yamlList = `apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- ${YAML_ITEM.trimEnd().replace(/\n/g, '\n  ')}\n`;
    for (const input of [YAML_ITEM, yamlList, JSON_LIST]) {
      const r = await runFunction(quoting, input);
      expect(
        r.results.map((x) => x.message),
        input,
      ).toContain('the value is ***');
      expect(r.stderr, input).not.toContain(VALUE); // (the output's items are the input's, the value in them)
    }
  });

  it('an item with no credential word and no escape is not read (nothing to find)', () => {
    const [o] = readInput(`apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  color: ${VALUE}\n`).items;
    const secrets = new Redactor();
    addCredentialsOf(secrets, o!);
    expect(secrets.scrubKnown(VALUE)).toBe(VALUE);
  });
});
