/**
 * The validation library: every rule of intent-validate, used by the KRM function, by
 * `baremetal-krm validate` and by the cross-site report.
 */
export {
  analyse,
  type Analysis,
  type AnalyseOptions,
  type AnalyseRunOptions,
  type Finding,
  type HostFact,
  type IntentValidateSpec,
} from './analyse.js';
export { CONFIG, rulesHelp } from './config.js';
export { HARDWARE_ANNOTATION, hardwareDetails, hostHardware, type HostHardware } from './hardware.js';
export { ANNOTATED_SOURCE } from './rules/hardware-profiles.js';
export { sensitiveValues } from './rules/secret-values.js';
export { readExtraCrds } from './extra.js';
export { toResults } from './results.js';
export { RULES, type RuleInfo, type RuleSeverity } from './rules.js';
export { FieldLines, lineOfPath } from './schema.js';
