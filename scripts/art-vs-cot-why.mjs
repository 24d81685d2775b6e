export function explainFailures(resultsPath, label) {
  return `${label}: (analysis pending) ${resultsPath}`;
}
