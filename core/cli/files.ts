// The CLI's one-line errors and source files, from core/common/sourceFiles.ts (where the agent tools read them too).
export { CliError, isCliError, languageOf, readSource } from '../common/sourceFiles';
