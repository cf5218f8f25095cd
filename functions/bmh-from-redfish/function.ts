/**
 * bmh-from-redfish: discover servers over Redfish into HardwareInventory snapshots (mode
 * discover, network), and generate Metal3 BareMetalHosts, HardwareData and an airshipctl host
 * catalogue from them (mode generate, pure, the default).
 */
import { type FunctionDefinition, type JsonSchema, lazy } from '../../src/krm/index.js';
import validateSpec from './generated/spec.validate.js';
import { runGenerate } from './generate.js';
import type { Spec } from './types.js';

export type { Spec } from './types.js';

/** The spec's JSON schema, for --help and the docs only: not built at every start. */
const specSchema = lazy(() => require('./spec.schema.json') as JsonSchema, './spec.schema.json', import.meta.url);

export const definition: FunctionDefinition<Spec> = {
  name: 'bmh-from-redfish',
  configKind: 'BMHFromRedfish',
  summary:
    'discovers servers over Redfish into HardwareInventory snapshots (mode: discover) and generates Metal3 BareMetalHosts, optional HardwareData and an airshipctl host catalogue from them (mode: generate, the default, pure).',
  get specSchema() {
    return specSchema();
  },
  validateSpec,
  moreHelp: [
    'Discovery credentials: env BMC_USERNAME / BMC_PASSWORD, per host BMC_<NAME>_USERNAME / BMC_<NAME>_PASSWORD,',
    'or a mounted credentialsFile (env BMC_CREDENTIALS_FILE). They never appear in output, results or logs.',
    'Outputs: inventory/<name>.yaml (HardwareInventory, local-config), hosts/<name>.yaml (BareMetalHost',
    '[+ HardwareData]), catalogue/<hostCatalogueName>.yaml (VariableCatalogue, local-config).',
  ].join('\n'),
  async run(ctx) {
    if ((ctx.spec.mode ?? 'generate') === 'discover') await (await import('./discover.js')).runDiscover(ctx);
    else runGenerate(ctx);
  },
};
