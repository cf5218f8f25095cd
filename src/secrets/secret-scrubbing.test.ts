/** The credentials in use are scrubbed from text that came from elsewhere (a BMC's answers), in every form they may be echoed in. */
import { describe, expect, it } from 'vitest';
import { Redactor, scrubStrings } from './redact.js';

describe('scrubbing the credentials in use', () => {
  const pw = 'Zx9!pa ss/wd';
  const basic = Buffer.from(`admin:${pw}`).toString('base64');
  const r = new Redactor().addCredentials('admin', pw);
  it('plain, base64 (padded or not), base64url, URL-encoded, hex (either case), JSON- and HTML-escaped are all replaced', () => {
    const b = Buffer.from(pw);
    const forms = [
      pw,
      b.toString('base64'),
      b.toString('base64url'),
      encodeURIComponent(pw),
      b.toString('hex'),
      b.toString('hex').toUpperCase(),
    ];
    for (const f of forms) expect(r.scrubKnown(`before ${f} after`), f).toBe('before *** after');
    expect(r.scrubKnown(`Authorization: Basic ${basic}`)).toBe('Authorization: Basic ***');
  });
  it('longer values first: a token that contains the password leaves nothing of either', () => {
    const token = `tok-${pw}-1`;
    expect(new Redactor().add(pw).add(token).scrubKnown(`X-Auth-Token: ${token}`)).toBe('X-Auth-Token: ***');
  });
  it('values too short or too common to scrub without mangling text are left alone', () => {
    const short = new Redactor().add('ab').add('password').add('8080');
    expect(short.scrubKnown('the password is ab on 8080')).toBe('the password is ab on 8080');
  });
  it('every string of a JSON value, the value itself left as it was', () => {
    const value = { serial: pw, nested: [{ host: `x${basic}y` }], n: 1 };
    expect(scrubStrings(value, (t) => r.scrubKnown(t))).toEqual({ serial: '***', nested: [{ host: 'x***y' }], n: 1 });
    expect(value.serial).toBe(pw);
  });
});
