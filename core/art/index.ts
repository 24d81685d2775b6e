// Public API of the `.art` language: parse, check, and an incremental document that re-parses only the
// programs an edit touched.
export * from './ast';
export { parseArt } from './parse';
export { nextSeparator } from './lines';
export { ART_DIAGNOSTIC_CODES, checkArt, type CheckOptions } from './check';
export { ArtIncremental } from './incremental';
export { BUILTIN_TOOLS, ToolCatalog, type ToolInfo } from './knownTools';
export { formatArt, formatArtText } from './format';
export { applyEdits } from '../common/diagnostics';
