import { join } from 'node:path';
import { describeGolden } from '../../test/golden.js';
import { definition } from './function.js';

describeGolden(definition, join(import.meta.dirname, 'testdata'));
