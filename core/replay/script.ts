// A recorded continuation: the text a model wrote after a prompt, cut into the parts the model wrote and the
// slots the environment fills (tool outputs). Given any later prompt of the same run, `locate` finds where in the
// recording the prompt ends, even when the slots hold other text than recorded (tools re-executed, outputs
// overridden), and `rest` gives what the model writes from there. The replay model and the test server use it.
import { commonPrefixLength } from '../common/text';

export type ScriptPart =
  | { kind: 'model'; text: string }
  /** `text` is what the model itself would write here (the regenerate scheme and fallbacks use it); `lead` is how
   *  many characters before the slot the tool call is already complete (e.g. `2:` after `\n#` in ART). */
  | { kind: 'slot'; text: string; lead: number };

/** A point in the script: inside part `part` at character `offset`. `part === parts.length` is the end. */
export interface ScriptPosition {
  part: number;
  offset: number;
}

export interface ScriptRest {
  /** What the model writes from the position to the end, slots filled with the model's own text. */
  text: string;
  /** Offsets in `text` at which a tool call is complete (nothing past one should be generated). */
  callEnds: number[];
}

export class ContinuationScript {
  constructor(
    /** Text the prompt ends with just before the recording starts (its last occurrence is used). */
    readonly anchor: string,
    readonly parts: readonly ScriptPart[],
  ) {}

  /**
   * Template notation for tests and fixtures: `⟦text⟧` is a slot holding what the model would write there, and `⟂`
   * marks the point where the next slot's tool call is complete (default: at the slot).
   */
  static parse(template: string, anchor: string): ContinuationScript {
    const parts: ScriptPart[] = [];
    let lead: number | null = null;
    let model = '';
    const re = /⟦([\s\S]*?)⟧|⟂/g;
    let last = 0;
    for (let m = re.exec(template); m; m = re.exec(template)) {
      model += template.slice(last, m.index);
      last = m.index + m[0].length;
      if (m[0] === '⟂') {
        lead = model.length;
        continue;
      }
      parts.push({ kind: 'model', text: model });
      parts.push({ kind: 'slot', text: m[1], lead: lead === null ? 0 : model.length - lead });
      model = '';
      lead = null;
    }
    model += template.slice(last);
    if (model) parts.push({ kind: 'model', text: model });
    return new ContinuationScript(
      anchor,
      parts.filter(p => p.kind === 'slot' || p.text.length > 0),
    );
  }

  /** The whole recording with the model's own slot texts (what a model writes when nothing interrupts it). */
  get fullText(): string {
    return this.rest({ part: 0, offset: 0 }).text;
  }

  /**
   * Where `prompt` ends in the recording, or null when it does not follow the recording. `resync`: false to follow
   * the recording only where the text is the recorded one (slots aside), never picking up again after a departure.
   */
  locate(prompt: string, resync = true): ScriptPosition | null {
    const find = (w: string) => (resync ? this.alignOrResync(w) : this.align(w, 0, 0));
    if (!this.anchor) return find(prompt);
    for (let at = prompt.lastIndexOf(this.anchor); at >= 0; at = at === 0 ? -1 : prompt.lastIndexOf(this.anchor, at - 1)) {
      const p = find(prompt.slice(at + this.anchor.length));
      if (p) return p;
    }
    return null;
  }

  rest(pos: ScriptPosition): ScriptRest {
    let text = '';
    const callEnds: number[] = [];
    for (let i = pos.part; i < this.parts.length; i++) {
      const p = this.parts[i];
      const from = i === pos.part ? pos.offset : 0;
      if (p.kind === 'slot') {
        const end = text.length - p.lead;
        // A call whose completion point lies before the position is already over.
        if (end >= 0 && !(i === pos.part && from > 0)) callEnds.push(end);
        if (from === 0) text += p.text;
      } else {
        text += p.text.slice(from);
      }
    }
    return { text, callEnds };
  }

  private alignOrResync(written: string): ScriptPosition | null {
    const strict = this.align(written, 0, 0);
    if (strict) return strict;
    // The written text departs from the recording outside a slot (an edited tool input, a corrected state):
    // pick up again after the latest slot whose lead-in is found, counting repeated lead-ins in order.
    for (let j = this.parts.length - 1; j >= 0; j--) {
      const before = this.parts[j - 1];
      if (this.parts[j].kind !== 'slot' || !before || before.kind !== 'model' || !before.text) continue;
      for (const tail of leadIns(before.text)) {
        let nth = 0;
        for (let k = 1; k <= j; k++) {
          const b = this.parts[k - 1];
          if (this.parts[k].kind === 'slot' && b.kind === 'model' && b.text.endsWith(tail)) nth++;
        }
        let at = -1;
        for (let c = 0; c < nth; c++) {
          at = written.indexOf(tail, at + 1);
          if (at < 0) break;
        }
        if (at < 0) continue;
        const p = this.align(written, at + tail.length, j);
        if (p) return p;
      }
    }
    return null;
  }

  /** Aligns `written[g..]` with parts `i..`; returns where `written` ends, or null when it departs. */
  private align(written: string, g: number, i: number): ScriptPosition | null {
    if (i >= this.parts.length) return g === written.length ? { part: this.parts.length, offset: 0 } : null;
    const p = this.parts[i];
    if (p.kind === 'model') {
      const k = commonPrefixLength(written.slice(g), p.text);
      if (k === p.text.length) return this.align(written, g + k, i + 1);
      if (g + k === written.length) return { part: i, offset: k };
      return null;
    }
    // Slot: nothing written in it yet means the model itself writes it (a fallback after a failed tool).
    if (g === written.length) return { part: i, offset: 0 };
    if (i + 1 >= this.parts.length) return { part: this.parts.length, offset: 0 };
    // The environment's text runs up to the earliest point where the rest of the recording lines up again.
    // A slot's text never holds the lead-in of a later slot (`\n#3:`): past one, the recording was left earlier
    // and a resync must find the place.
    let limit = written.length;
    for (let k = i + 2; k < this.parts.length; k++) {
      const b = this.parts[k - 1];
      if (this.parts[k].kind !== 'slot' || b.kind !== 'model' || !b.text) continue;
      const lead = leadIns(b.text)[0];
      const at = written.indexOf(lead, g);
      if (at >= 0) limit = Math.min(limit, at + lead.length - 1);
    }
    for (let j = g; j < Math.min(limit + 1, written.length); j++) {
      const r = this.align(written, j, i + 1);
      if (r) return r;
    }
    // All the rest is the slot's text: the runner wrote an output and asks for the continuation.
    if (limit < written.length) return null;
    return { part: i + 1, offset: 0 };
  }
}

/**
 * Recorded text with MultiTool-CoT triggers (`3 * 4 <<Calculator>> 12 dollars`): the word after each trigger
 * (without a closing full stop or comma) is the tool's output, a slot the tool fills again when it is replayed; the
 * rest is what the model wrote. Parts may be empty model texts (the caller filters them).
 */
export function triggerParts(text: string): ScriptPart[] {
  const parts: ScriptPart[] = [];
  let from = 0;
  for (const m of text.matchAll(/<<[^<>\n]{1,64}>>( ?\S*?)(?=[.,;:!?)]*(?:\s|$))/g)) {
    const slot = m.index + m[0].length - m[1].length;
    parts.push({ kind: 'model', text: text.slice(from, slot) });
    parts.push({ kind: 'slot', text: m[1], lead: 0 });
    from = slot + m[1].length;
  }
  parts.push({ kind: 'model', text: text.slice(from) });
  return parts;
}

/** The ends of a slot's lead-in text to look for: its line (`\n#2:`, `\n[Observation]`), or its last characters. */
function leadIns(text: string): string[] {
  const nl = text.lastIndexOf('\n');
  const line = nl >= 0 ? text.slice(nl) : text;
  return [line.length <= 24 ? line : text.slice(-14)];
}

/** Splits text into token-like pieces (words with their leading space, single punctuation, line breaks). */
export function roughTokens(text: string): string[] {
  return text.match(/\r?\n|[ \t]*[A-Za-z0-9_]+|[ \t]*[^A-Za-z0-9_\s]|[ \t]+/g) ?? [];
}
