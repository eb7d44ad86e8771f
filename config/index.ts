/**
 * The config layer: finding the config file, checking it, and turning each server entry into a
 * {@link ServerDefinition} for the MCP pool. The accepted format is described in docs/configuration.md.
 */
export type { LoadConfigOptions, LoadedConfig } from './load.js';
export {
  CONFIG_FILE_NAMES,
  findConfigFile,
  loadConfig,
  readEarlySettings,
  readSessionPersistence,
} from './load.js';
export type { ConfigEnvironment, ConfigSafetySettings, ParsedConfig, TelemetryConfig } from './parse.js';
export { parseConfig } from './parse.js';
export type { ConfigSyntax, ParsedText } from './parse-text.js';
export { parseConfigText, syntaxOfPath } from './parse-text.js';
export type { ExpansionResult, VariableLookup, VariableReference } from './variables.js';
export { environmentLookup, expandVariables } from './variables.js';
export type { ProjectConfigCandidate } from './project.js';
export type { ConfigInput } from './vscode-form.js';
export { inputVariableName } from './vscode-form.js';
export { mergeProjectConfig, PROJECT_FORBIDDEN_SETTINGS } from './project.js';
export type { TrustStore } from './trust-store.js';
export { defaultTrustStorePath, fileTrustStore, hashConfigText } from './trust-store.js';
export { hooksFileFolder, loadHooksFiles } from './hooks-file.js';
export type { ServerDefinition } from '../src/mcp/definition.js';
