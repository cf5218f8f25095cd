import { main } from '../../src/krm/index.js';
import { definition } from './function.js';

void main(definition);
