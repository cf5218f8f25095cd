/**
 * The validation library: every rule of intent-validate, used by the KRM function, by
 * `baremetal-krm validate` and by the cross-site report.
 */
export {
  analyse,
  objectMatcher,
  type Analysis,
  type AnalyseOptions,
  type Finding,
  type HostFact,
  type IntentValidateSpec,
} from './analyse.js';
export { CONFIG, rulesHelp } from './config.js';
export { HARDWARE_ANNOTATION, hardwareDetails, hostHardware, type HostHardware } from './hardware.js';
export { readExtraCrds } from './extra.js';
export { fileLine, toResults } from './results.js';
export { RULES, type RuleInfo, type RuleSeverity } from './rules.js';
export { lineOfPath } from './schema.js';
