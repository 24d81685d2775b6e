// Writes examples/data/hard-word-problems.jsonl: 48 word problems whose arithmetic is hard for a small model (numbers
// of four to six digits, three to five operations), in the spirit of PAL's GSM-Hard (GSM8K with its numbers replaced
// by large ones). Twelve templates, four problems each, their numbers drawn from a fixed seed; every target is computed
// here, in integer arithmetic, never written by hand. Re-runnable: the same seed writes the same file, byte for byte
// (test/core/evaluation/hardProblems.test.ts checks it, and that no library in examples/ contains one of its inputs:
// the set is for measuring, never for demonstrations).
//
//   node --import tsx scripts/hard-word-problems.mjs          (writes the file)
//   node --import tsx scripts/hard-word-problems.mjs --check [--file=PATH]
//                                                           (exits 1 when the file differs from what it would write)
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { prng } from '../core/common/random.ts';

export const HARD_PROBLEMS_FILE = new URL('../examples/data/hard-word-problems.jsonl', import.meta.url).pathname;
const SEED = 38;
const PER_TEMPLATE = 4;

/** Each template draws its numbers from `n(lo, hi)` (an integer in [lo, hi]) and returns the input and the target. */
const TEMPLATES = {
  warehouse: n => {
    const [crates, per] = [n(300, 950), n(24, 72)];
    const [mon, tue] = [n(1500, 6000), n(1500, 6000)];
    return {
      input: `A warehouse has ${crates} crates of ${per} bottles each. It ships ${mon} bottles on Monday and ${tue} bottles on Tuesday. How many bottles are left in the warehouse?`,
      target: crates * per - mon - tue,
    };
  },
  factory: n => {
    const [perHour, hours, days, faulty] = [n(1200, 4800), n(16, 22), n(23, 31), n(1000, 9999)];
    return {
      input: `A factory makes ${perHour} bolts an hour and runs ${hours} hours a day. ${faulty} of the bolts it makes in ${days} days are faulty. How many good bolts does it make in those ${days} days?`,
      target: perHour * hours * days - faulty,
    };
  },
  savings: n => {
    const earns = n(4000, 9000);
    const spends = earns - n(300, 2500);
    const years = n(3, 9);
    return {
      input: `Priya earns ${earns} dollars a month and spends ${spends} dollars a month. How many dollars has she saved after ${years} years?`,
      target: (earns - spends) * 12 * years,
    };
  },
  stadium: n => {
    const [cheap, cheapPrice, dear, dearPrice] = [n(20000, 60000), n(35, 95), n(5000, 15000), n(120, 300)];
    const costs = n(400000, 1500000);
    return {
      input: `A stadium sells ${cheap} tickets at ${cheapPrice} dollars and ${dear} tickets at ${dearPrice} dollars. The game costs ${costs} dollars to put on. What is the stadium's profit in dollars?`,
      target: cheap * cheapPrice + dear * dearPrice - costs,
    };
  },
  bonus: n => {
    const [staff, share] = [n(40, 400), n(1500, 9000)];
    const [tax, charity] = [n(200, Math.floor(share / 3)), n(50, 400)];
    return {
      input: `A company shares a bonus of ${staff * share} dollars equally among its ${staff} employees. Each employee then pays ${tax} dollars of tax and gives ${charity} dollars to charity. How many dollars does each employee keep?`,
      target: share - tax - charity,
    };
  },
  train: n => {
    const [s1, h1, s2, h2, trips] = [n(55, 140), n(3, 11), n(55, 140), n(3, 11), n(14, 30)];
    return {
      input: `A freight train travels at ${s1} km an hour for ${h1} hours and then at ${s2} km an hour for ${h2} hours. It makes this trip ${trips} times a month. How many km does it travel in a month?`,
      target: (s1 * h1 + s2 * h2) * trips,
    };
  },
  town: n => {
    const [people, born, died, moved, years] = [n(50000, 900000), n(1000, 9000), n(800, 7000), n(200, 3000), n(4, 12)];
    return {
      input: `A town has ${people} people. Each year ${born} babies are born, ${died} people die and ${moved} people move in. How many people live in the town after ${years} years?`,
      target: people + (born - died + moved) * years,
    };
  },
  eggs: n => {
    const [hens, eggs, weeks] = [n(1200, 9800), n(4, 7), n(5, 52)];
    const box = [6, 10, 12, 30][n(0, 3)];
    return {
      input: `A farm has ${hens} hens. Each hen lays ${eggs} eggs a week. The eggs are packed in boxes of ${box}. How many full boxes are packed in ${weeks} weeks?`,
      target: Math.floor((hens * eggs * weeks) / box),
    };
  },
  tank: n => {
    const leak = n(15, 90);
    const fill = leak + n(17, 95);
    const minutes = n(120, 900);
    return {
      input: `A tank holds ${(fill - leak) * minutes} litres. A pipe fills it at ${fill} litres a minute while a leak loses ${leak} litres a minute. How many minutes does it take to fill the empty tank?`,
      target: minutes,
    };
  },
  televisions: n => {
    const [sets, cost] = [n(120, 950), n(250, 900)];
    const price = cost + n(90, 300);
    const [shipping, rent] = [n(2000, 9999), n(3000, 12000)];
    return {
      input: `A shop buys ${sets} televisions at ${cost} dollars each and sells them all at ${price} dollars each. Shipping costs ${shipping} dollars and rent costs ${rent} dollars. What is the shop's profit in dollars?`,
      target: sets * (price - cost) - shipping - rent,
    };
  },
  branches: n => {
    const [a, b, c] = [n(10000, 99999), n(10000, 99999), n(10000, 99999)];
    const d = n(10000, 99999);
    const dd = d - ((a + b + c + d) % 4); // the sum divisible by four: the average is a whole number
    return {
      input: `Four branches of a bank serve ${a}, ${b}, ${c} and ${dd} customers in a year. How many customers does a branch serve on average?`,
      target: (a + b + c + dd) / 4,
    };
  },
  diesel: n => {
    const [km, days, per100, price] = [20 * n(15, 45), n(12, 28), 5 * n(5, 9), n(2, 5)];
    return {
      input: `A truck drives ${km} km a day for ${days} days. It uses ${per100} litres of diesel for every 100 km, and diesel costs ${price} dollars a litre. How many dollars does the diesel cost?`,
      target: (km * days * per100 * price) / 100,
    };
  },
};

/** The problems, in template order, `{ id, input, target }` with the target a string of digits. */
export function hardWordProblems() {
  const random = prng(SEED);
  const n = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1));
  const rows = [];
  for (const [name, template] of Object.entries(TEMPLATES))
    for (let i = 1; i <= PER_TEMPLATE; i++) {
      const { input, target } = template(n);
      if (!Number.isSafeInteger(target) || target <= 0) throw new Error(`${name}-${i}: target ${target} is not a positive whole number`);
      rows.push({ id: `${name}-${i}`, input, target: String(target) });
    }
  return rows;
}

export const hardWordProblemsText = () =>
  hardWordProblems()
    .map(r => JSON.stringify(r) + '\n')
    .join('');

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const text = hardWordProblemsText();
  if (process.argv.includes('--check')) {
    const file = process.argv.find(a => a.startsWith('--file='))?.slice('--file='.length) ?? HARD_PROBLEMS_FILE;
    const same = readFileSync(file, 'utf8') === text;
    if (same) console.log(`${file} is what the script writes`);
    else console.error(`${file} differs from what the script writes: run node --import tsx scripts/hard-word-problems.mjs`);
    process.exit(same ? 0 : 1);
  }
  writeFileSync(HARD_PROBLEMS_FILE, text);
  console.log(`wrote ${text.split('\n').length - 1} problems to ${HARD_PROBLEMS_FILE}`);
}
