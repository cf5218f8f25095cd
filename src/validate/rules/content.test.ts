/** Secret values: placeholders filled in at render time are not plaintext secrets. */
import { describe, expect, it } from 'vitest';
import { findingsOf } from '../../../test/analyse-yaml.js';

describe('secret-placeholder', () => {
  it('REPLACEMENT_* words and whole-value Flux variables are placeholders (info), not plaintext secrets; a shell variable in a script is not one', async () => {
    const yaml = `apiVersion: v1
kind: Secret
metadata:
  name: ephemeral-bmc-secret
stringData:
  userData: |
    #cloud-config
    chpasswd:
      list: |
        root:REPLACEMENT_ISO_PASSWORD_ROOT
    runcmd:
    - echo \${FREE_MB}
  password: \${BMC_PASSWORD}
---
apiVersion: v1
kind: Secret
metadata:
  name: real
stringData:
  password: hunter2
  script: echo \${HOME}
`;
    const f = (await findingsOf(yaml)).filter((x) => x.rule === 'encryption' || x.rule === 'secret-placeholder');
    expect(f.map((x) => [x.rule, x.severity, x.field])).toEqual([
      ['secret-placeholder', 'info', 'stringData.userData'],
      ['encryption', 'error', 'stringData.password'],
    ]);
    expect(f[0]!.message).toContain(`$${'{'}BMC_PASSWORD}, REPLACEMENT_ISO_PASSWORD_ROOT`);
    expect(f[0]!.message).not.toContain('FREE_MB');
    expect(f[1]!.message).toContain('2 plaintext secret value(s) (stringData.password, stringData.script)');
    expect(JSON.stringify(f)).not.toContain('hunter2');
  });
});
