import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import { parse, parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { runFunction } from '../../src/krm/index.js';
import { describeGolden, itemsStream, repoRoot, resourceList } from '../../test/golden.js';
import { splitStream } from '../../src/krm/scan.js';
import { definition } from './function.js';

const testdata = join(import.meta.dirname, 'testdata');
describeGolden(definition, testdata);
