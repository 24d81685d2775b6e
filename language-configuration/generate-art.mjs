// Writes art.language-configuration.json: edit this file, not the JSON, then run it.
//   node language-configuration/generate-art.mjs           write the file
//   node language-configuration/generate-art.mjs --check   exit 1 if the file is out of date (a unit test runs this)
//
// .art has no comment syntax, so there is no `comments` entry: Toggle Line Comment does nothing.
// onEnterRules cannot copy a number from the line into the text they append (appendText is a fixed string), so there
// is one rule per step number, k = 1..MAX_STEP: Enter at the end of `Qk: [name] ...` appends `#k: `, and at the end of
// a one-line answer `#k: text` appends `Q{k+1}: `. Enter after `Qk: [EOQ]` appends `Ans: `, after `Description: ...`
// appends `Input: `. Rules fire only with the cursor at the end of a line whose marker starts at column 0 (where the
// core reads markers), so Enter inside a line just splits it. Past MAX_STEP, and after a bare `#k:` (which starts a
// multi-line answer such as code), Enter inserts a plain new line; completion offers the next line there.
import { readFileSync, writeFileSync } from 'node:fs';

export const MAX_STEP = 30;

const colon = '\\s*[:：]';
const atLineEnd = '^\\s*$';
const append = (appendText) => ({ indent: 'none', appendText });

function onEnterRules() {
  const rules = [
    { beforeText: `^Q\\d+${colon}\\s*\\[\\s*[Ee][Oo][Qq]\\s*\\]\\s*$`, afterText: atLineEnd, action: append('Ans: ') },
    { beforeText: `^Description${colon}.*\\S\\s*$`, afterText: atLineEnd, action: append('Input: ') },
  ];
  for (let k = 1; k <= MAX_STEP; k++) {
    rules.push({ beforeText: `^Q${k}${colon}\\s*\\[[^\\]]*\\S[^\\]]*\\].*$`, afterText: atLineEnd, action: append(`#${k}: `) });
  }
  for (let k = 1; k <= MAX_STEP; k++) {
    rules.push({ beforeText: `^#${k}${colon}\\s*\\S.*$`, afterText: atLineEnd, action: append(`Q${k + 1}: `) });
  }
  return rules;
}

const configuration = {
  brackets: [['[', ']'], ['(', ')'], ['{', '}']],
  autoClosingPairs: [
    { open: '[', close: ']' },
    { open: '(', close: ')' },
    { open: '{', close: '}' },
    { open: '<<', close: '>>' },
    { open: '"', close: '"' },
  ],
  autoCloseBefore: ';:.,=}])>` \n\t',
  surroundingPairs: [['[', ']'], ['(', ')'], ['{', '}'], ['"', '"'], ["'", "'"], ['`', '`']],
  // `#12` and `%s` are words (references, template slots); so are hyphenated words like step-by-step.
  wordPattern: '#\\d+|%s|[^\\s\\[\\](){}<>"\'`,.;:：!?#%=*/+|\\\\]+',
  // Code in answers is Python: indent after a block header, outdent else/except/finally.
  indentationRules: {
    increaseIndentPattern: '^\\s*(?:def|class|for|while|if|elif|else|try|except|finally|with)\\b.*:\\s*$',
    decreaseIndentPattern: '^\\s*(?:elif|else|except|finally)\\b.*:\\s*$',
  },
  onEnterRules: onEnterRules(),
};

const text = JSON.stringify(configuration, null, 2) + '\n';
const target = new URL('art.language-configuration.json', import.meta.url);
if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    // A missing file is out of date too.
  }
  if (current !== text) {
    console.error('language-configuration/art.language-configuration.json is out of date: run node language-configuration/generate-art.mjs');
    process.exit(1);
  }
} else {
  writeFileSync(target, text);
}
