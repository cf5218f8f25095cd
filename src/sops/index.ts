/** SOPS files (YAML/JSON documents encrypted for age recipients), as getsops/sops and Flux read them. */
export {
  type AgeKey,
  identitiesFromEnv,
  isAgeRecipient,
  newIdentity,
  parseIdentities,
  recipientOf,
  unwrapDataKey,
  wrapDataKey,
} from './age.js';
export { type CreationRule, SopsConfigError, findSopsConfig, parseSopsConfig, readSopsConfig, ruleFor } from './config.js';
export {
  type Decrypted,
  type EncryptOptions,
  SOPS_VERSION,
  type SopsMetadata,
  decryptDocument,
  encryptDocument,
  metadataOf,
  recipientsOf,
  rewrapDocument,
  rfc3339,
} from './document.js';
export {
  type CryptRules,
  DEFAULT_UNENCRYPTED_SUFFIX,
  SopsError,
  decryptValue,
  encryptValue,
  encryptTree,
  decryptTree,
  isEncryptedValue,
  shouldEncrypt,
} from './tree.js';
