/** The baremetal-krm KRM runtime: what every function imports. */
export { KubeObject, KrmError, ANN, EMIT_OPTIONS, type Path, type ResourceRef, type Json } from './kube-object.js';
export { headerProblems, type HeaderProblem } from './header.js';
export { Context, GENERATED_BY, LOCATION_ANNOTATION, type Desired, type ReconcileOptions } from './context.js';
export { Results, formatLine, formatResult, type FindingLine, type Result, type Severity, type ResultOptions } from './results.js';
export {
  main,
  runFunction,
  readSpec,
  type ConfigDefinition,
  API_VERSION,
  REPORT_ONLY,
  type FunctionDefinition,
  type CompiledValidator,
  type RunOutput,
  writeNow,
  OutputClosed,
  OutputFailed,
} from './main.js';
export { readInput, type ParsedInput } from './resource-list.js';
export { InstallError, loadInstalled, missingInstallFile } from './install.js';
export { loadYaml } from './fast-yaml.js';
export { addCredentialsOf } from './credentials.js';
export { parsedFieldLines } from './field-lines.js';
export { schemaMarkdown, schemaReference, type JsonSchema } from './schema-doc.js';
export { lazy, yamlLib, PARSE_OPTIONS } from './lazy.js';
export { compareStrings } from './compare.js';
export { dig, dotted, intern, isRecord, nonEmptyText, pushAll, sameData, scalarText } from './data.js';
export { countLines, splitStream, splitDocuments, indentItem } from './scan.js';
export { YAML11_TRUE, YAML11_FALSE, YAML11_NULL, YAML11_SPECIAL_FLOAT, YAML11_ONLY_BOOL, wordsPattern } from './yaml11.js';
export { collectBeforeResults, collectGarbage, decodeUtf8, decodeYamlText, readAllBytes, MAX_INPUT_BYTES } from './input-bytes.js';
export { blockedParent, isInside, isPresent, lstatIfPresent, targetInside } from './file-target.js';
export {
  packageFiles as readPackageFiles,
  sourceResourceList,
  sinkResourceList,
  type PackageFile,
  type SinkSummary,
} from './local-package.js';
