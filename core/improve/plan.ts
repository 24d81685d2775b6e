// The budget of `art improve`, in model requests, planned before anything runs: the dev and test evaluations the
// proof needs are reserved first (the original on dev; the original and the improved on test), then the bootstrap
// rounds over the training split take up to half of the rest and the candidate sets on the dev split the remainder.
// A run's requests are estimated from the library (an ART run sends one request, and one more after each tool call):
// the plan is the most the budget allows, and the budget itself is a hard cap on the requests sent.
import { parseArt } from '../art/parse';
import { isDemonstration } from '../prompt/selection';

export class PlanError extends Error {}

export interface PlanSizes {
  train: number;
  dev: number;
  test: number;
}

export interface ImprovePlan extends PlanSizes {
  /** The most requests everything may send. */
  budget: number;
  /** Requests one run is expected to send. */
  perRun: number;
  /** Bootstrap rounds over the training split, and candidate sets scored on the dev split (at most). */
  rounds: number;
  sets: number;
  /** Requests reserved for the original on dev and the two test evaluations. */
  reserved: number;
  /** The least budget that runs one round and one candidate set. */
  least: number;
}

export interface PlanLimits {
  maxRounds: number;
  maxSets: number;
}

/** Requests one run of the library is expected to send: one, and one more after each step of its longest demonstration. */
export function requestsPerRun(libraryText: string): number {
  const steps = parseArt(libraryText)
    .programs.filter(isDemonstration)
    .map(p => p.steps.filter(s => !s.isEoq).length);
  return 1 + Math.max(1, ...steps);
}

export function planBudget(budget: number, sizes: PlanSizes, perRun: number, limits: PlanLimits): ImprovePlan {
  const { train, dev, test } = sizes;
  const reserved = (dev + 2 * test) * perRun;
  const round = train * perRun;
  const set = dev * perRun;
  const least = reserved + round + set;
  if (budget < least)
    throw new PlanError(
      `--budget ${budget} is below the least this needs, ${least} requests (one bootstrap round of ${train} training example(s), the original and one candidate set on ${dev} dev example(s), the original and the improved on ${test} test example(s), about ${perRun} request(s) a run): raise --budget or use smaller splits`,
    );
  const free = budget - reserved;
  const rounds = Math.max(1, Math.min(limits.maxRounds, Math.floor(free / 2 / round)));
  const sets = Math.max(1, Math.min(limits.maxSets, Math.floor((free - rounds * round) / set)));
  return { budget, perRun, rounds, sets, reserved, least, ...sizes };
}

/** The plan as printed before anything runs. */
export function formatPlan(p: ImprovePlan): string {
  return (
    `at most ${p.budget} requests (--budget): bootstrap ${p.rounds} round(s) of ${p.train} training example(s), ` +
    `up to ${p.sets} candidate set(s) on ${p.dev} dev example(s), then the original and the improved library on ` +
    `${p.test} test example(s) (about ${p.perRun} request(s) a run)`
  );
}
