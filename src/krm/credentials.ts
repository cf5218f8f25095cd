/**
 * The credentials an item holds, added to a run's Redactor so that no message quotes them: the
 * one place the function runtime's scrub (main.ts) and the CLI's read them.
 */
import type { KubeObject } from './kube-object.js';
import type { Redactor } from '../secrets/redact.js';
import { CREDENTIAL_WORDS } from '../secrets/credential-words.js';

/**
 * Text that may hold a credential: a word credentials are named or marked by, a URL's `user@`, a
 * SOPS value, a PEM key, a Secret; or a backslash, since an escape (`"\x70assword"`, JSON's
 * `"\u0070assword"`) can spell any of those words in the data but not in the text. An item
 * without any is not read again (the scrub of a large run names few items, each read once).
 */
const MAY_HOLD_CREDENTIALS = new RegExp(`${CREDENTIAL_WORDS}|@|ENC\\[|PRIVATE|Basic|Bearer|kind: *Secret|\\\\`, 'i');

/**
 * Adds the credentials in `o`'s data. The item is read as the function reads it
 * (`KubeObject.readData`: in place, no copy of its text; the kept data when it was changed); one
 * that does not read holds nothing a function could have quoted from its data.
 */
export function addCredentialsOf(secrets: Redactor, o: KubeObject): void {
  const text = o.original ?? o.body;
  if (!MAY_HOLD_CREDENTIALS.test(text)) return;
  try {
    secrets.addData(o.readData());
  } catch {
    // not readable: reported by its position, never by its text
  }
}
