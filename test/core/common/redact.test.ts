// Keeping a key out of what is written (core/common/redact.ts): every form of it (whole, its body without the
// prefix, masked) is redacted from a text, and from a text that arrives in pieces however it is cut.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { publicURL, Redactor, redactUrl, secretBody, urlSecrets } from '../../../core/common/redact';

const KEY = 'sk-test-Zq8fK2mWp4Lx9Rb7Tn3V1234567890';
const FORMS = [KEY, KEY.slice(3), secretBody(KEY), 'sk-tes...7890', 'sk-test-Zq8f…4567890', 'Zq8fK2****7890'];
const TEXT = `Ans: ${KEY} or ${KEY.slice(3)} or ${secretBody(KEY)} or sk-tes...7890, sk-test-Zq8f…4567890 and Zq8fK2****7890.\nQ2:`;
const leaks = (s: string) => FORMS.filter(f => s.includes(f)).concat(/Zq8fK2mW|34567890/.test(s) ? ['a part of the key'] : []);

test("a key's forms: whole, without its prefix, masked; its body is what follows the prefix", () => {
  assert.equal(secretBody(KEY), 'Zq8fK2mWp4Lx9Rb7Tn3V1234567890');
  assert.equal(secretBody('sk-proj-abcdefghijklmnop'), 'abcdefghijklmnop');
  const r = new Redactor([KEY]);
  assert.equal(r.redact(TEXT), 'Ans: *** or test-*** or *** or ***, *** and ***.\nQ2:');
  // Short secrets would redact ordinary text; other text is left alone.
  assert.equal(new Redactor(['abc', undefined, '']).redact('abc abcd'), 'abc abcd');
  assert.equal(r.redact('sk- tests ... 7890 Zq8f'), 'sk- tests ... 7890 Zq8f');
});

test('a text in pieces comes out as the redaction of the whole, wherever it is cut (two and three pieces)', () => {
  const r = new Redactor([KEY]);
  const whole = r.redact(TEXT);
  const run = (pieces: string[]) => {
    const s = r.stream();
    const out = pieces.map(p => s.push(p));
    return { out, joined: out.join('') + s.end() };
  };
  for (let i = 0; i <= TEXT.length; i++) {
    const { joined } = run([TEXT.slice(0, i), TEXT.slice(i)]);
    assert.equal(joined, whole, `cut at ${i}`);
    for (let j = i; j <= TEXT.length; j += 7) {
      const three = run([TEXT.slice(0, i), TEXT.slice(i, j), TEXT.slice(j)]);
      assert.deepEqual(leaks(three.out.join('')), [], `cut at ${i} and ${j}`);
      assert.equal(three.joined, whole, `cut at ${i} and ${j}`);
    }
  }
  // One character at a time: nothing of the key is let out before it is known to be the key.
  const ones = run([...TEXT]);
  assert.deepEqual(leaks(ones.joined), []);
  assert.equal(ones.joined, whole);
});

test('text that cannot begin a key is let out at once; only a possible start is held back', () => {
  const s = new Redactor([KEY]).stream();
  assert.equal(s.push('The answer is 42.'), 'The answer is 42.');
  assert.equal(s.push(' sk-'), ' ');
  assert.equal(s.push('te'), '');
  assert.equal(s.push('a'), 'sk-tea');
  assert.equal(s.end(), '');
  assert.equal(new Redactor([]).stream().push('sk-te'), 'sk-te');
});

test('a credential after its scheme is a secret of its own: a Bearer token without "Bearer ", a Basic password', () => {
  const token = 'collector-token-9f8e7d6c5b4a';
  const r = new Redactor([`Bearer ${token}`, `Basic ${Buffer.from('team:pa55-word-of-basic').toString('base64')}`]);
  assert.equal(r.redact(`the model says ${token}; Bearer ${token}`), 'the model says ***; ***');
  assert.equal(r.redact('and pa55-word-of-basic'), 'and ***');
});

test("a URL's user, password and query values are secrets; a URL is shown without them", () => {
  const url = 'https://team:pa55-word-in-url@collector.example:4318/v1/traces?api_key=query-secret-123&x=1';
  assert.equal(publicURL(url), 'https://collector.example:4318/v1/traces');
  assert.deepEqual(urlSecrets(url), ['team', 'pa55-word-in-url', 'query-secret-123', '1']);
  assert.equal(
    redactUrl(`telemetry: cannot send spans to ${url} (Invalid URL ${url.slice(8)}, key query-secret-123)`, url),
    'telemetry: cannot send spans to https://collector.example:4318/v1/traces (Invalid URL ***:***@collector.example:4318/v1/traces?api_key=***&x=1, key ***)',
  );
});
