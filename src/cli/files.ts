/**
 * Reading YAML files for the CLI: each document becomes a KubeObject that knows its file and
 * its first line, so results can say `file:line`.
 */
import { readFileSync } from 'node:fs';
import { KubeObject } from '../krm/index.js';

export interface FileObject {
  object: KubeObject;
  path: string;
  /** 1-based line of the document's first line */
  line: number;
  /** document index in the file */
  index: number;
}

/** Splits a YAML stream into documents with the line each starts on (comment-only documents dropped). */
export function splitWithLines(text: string): { body: string; line: number }[] {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const out: { body: string; line: number }[] = [];
  const lines = text.split('\n');
  let cur: string[] = [];
  let start = 1;
  const flush = (): void => {
    const body = cur.join('\n');
    if (body.split('\n').some((l) => l.trim() !== '' && !l.trimStart().startsWith('#'))) {
      // drop leading comment/blank lines so that line numbers count from the content
      let skip = 0;
      while (skip < cur.length && (cur[skip]!.trim() === '' || cur[skip]!.trimStart().startsWith('#'))) skip++;
      out.push({ body: cur.slice(skip).join('\n').replace(/\n*$/, '\n'), line: start + skip });
    }
  };
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (/^---(\s|$)/.test(l) || l === '...') {
      flush();
      cur = [];
      const rest = l.slice(3).trim();
      start = i + 2;
      if (rest && !rest.startsWith('#') && l !== '...') {
        cur = [rest];
        start = i + 1;
      }
      continue;
    }
    cur.push(l);
  }
  flush();
  return out;
}

export function readYamlFiles(paths: string[]): FileObject[] {
  const out: FileObject[] = [];
  for (const path of paths) {
    const text = readFileSync(path, 'utf8');
    splitWithLines(text).forEach((d, index) => {
      const object = KubeObject.fromDocument(d.body);
      object.sourceLine = d.line;
      out.push({ object, path, line: d.line, index });
    });
  }
  return out;
}
