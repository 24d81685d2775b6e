// The product's seeded generator (core/common/random.ts), for fuzz and property tests: a failing seed replays exactly.
export { prng } from '../../core/common/random';
