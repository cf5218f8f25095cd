/**
 * Checks every CI document the suite produces: SARIF against the published SARIF 2.1.0 schema
 * (ajv, formats checked) and JUnit with a real XML parser (and `xmllint --noout` where Debian's
 * libxml2-utils is installed).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import AjvDraft04 from 'ajv-draft-04';
import ajvFormats from 'ajv-formats';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { expect } from 'vitest';
import { repoRoot } from '../golden.js';

const SCHEMA = join(repoRoot, '../shared/fixtures/schemas/sarif/sarif-schema-2.1.0.json');
let validate: ((d: unknown) => boolean) & { errors?: unknown };

/** Parses SARIF text, asserts it is valid against the schema, returns the document. */
export function expectValidSarif(text: string): SarifLog {
  if (!validate) {
    // both are CommonJS modules whose default export sits on .default
    type Compile = { compile(s: unknown): typeof validate };
    const Ajv = (AjvDraft04 as unknown as { default: new (o: object) => Compile }).default;
    const addFormats = (ajvFormats as unknown as { default: (a: Compile) => void }).default;
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats(ajv);
    validate = ajv.compile(JSON.parse(readFileSync(SCHEMA, 'utf8')));
  }
  const doc = JSON.parse(text) as SarifLog;
  const ok = validate(doc);
  expect(ok, JSON.stringify(validate.errors, null, 2)).toBe(true);
  return doc;
}

export interface SarifLog {
  version: string;
  runs: {
    tool: {
      driver: {
        name: string;
        rules: {
          id: string;
          shortDescription: { text: string };
          fullDescription: { text: string };
          help: { text: string };
          defaultConfiguration: { level: string };
        }[];
      };
    };
    results: {
      ruleId: string;
      level: string;
      message: { text: string };
      locations?: { physicalLocation?: { artifactLocation: { uri: string }; region?: { startLine: number } } }[];
      partialFingerprints: Record<string, string>;
      suppressions?: unknown[];
    }[];
  }[];
}

const xmllint = spawnSync('sh', ['-c', 'command -v xmllint'], { encoding: 'utf8' }).stdout.trim();

export interface JUnitCase {
  classname: string;
  name: string;
  failure?: { message: string; type: string; text: string };
  out?: string;
}

/** Parses JUnit XML with a real parser (and xmllint when present), returns the test cases. */
export function parseJUnit(text: string): { cases: JUnitCase[]; tests: number; failures: number } {
  expect(XMLValidator.validate(text)).toBe(true);
  if (xmllint) {
    const r = spawnSync(xmllint, ['--noout', '-'], { input: text, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
  }
  const doc = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    textNodeName: 'text',
    isArray: (n) => n === 'testsuite' || n === 'testcase',
  }).parse(text) as {
    testsuites: { tests: string; failures: string; testsuite?: { testcase: Record<string, unknown>[] }[] };
  };
  const cases: JUnitCase[] = [];
  for (const s of doc.testsuites.testsuite ?? [])
    for (const c of s.testcase) {
      const jc: JUnitCase = { classname: String(c.classname), name: String(c.name) };
      const f = c.failure as { message: string; type: string; text?: string } | undefined;
      if (f) jc.failure = { message: f.message, type: f.type, text: f.text ?? '' };
      if (c['system-out'] !== undefined) jc.out = String(c['system-out']);
      cases.push(jc);
    }
  return { cases, tests: Number(doc.testsuites.tests), failures: Number(doc.testsuites.failures) };
}
