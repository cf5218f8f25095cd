/**
 * Item 1 of issue 13: finding messages describe a credential's value by type and length and
 * never quote it (schema type/enum/pattern messages, yaml-ambiguous), while harmless values are
 * still quoted.
 */
import { describe, expect, it } from 'vitest';
import { runFunction } from '../../src/krm/index.js';
import { definition } from '../../functions/intent-validate/function.js';
import { resourceList } from '../golden.js';

const SECRET = `apiVersion: v1
kind: Secret
metadata:
  name: db
  namespace: app
stringData:
  password: 98765432101
  token: 0777
`;
const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: db
  namespace: app
spec:
  replicas: "3"
  selector:
    matchLabels: {app: db}
  template:
    metadata:
      labels: {app: db}
    spec:
      containers:
      - name: db
        image: mysql:8
        env:
        - name: MYSQL_PWD
          value: 0644
        - name: MODE
          value: 0755
`;

async function messages(doc: string): Promise<string[]> {
  const r = await runFunction(definition, resourceList([doc]));
  return r.results.map((x) => x.message);
}

describe('finding messages never quote a credential', () => {
  it('a Secret value: "must be string, found a number of 11 character(s)", "a plain value of 4 character(s) is ambiguous"', async () => {
    const m = await messages(SECRET);
    expect(m).toContain(
      'Secret/app/db: stringData.password must be string, found a number of 11 character(s) (quote the value) (schema Secret v1)',
    );
    expect(m).toContain(
      'Secret/app/db: stringData.token: a plain value of 4 character(s) is ambiguous: YAML 1.1 (kubectl, yaml.v2) and YAML 1.2 (kustomize kyaml, yaml.v3) read it differently; quote it',
    );
    expect(m.join('\n')).not.toMatch(/98765432101|0777|\b511\b/);
  });

  it('an env var with a credential-looking name is described; a harmless one and other fields are still quoted', async () => {
    const m = (await messages(DEPLOYMENT)).join('\n');
    expect(m).toContain('spec.template.spec.containers[0].env[0].value: a plain value of 4 character(s) is ambiguous');
    expect(m).toContain('env[1].value: plain value 0755 is ambiguous');
    expect(m).toContain('spec.replicas must be integer, found string "3"');
    expect(m).not.toContain('0644');
  });
});
