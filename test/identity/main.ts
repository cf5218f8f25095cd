import { main } from '../../src/krm/index.js';
import { identity } from './function.js';

void main(identity);
