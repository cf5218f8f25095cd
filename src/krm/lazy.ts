/**
 * Loading heavy modules on first use. Cold start matters (kustomize starts every function on
 * every build), and a bundle's top level should do next to nothing: the `yaml` package alone
 * costs ~5 ms to initialise, undici far more. Write the `require('pkg')` literally in the thunk
 * so that esbuild bundles the package and initialises it only when the thunk runs; outside the
 * bundle (ESM under vitest/tsx, where `require` does not exist) it falls back to createRequire.
 *
 *   const undici = lazy(() => require('undici') as typeof import('undici'), 'undici', import.meta.url);
 *   undici().request(...)
 */
import { loadInstalled } from './install.js';
import { needsEscapes, printableQuoted } from './printable.js';
import { YAML11_FLOAT, YAML11_FLOAT_EXP } from './yaml11.js';

export function lazy<T>(thunk: () => T, specifier: string, importMetaUrl: string | undefined): () => T {
  let value: T | undefined;
  let loaded = false;
  return () => {
    if (!loaded) {
      // in a bundle, the package is a file of dist/lazy/: missing, it is a broken install
      if (typeof require === 'function') value = loadInstalled(thunk);
      // (node:module from the built-in registry, here only: a public built-in's first require costs ~0.3 ms of a start)
      else value = process.getBuiltinModule('node:module').createRequire(importMetaUrl ?? import.meta.url)(specifier) as T;
      loaded = true;
    }
    return value as T;
  };
}

/** The `yaml` package, loaded on first use. */
export const yamlLib = lazy(() => require('yaml') as typeof import('yaml'), 'yaml', import.meta.url);

type YamlTags = import('yaml').Tags;
type ScalarTag = import('yaml').ScalarTag;

/**
 * `yaml`'s string tag, writing a string that holds a character a writer escapes (printable.ts)
 * as an escaped double-quoted scalar: `yaml` writes DEL, C1 controls and U+FFFE/U+FFFF as they
 * are, which go-yaml (and this runtime's readers) refuse, and NEL, U+2028 and U+2029, which
 * go-yaml reads as line breaks. Other strings are written as `yaml` writes them.
 */
function printableStrings(tag: ScalarTag): ScalarTag {
  const write = tag.stringify!;
  return {
    ...tag,
    stringify: (item, ctx, onComment, onChompKeep) =>
      typeof item.value === 'string' && needsEscapes(item.value) ? printableQuoted(item.value) : write(item, ctx, onComment, onChompKeep),
  };
}

/** The tags of a schema, its string tag writing strings YAML cannot hold as they are escaped. */
export function writeTags(tags: YamlTags): YamlTags {
  return tags.map((t) =>
    typeof t === 'object' && t.tag === 'tag:yaml.org,2002:str' && 'stringify' in t ? printableStrings(t as ScalarTag) : t,
  );
}

/** A float tag of the `yaml` package's 1.1 schema, matching what Go reads as a float (yaml11.ts): `e0` and `.` stay strings. */
function goFloat<T extends { format?: string; test?: RegExp }>(t: T): T {
  if (t.format === 'EXP') return { ...t, test: YAML11_FLOAT_EXP };
  if (!t.test || t.test.test('.nan')) return t; // .inf and .nan, as they are
  return { ...t, test: YAML11_FLOAT };
}

/** The tags of the yaml-1.1 schema as we read it (see PARSE_OPTIONS), and write a parsed Document with. */
function readTags(tags: YamlTags): YamlTags {
  return writeTags(
    tags
      .filter((t) => typeof t !== 'object' || ((t as { format?: string }).format !== 'TIME' && t.tag !== 'tag:yaml.org,2002:timestamp'))
      .map((t) => (typeof t === 'object' && t.tag === 'tag:yaml.org,2002:float' ? goFloat(t) : t)),
  );
}

/**
 * How items are parsed: YAML 1.1 scalars (`yes`, `on`, `0644`) as the Go YAML libraries that
 * kubectl, kustomize and kpt use read them, but without the two 1.1 types those libraries never
 * implemented: base-60 numbers (so `52:54:00:00:01:00` stays a MAC address, not an integer)
 * and timestamps (dates stay strings, as Go decodes them into interface{}). The schema is the
 * one a parsed Document is written with too: strings with characters YAML does not allow are
 * written escaped.
 */
export const PARSE_OPTIONS = {
  version: '1.1' as const,
  customTags: readTags,
  maxAliasCount: 10_000,
};
