import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  describeValue,
  forEachCredential,
  isCredentialEnvName,
  isCredentialKey,
  isSensitiveKey,
  isSensitivePath,
  quoteValue,
  redactArgs,
  redactString,
  redactText,
  redactValueText,
  Redactor,
  scrubWork,
} from './redact.js';
import { CREDENTIAL_WORDS } from './credential-words.js';

describe('which keys hold credentials', () => {
  it.each([
    ['password', true, true],
    ['bmcPassword', true, true],
    ['passwd', true, true],
    ['MYSQL_PWD', true, true],
    ['pwd', true, true],
    ['token', true, true],
    ['GITHUB_TOKEN', true, true],
    ['client-key-data', true, true],
    ['tls.key', true, true],
    ['apiKey', true, true],
    ['clientSecret', true, true],
    ['credentials', true, true],
    ['auth', true, true],
    ['basicAuth', true, true],
    ['adminPass', true, true],
    ['SITE_PW', true, true],
    ['ldapBindPw', true, true],
    ['rootpw', true, true],
    ['sshKey', true, true],
    ['encryptionKey', true, true],
    ['keyData', true, true],
    ['clientKeyData', true, true],
    // a public key is made to be shown
    ['sshPublicKey', false, false],
    ['ssh_public_key', false, false],
    ['pubKey', false, false],
    ['monkey', false, false],
    ['snmpCommunity', true, true],
    ['wifiPsk', true, true],
    ['GH_PAT', true, true],
    ['githubPat', true, true],
    ['path', false, false],
    ['compat', false, false],
    // an account name: never shown, but not a plaintext-secret finding
    ['username', false, true],
    ['BMC_USERNAME', false, true],
    // references and settings: shown
    ['credentialsName', false, false],
    ['secretRef', false, false],
    ['passwordFile', false, false],
    ['tokenTTL', false, false],
    ['sessionTimeout', false, false],
    ['topologyKey', false, false],
    ['runAsUser', false, false],
    ['hostname', false, false],
  ])('%s: credential %s, never shown %s', (key, credential, sensitive) => {
    expect(isCredentialKey(key)).toBe(credential);
    expect(isSensitiveKey(key)).toBe(sensitive);
  });

  it("every key judged sensitive holds one of CREDENTIAL_WORDS (the scrubs' cheap tests skip text without one)", () => {
    const words = new RegExp(CREDENTIAL_WORDS, 'i');
    const part = fc.constantFrom('', 'bmc', 'SITE', 'ldapBind', 'ssh', 'client', 'tls', 'x', 'Admin', 'db.', 'root', 'api', 'aws_');
    const core = fc.constantFrom(
      'password',
      'Pass',
      'PW',
      'pw',
      'Pwd',
      'passwd',
      'secret',
      'Token',
      'key',
      'Key',
      '-key',
      '.key',
      'KeyData',
      'auth',
      'credentials',
      'user_name',
      'Username',
      'phrase',
      'Pin',
      'Salt',
      'community',
      'Psk',
      '_PAT',
      'Pat',
      'path',
    );
    fc.assert(
      fc.property(part, core, fc.constantFrom('', 's', '_FILE', 'Ref', '-data', 'TTL'), (a, b, c) => {
        const k = a + b + c;
        if (isSensitiveKey(k) || isCredentialKey(k)) expect(k).toMatch(words);
      }),
      { numRuns: 2000 },
    );
  });

  it('a path is sensitive under Secret data, a sensitive key, or an env-style item with a sensitive name', () => {
    const secret = { kind: 'Secret', metadata: { name: 'db-secret', namespace: 'x' }, stringData: { note: 'x' } };
    expect(isSensitivePath(secret, ['stringData', 'note'])).toBe(true);
    expect(isSensitivePath(secret, ['metadata', 'namespace'])).toBe(false);
    const pod = { spec: { containers: [{ env: [{ name: 'MYSQL_PWD', value: 'x' }], args: ['a'] }] } };
    expect(isSensitivePath(pod, ['spec', 'containers', 0, 'env', 0, 'value'])).toBe(true);
    expect(isSensitivePath(pod, ['spec', 'containers', '0', 'env', '0', 'name'])).toBe(false);
    expect(isSensitivePath(pod, ['spec', 'containers', 0, 'args', 0])).toBe(false);
    expect(isSensitivePath({ users: [{ user: { token: 't' } }] }, ['users', 0, 'user', 'token'])).toBe(true);
  });
});

describe('describing a value without quoting it', () => {
  it('gives type and length, never the value', () => {
    expect(describeValue(98765432101)).toBe('a number of 11 character(s)');
    expect(describeValue('0777')).toBe('a string of 4 character(s)');
    expect(describeValue(['a', 'b'])).toBe('a list of 2 item(s)');
    expect(describeValue({ a: 1 })).toBe('a mapping');
    expect(describeValue(true)).toBe('a boolean');
  });

  it('quotes what is harmless', () => {
    const d = {
      kind: 'Deployment',
      spec: { replicas: '3', template: { spec: { containers: [{ env: [{ name: 'API_TOKEN', value: 'abc' }] }] } } },
    };
    expect(quoteValue(d, ['spec', 'replicas'], '3')).toBe('"3"');
    expect(quoteValue(d, ['spec', 'template', 'spec', 'containers', 0, 'env', 0, 'value'], 'abc')).toBe('a string of 3 character(s)');
  });
});

describe('credentials written inline', () => {
  it.each([
    ['envVars: BMC_PASSWORD=s3cr3t-1', 'envVars: BMC_PASSWORD=***'],
    ['mysql --password s3cr3t-1 -u root', 'mysql --password *** -u root'],
    ['run --token=s3cr3t-1 --port 80', 'run --token=*** --port 80'],
    ['Authorization: Basic YWRtaW46cGFzc3dvcmQ=', 'Authorization: Basic ***'],
    ['Bearer eyJhbGciOiJIUzI1NiJ9.e30.x', 'Bearer ***'],
    ['Bearer PWBEARERA', 'Bearer ***'], // a whole value: a token, whatever it looks like
    ['curl -H "x: 1"\nAuthorization: Token abcdefgh', 'curl -H "x: 1"\nAuthorization: Token ***'],
    ['https://admin:pw@10.0.0.1/redfish', 'https://***@10.0.0.1/redfish'],
    ['https://git:p@ssW0rd9@github.com/x/y', 'https://***@github.com/x/y'], // the authority's last @ ends it
    ['url: https://u:a@b@c@host:8443/x?q=a@b', 'url: https://***@host:8443/x?q=a@b'],
    ['dsn: app:s3cr3t-1@tcp(db:3306)/site', 'dsn: ***@tcp(db:3306)/site'], // a Go database DSN
    ['https://ghp_Zq9xTOKEN@github.com/o/r', 'https://***@github.com/o/r'], // a token as the user name over https
    ['ssh://git@github.com/o/r', 'ssh://git@github.com/o/r'], // a user name: its key is elsewhere
    ['ipmitool -H 10.0.0.1 -U root -P s3cr3t-1 power status', 'ipmitool -H 10.0.0.1 -U root -P *** power status'],
    ['racadm -r h -u root -p s3cr3t-1 getsysinfo', 'racadm -r h -u root -p *** getsysinfo'],
    ['mysql -uroot -ps3cr3t-1 db', 'mysql -uroot -p*** db'],
    ['mysql -p db', 'mysql -p db'], // -p alone asks for the password; db is the database
    ['redis-cli -h x -a s3cr3t-1 ping', 'redis-cli -h x -a *** ping'],
    ['ldapsearch -x -D cn=a -w s3cr3t-1 -b dc=x', 'ldapsearch -x -D cn=a -w *** -b dc=x'],
    ['curl -u bob:s3cr3t-1 https://x', 'curl -u bob:*** https://x'],
    ['ssh -p 2222 host', 'ssh -p 2222 host'], // a letter flag counts only after its tool
    ['machine git.example.com login bob password s3cr3t-1', 'machine git.example.com login bob password ***'], // .netrc
    ['{"password": "s3cr3t-1", "user": "x"}', '{"password": "***", "user": "x"}'],
    ['data: ENC[AES256_GCM,data:abc=,iv:x,tag:y,type:str]', 'data: (encrypted)'],
    ['-----BEGIN EC PRIVATE KEY-----\nMHc\n-----END EC PRIVATE KEY-----', '(private key)'],
    // an assignment inside an option's value
    ['kubectl create secret generic x --from-literal=password=s3cr3t-1', 'kubectl create secret generic x --from-literal=password=***'],
    ['helm install x --set=adminPassword=s3cr3t-1', 'helm install x --set=adminPassword=***'],
    // names and values the shell, Dockerfiles and registries write
    ['ENV AWS_SECRET_ACCESS_KEY s3cr3t-1', 'ENV AWS_SECRET_ACCESS_KEY ***'],
    ['setenv DB_PASSWORD s3cr3t-1', 'setenv DB_PASSWORD ***'],
    ['docker login -u ci -p s3cr3t-1 r.example.com', 'docker login -u ci -p *** r.example.com'],
    ['echo s3cr3t-1 | docker login --password-stdin -u ci r', 'echo *** | docker login --password-stdin -u ci r'],
    ['htpasswd -b users bob s3cr3t-1', 'htpasswd -b users bob ***'],
    ['smbclient -U bob%s3cr3t-1 //h/s', 'smbclient -U bob%*** //h/s'],
    ['vault login s3cr3t-1', 'vault login ***'],
    ['openssl genrsa -aes256 -passout pass:s3cr3t-1 -out ca.key', 'openssl genrsa -aes256 -passout pass:*** -out ca.key'],
    ['ipmitool -H h -U u -P s3cr3t-1 -y s3cr3t-2 power on', 'ipmitool -H h -U u -P *** -y *** power on'],
    ['curl --header "Authorization: token s3cr3t-1" x', 'curl --header "Authorization: token ***" x'],
    // tokens by their shape, signed URLs
    ['notes: ghp_Zq9xTOKENaaaaaaaaaaaaaaaaaaaa', 'notes: ***'],
    ['glpat-abcdefghij0123456789 and xoxb-1234-5678-abcdefgh', '*** and ***'],
    ['eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl', '***'],
    ['aws s3 cp --profile x # id AKIAIOSFODNN7EXAMPLE', 'aws s3 cp --profile x # id ***'],
    ['id=ASIAY34FZKBOKMUTVV7A; region eu', 'id=***; region eu'],
    ['maps AIzaSyA1234567890abcdefghijklmnopqrstuv', 'maps ***'],
    ['//registry.npmjs.org/:_x=npm_abcdefghijklmnopqrstuvwxyz0123456789', '//registry.npmjs.org/:_x=***'],
    ['stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc', 'stripe ***'],
    // not tokens: an ordinary capitalised word, a short AKIA
    ['AKIAB is a name; AKIA12', 'AKIAB is a name; AKIA12'],
    ['https://hooks.slack.com/services/T0/B0/s3cr3t-1', 'https://hooks.slack.com/services/***'],
    [
      'https://b.s3.amazonaws.com/x.qcow2?X-Amz-Date=1&X-Amz-Signature=s3cr3t-1',
      'https://b.s3.amazonaws.com/x.qcow2?X-Amz-Date=1&X-Amz-Signature=***',
    ],
    ['https://a.blob.core.windows.net/i.img?sv=2022&sig=s3cr3t-1', 'https://a.blob.core.windows.net/i.img?sv=2022&sig=***'],
    ['redfish://10.0.0.1/redfish/v1/Systems/1?password=s3cr3t-1', 'redfish://10.0.0.1/redfish/v1/Systems/1?password=***'],
  ])('%j -> %j', (text, shown) => {
    expect(redactText(text)).toBe(shown);
  });

  it.each([
    ['curl -H "X-Vault-Token: s3cr3t-1" https://vault', 'curl -H "X-Vault-Token: ***" https://vault'],
    ["curl -H 'PRIVATE-TOKEN: s3cr3t-1' https://gitlab", "curl -H 'PRIVATE-TOKEN: ***' https://gitlab"],
    ['primary: {host: db1, password: s3cr3t-1}', 'primary: {host: db1, password: ***}'],
    ['lang en_US\nrootpw --plaintext s3cr3t-1\n', 'lang en_US\nrootpw --plaintext ***\n'],
    ['d-i passwd/root-password password s3cr3t-1\n', 'd-i passwd/root-password password ***\n'],
    ['#cloud-config\nchpasswd:\n  list: |\n    root:s3cr3t-1\n', '#cloud-config\nchpasswd:\n  list: |\n    root:***\n'],
    ['uri ldap://x\nbindpw s3cr3t-1\n', 'uri ldap://x\nbindpw ***\n'],
    // names with values, not credentials: shown
    ['hostname node01\nport 22\n', 'hostname node01\nport 22\n'],
    ['image: registry/app:1.2', 'image: registry/app:1.2'],
  ])('a value %j -> %j', (text, shown) => {
    expect(redactValueText(text)).toBe(shown);
  });

  it.each(['PuTTY-User-Key-File-2: ssh-rsa\nPrivate-Lines: 1\nAAAA\n', '$ANSIBLE_VAULT;1.1;AES256\n6638\n'])(
    'key material %j is (set)',
    (text) => {
      expect(redactString(text)).toEqual({ redacted: true, text: '(set)' });
    },
  );

  it.each([
    'error: Secret/x stringData.password: must be string [schema]',
    "encrypt it with sops (e.g. sops --encrypt --encrypted-regex '^(data|stringData)$')",
    'set spec.credentials.mode=emit to write them',
    'Basic authentication is required',
    'ssh://git@github.com/org/repo',
    'kubectl --request-timeout 10s wait --for=condition=Ready nodes',
  ])('leaves %j as it is', (text) => {
    expect(redactText(text)).toBe(text);
  });

  it('masks key lines of an embedded file, and collects what it masked', () => {
    const found: string[] = [];
    expect(redactValueText('db.url=jdbc:pg://db/app\ndb.password=s3cr3t-1\n[auth]\npassword: s3cr3t-2\nuser: bob\n', found)).toBe(
      'db.url=jdbc:pg://db/app\ndb.password=***\n[auth]\npassword: ***\nuser: bob\n',
    );
    expect(found).toEqual(['s3cr3t-1', 's3cr3t-2']);
  });

  it('masks the item after a sensitive flag in a command line', () => {
    expect(redactArgs(['--token', 's3cr3t-1', '--port', '8080', '--password=x'])).toEqual([
      '--token',
      '***',
      '--port',
      '8080',
      '--password=***',
    ]);
  });
});

describe('which environment variables hold credentials', () => {
  /** Well-known variables that hold places or programs, though their names look like credentials. */
  const PLACES = ['PWD', 'OLDPWD', 'GIT_ASKPASS', 'SSH_ASKPASS', 'SUDO_ASKPASS', 'PASSWORD_STORE_DIR', 'CREDENTIALS_DIRECTORY'];
  const OTHERS = ['SSH_AUTH_SOCK', 'XDG_RUNTIME_DIR', 'XKB_DEFAULT_KEYBOARD', 'GNOME_KEYRING_CONTROL', 'SOPS_AGE_KEY_FILE', 'HOME'];
  const CREDENTIALS = ['BMC_PASSWORD', 'MYSQL_PWD', 'PGPASSWORD', 'GITHUB_TOKEN', 'AWS_SECRET_ACCESS_KEY', 'SOPS_AGE_KEY', 'VAULT_TOKEN'];

  it.each([...PLACES, ...OTHERS])('%s holds no credential', (name) => expect(isCredentialEnvName(name)).toBe(false));
  it.each(CREDENTIALS)('%s holds a credential', (name) => expect(isCredentialEnvName(name)).toBe(true));

  it('leaves the working directory and other places in text: env names of places never mask their values', () => {
    const env = Object.fromEntries([...PLACES, ...OTHERS].map((n, i) => [n, `/work/place-${i}/dir`]));
    const r = new Redactor().addEnv({ ...env, BMC_PASSWORD: 'pa55-w0rd-x' });
    const text = `${Object.values(env).join(' ')} pa55-w0rd-x`;
    expect(r.scrubKnown(text)).toBe(`${Object.values(env).join(' ')} ***`);
  });

  it('a pwd key in a file is still a password: only the env names are places', () => {
    expect(isCredentialKey('pwd')).toBe(true);
    expect(isCredentialKey('PWD')).toBe(true);
  });
});

describe('Redactor: the credentials of one run', () => {
  const b64 = (s: string): string => Buffer.from(s).toString('base64');

  it('removes credentials from the environment in every encoding, user:password as Basic auth encodes it', () => {
    const r = new Redactor().addEnv({ BMC_USERNAME: 'admin', BMC_PASSWORD: 'pa55/w+rd!', HOME: '/home/x', PATH: '/usr/bin' });
    const text = `a pa55/w+rd! b ${b64('pa55/w+rd!')} c ${encodeURIComponent('pa55/w+rd!')} d ${Buffer.from('pa55/w+rd!').toString('hex')} e Basic ${b64('admin:pa55/w+rd!')} /home/x`;
    expect(r.scrubKnown(text)).toBe('a *** b *** c *** d *** e Basic *** /home/x');
  });

  it('takes the credentials of items, not what only names something', () => {
    const r = new Redactor()
      .addData({ kind: 'Secret', metadata: { name: 'node01-bmc-secret', namespace: 'site-a' }, data: { password: b64('not-a-real-pw') } })
      .addData({ kind: 'HardwareInventory', spec: { bmc: { credentialsSecret: 'r740-01-idrac', address: 'https://10.0.0.1' } } })
      .addData({ spec: { containers: [{ args: ['--token', 'tok-12345678'], env: [{ name: 'MYSQL_PWD', value: 'my-pwd-123' }] }] } });
    expect(r.scrub('site-a/node01-bmc-secret r740-01-idrac not-a-real-pw tok-12345678 my-pwd-123')).toBe(
      'site-a/node01-bmc-secret r740-01-idrac *** *** ***',
    );
  });

  it('ignores values too short or common to scrub without mangling text', () => {
    const r = new Redactor().add('password').add('root').add('8080').add(true);
    expect(r.scrub('password root 8080 true')).toBe('password root 8080 true');
  });

  it('scrubs results: message, field values, tags', () => {
    const r = new Redactor().add('s3cr3t-value');
    const [res] = r.scrubResults([
      { message: 'x s3cr3t-value', field: { path: 'a', currentValue: 's3cr3t-value' }, tags: { hint: 's3cr3t-value' } },
    ]);
    expect(res).toEqual({ message: 'x ***', field: { path: 'a', currentValue: '***' }, tags: { hint: '***' } });
  });

  it('a known credential never survives scrubbing, whatever the text around it (property)', () => {
    const secret = fc
      .string({ minLength: 8, maxLength: 24 })
      .filter((s) => /[0-9]/.test(s) && /[a-z]/i.test(s) && s.trim() === s && !s.includes('***'));
    const encode = fc.constantFrom<(s: string) => string>(
      (s) => s,
      (s) => Buffer.from(s).toString('base64'),
      (s) => Buffer.from(s).toString('base64url'),
      (s) => encodeURIComponent(s),
      (s) => Buffer.from(s).toString('hex'),
      (s) => JSON.stringify(s).slice(1, -1),
    );
    fc.assert(
      fc.property(secret, encode, fc.string(), fc.string(), (s, enc, before, after) => {
        const out = new Redactor().add(s).scrubKnown(`${before}${enc(s)}${after}`);
        expect(out).not.toContain(enc(s));
      }),
    );
  });

  it('a credential with a lone UTF-16 surrogate is scrubbed, never a crash (it has no UTF-8 or URL form)', () => {
    const lone = '\ud83dabcdef123';
    const r = new Redactor().add(lone);
    expect(r.scrub(`token ${lone} and ${JSON.stringify(lone).slice(1, -1)}`)).toBe('token *** and ***');
  });

  it("a Secret's data written as one scalar is a credential and is never quoted", () => {
    const secret = { kind: 'Secret', metadata: { name: 's' }, stringData: 'CANARYs3cr3tValue' };
    expect(isSensitivePath(secret, ['stringData'])).toBe(true);
    expect(new Redactor().addData(secret).scrub('found string "CANARYs3cr3tValue"')).toBe('found string "***"');
  });

  it('credentials that share a prefix by the thousand cost a few lookups per position, not one per credential', () => {
    const r = new Redactor();
    const passwords = Array.from({ length: 3000 }, (_, i) => `BmcPass-node${String(i).padStart(5, '0')}`);
    for (const p of passwords) r.add(p).add(Buffer.from(p).toString('base64'));
    const text = passwords.map((p, i) => `${i}: ${p} ${Buffer.from(p).toString('base64')}\n`).join('');
    scrubWork.lookups = 0;
    const out = r.scrubKnown(text);
    expect(out).not.toMatch(/BmcPass|QmNjUGFzcy1ub2Rl/);
    // every position with a known prefix tries each distinct length of that prefix's forms once at most
    expect(scrubWork.lookups).toBeLessThan(text.length);
  });

  it('forEachCredential names the fields that hold a credential', () => {
    const paths: string[] = [];
    forEachCredential({ spec: { envVars: ['IMAGE_TYPE=iso', 'BMC_PASSWORD=x1'], image: 'x' } }, (_v, p) => paths.push(p.join('.')));
    expect(paths).toEqual(['spec.envVars.1']);
  });
});

describe('URL user information, generated', () => {
  it('user:password@ is masked whole, whatever the password holds but white space and /', () => {
    const part = (chars: string) => fc.string({ unit: fc.constantFrom(...chars.split('')), minLength: 1, maxLength: 12 });
    fc.assert(
      fc.property(
        part('abcXYZ019._-'),
        part('abcXYZ019@:%!#?&=+$._-'),
        fc.constantFrom('https', 'redfish+http', 'git'),
        (user, pw, scheme) => {
          expect(redactText(`see ${scheme}://${user}:${pw}@host.example:8443/x?y=1 now`)).toBe(
            `see ${scheme}://***@host.example:8443/x?y=1 now`,
          );
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('values a message may quote', () => {
  it('infinity and NaN as YAML writes them (JSON has none: JSON.stringify says null)', () => {
    expect([Infinity, -Infinity, Number.NaN].map((v) => quoteValue({}, ['data', 'w'], v))).toEqual(['.inf', '-.inf', '.nan']);
  });

  it('a value holding a credential written inline is described, not quoted, wherever it stands', () => {
    const root = { spec: { args: 'curl -u bob:Zq9xCURL https://x', image: 'x:1' } };
    expect(quoteValue(root, ['spec', 'args'], root.spec.args)).toBe('a string of 30 character(s)');
    expect(quoteValue(root, ['spec', 'image'], root.spec.image)).toBe('"x:1"');
    expect(quoteValue(undefined, undefined, { url: 'https://u:Zq9x@h' })).toBe('a mapping');
  });

  it("kubectl's last-applied annotation is never shown, and its Secret data is scrubbed", () => {
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 'pull',
        annotations: {
          'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify({
            kind: 'Secret',
            data: { config: Buffer.from('Zq9xV4CFG1').toString('base64') },
          }),
        },
      },
    };
    expect(isSensitivePath(secret, ['metadata', 'annotations', 'kubectl.kubernetes.io/last-applied-configuration'])).toBe(true);
    const r = new Redactor().addData(secret);
    expect(r.scrubKnown('value Zq9xV4CFG1 and WnE5eFY0Q0ZHMQ==')).toBe('value *** and ***');
  });
});
