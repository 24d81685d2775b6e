// What a chat model sends back when it is asked to continue a document is often not the bare continuation: it
// restates the text so far (all of it, or its unfinished last line) before going on, wraps the continuation in a
// one-line preamble and a fenced block ("Sure! Here is the continuation:" + ```), or thinks aloud in `<think>`
// tags first. ChatReplyNormalizer turns such a reply into the continuation alone, incrementally, as the chunks of
// a stream arrive:
//
// 0. A chat template's turn marker written as text (`<|im_end|>`, `<end_of_turn>`, `<|eot_id|>`, ...) ends the reply
//    there: a base model behind a template it was not trained on (llama.cpp serves a GGUF without a template of its
//    own with ChatML) writes the end of its turn as plain text and goes on with turns of its own invention.
// 1. `<think>…</think>` spans are taken out (the tags may be split across chunks) and kept as reasoning.
// 2. A fenced block at the start of the reply, alone or after a one-line preamble, is unwrapped: the preamble, the
//    fence lines and whatever follows the closing fence are dropped.
// 3. A restatement of the text so far is dropped: the reply starts with a suffix of the text that begins at a line
//    start (its unfinished last line `Q1:`, its last lines, or the whole text) and goes on from there.
//
// Each stage holds back only what it cannot decide yet (a partial tag, the first line of the reply until it is
// known whether a fence follows, the start of the reply while it still agrees with the text so far), so a plain
// continuation streams with at most a line of delay. Every change is reported as a ReplyRepair, once.

export type ReplyRepairKind = 'turn' | 'think' | 'wrapper' | 'trailer' | 'echo';

/** A change made to a reply before it joined the program. */
export interface ReplyRepair {
  kind: ReplyRepairKind;
  /** The text kept out of the program (a `<think>` block's text is the reasoning). */
  removed: string;
  /** What was done, in a few words, for a log line. */
  summary: string;
}

/** What a chunk (or the end) of a reply gives: text for the program, reasoning, and the repairs decided now. */
export interface ReplyPiece {
  text: string;
  reasoning: string;
  repairs: ReplyRepair[];
}

/** Lines of the text so far whose starts are tried as the start of a restatement (besides the whole text). */
const ECHO_LINES = 40;
/** A first line longer than this is not a preamble (the reply is released without waiting for its end). */
const MAX_PREAMBLE = 300;

export class ChatReplyNormalizer {
  private readonly turn = new TurnFilter();
  private readonly think = new ThinkFilter();
  private readonly unwrap = new Unwrapper();
  private readonly echo: EchoFilter;
  /** The model wrote a turn marker: the reply is over (what follows is dropped; the caller may stop the request). */
  turnEnded = false;
  private finished = false;

  /** The text so far ends with a query's colon (`Q1:`), after which the step's `[name]` begins with a space. */
  private readonly afterMarker: boolean;
  /** Text was released; the reply was unwrapped from a fenced block. */
  private released = false;
  private unwrapped = false;

  /** `textSoFar`: the text the model was asked to continue (the user message, or the prefilled assistant message). */
  constructor(textSoFar: string) {
    this.echo = new EchoFilter(textSoFar);
    this.afterMarker = /(?:^|\n)Q\d+[:：]$/.test(textSoFar);
  }

  push(content: string): ReplyPiece {
    const repairs: ReplyRepair[] = [];
    if (this.finished) return { text: '', reasoning: '', repairs };
    const cut = this.turn.push(content, repairs);
    const piece = this.stages(cut.text, repairs);
    if (!cut.over) return piece;
    this.finished = this.turnEnded = true;
    const rest = this.endStages('', repairs);
    return { text: piece.text + rest.text, reasoning: piece.reasoning + rest.reasoning, repairs };
  }

  /** The reply is over: what was held back, decided now. */
  end(): ReplyPiece {
    const repairs: ReplyRepair[] = [];
    if (this.finished) return { text: '', reasoning: '', repairs };
    this.finished = true;
    return this.endStages(this.turn.end(), repairs);
  }

  private stages(content: string, repairs: ReplyRepair[]): ReplyPiece {
    const t = this.think.push(content, repairs);
    const u = this.unwrap.push(t.text, repairs);
    const text = this.spaced(this.echo.push(u, repairs), repairs);
    return { text, reasoning: t.reasoning, repairs };
  }

  private endStages(held: string, repairs: ReplyRepair[]): ReplyPiece {
    const h = this.think.push(held, repairs);
    const t = this.think.end(repairs);
    const u = this.unwrap.push(h.text + t.text, repairs) + this.unwrap.end(repairs);
    const text = this.spaced(this.echo.push(u, repairs) + this.echo.end(repairs), repairs);
    return { text, reasoning: h.reasoning + t.reasoning, repairs };
  }

  /**
   * The first text of an unwrapped reply after a query's colon gets the space the fence line took: a fenced block
   * starts on a line of its own, so `Q1:` then "```\n[EOQ]" would otherwise read `Q1:[EOQ]`.
   */
  private spaced(text: string, repairs: readonly ReplyRepair[]): string {
    this.unwrapped ||= repairs.some(r => r.kind === 'wrapper');
    if (this.released || text === '') return text;
    this.released = true;
    return this.afterMarker && this.unwrapped && text.startsWith('[') ? ` ${text}` : text;
  }
}

/**
 * Turn markers of common chat templates (ChatML, Gemma, Llama 3, Phi-3), which a model that writes them as text
 * means as the end of its turn: ART programs never hold them.
 */
export const TURN_MARKERS = [
  '<|im_end|>',
  '<|im_start|>',
  '<end_of_turn>',
  '<start_of_turn>',
  '<|eot_id|>',
  '<|start_header_id|>',
  '<|end|>',
  '<|user|>',
  '<|assistant|>',
  '<|endoftext|>',
];

/** Ends the reply at the first turn marker, even one split across chunks. */
class TurnFilter {
  private held = '';

  push(s: string, repairs: ReplyRepair[]): { text: string; over: boolean } {
    const buf = this.held + s;
    this.held = '';
    let at = -1;
    let marker = '';
    for (const m of TURN_MARKERS) {
      const i = buf.indexOf(m);
      if (i >= 0 && (at < 0 || i < at)) [at, marker] = [i, m];
    }
    if (at >= 0) {
      const removed = buf.slice(at);
      repairs.push({ kind: 'turn', removed, summary: `ended the reply at the turn marker ${marker} the model wrote as text (the rest dropped)` });
      return { text: buf.slice(0, at), over: true };
    }
    const k = Math.max(0, ...TURN_MARKERS.map(m => partialTag(buf, m)));
    this.held = buf.slice(buf.length - k);
    return { text: buf.slice(0, buf.length - k), over: false };
  }

  /** What was held back as a possible marker's start: text after all. */
  end(): string {
    const held = this.held;
    this.held = '';
    return held;
  }
}

const OPEN = '<think>';
const CLOSE = '</think>';

/** The length of the longest end of `s` that is a proper prefix of `tag` (a tag that may be completed by the next chunk). */
function partialTag(s: string, tag: string): number {
  for (let k = Math.min(tag.length - 1, s.length); k > 0; k--) if (s.endsWith(tag.slice(0, k))) return k;
  return 0;
}

const quote = (s: string, max = 60) => JSON.stringify(s.length > max ? `${s.slice(0, max)}…` : s);

/** Takes `<think>` spans out of the content, even with their tags split across chunks. */
class ThinkFilter {
  private inside = false;
  private held = '';
  private block = '';
  /** Text other than white space was released. */
  private released = false;
  /** Line breaks still to drop after a `</think>` (templates write `</think>\n\n`). */
  private dropBreaks = 0;

  push(s: string, repairs: ReplyRepair[]): { text: string; reasoning: string } {
    let buf = this.held + s;
    this.held = '';
    let text = '';
    let reasoning = '';
    for (;;) {
      if (this.dropBreaks > 0) {
        const m = /^\r?\n/.exec(buf);
        if (m) {
          buf = buf.slice(m[0].length);
          this.dropBreaks--;
          continue;
        }
        if (buf === '' || buf === '\r') {
          this.held = buf;
          break;
        }
        this.dropBreaks = 0;
      }
      if (!this.inside) {
        const i = buf.indexOf(OPEN);
        if (i >= 0) {
          text += buf.slice(0, i);
          buf = buf.slice(i + OPEN.length);
          this.inside = true;
          this.block = '';
          continue;
        }
        const k = partialTag(buf, OPEN);
        text += buf.slice(0, buf.length - k);
        this.held = buf.slice(buf.length - k);
        break;
      }
      const j = buf.indexOf(CLOSE);
      if (j >= 0) {
        reasoning += buf.slice(0, j);
        this.block += buf.slice(0, j);
        buf = buf.slice(j + CLOSE.length);
        this.inside = false;
        // At the start of the reply, the blank line after the block is the template's, not the continuation's.
        if (!this.released && !text.trim()) this.dropBreaks = 2;
        repairs.push(thinkRepair(this.block));
        continue;
      }
      const k = partialTag(buf, CLOSE);
      reasoning += buf.slice(0, buf.length - k);
      this.block += buf.slice(0, buf.length - k);
      this.held = buf.slice(buf.length - k);
      break;
    }
    if (text.trim()) this.released = true;
    return { text, reasoning };
  }

  end(repairs: ReplyRepair[]): { text: string; reasoning: string } {
    const held = this.held;
    this.held = '';
    if (!this.inside) return { text: this.dropBreaks > 0 && held === '\r' ? '' : held, reasoning: '' };
    // The reply ended inside a `<think>` block (cut by a length limit): all of it is reasoning.
    this.block += held;
    this.inside = false;
    repairs.push(thinkRepair(this.block, true));
    return { text: '', reasoning: held };
  }
}

function thinkRepair(block: string, unclosed = false): ReplyRepair {
  return {
    kind: 'think',
    removed: block,
    summary: `kept a <think> block (${block.length} characters${unclosed ? ', never closed' : ''}) out of the program, as reasoning`,
  };
}

/** Unwraps a fenced block at the start of the reply, with or without a one-line preamble. */
class Unwrapper {
  private state: 'start' | 'fenced' | 'after' | 'plain' = 'start';
  private buf = '';
  private fence = '';
  /** Fenced blocks opened inside the outer one (a code answer in its own fence). */
  private depth = 0;
  /** The line break before the current line, held back: it belongs to the fence when the line closes it. */
  private pending = '';
  /** The current (unfinished) line was already released: it cannot close the fence. */
  private lineOut = false;
  private trailer = '';

  push(s: string, repairs: ReplyRepair[]): string {
    if (this.state === 'plain') return s;
    if (this.state === 'after') {
      this.trailer += s;
      return '';
    }
    this.buf += s;
    if (this.state === 'start') {
      if (!this.decide(repairs, false)) return '';
      if (this.isPlain()) return this.take();
    }
    return this.fenced(false);
  }

  end(repairs: ReplyRepair[]): string {
    let out = '';
    if (this.state === 'start') {
      this.decide(repairs, true);
      if (this.isPlain()) return this.take();
    }
    if (this.state === 'fenced') out = this.fenced(true);
    if (this.state === 'after' && this.trailer.trim())
      repairs.push({ kind: 'trailer', removed: this.trailer, summary: `dropped the text after the closing fence (${quote(this.trailer.trim())})` });
    this.trailer = '';
    return out;
  }

  private take(): string {
    const out = this.buf;
    this.buf = '';
    return out;
  }

  /** A method, so the compiler does not take `state` for what it was before `decide` changed it. */
  private isPlain(): boolean {
    return this.state === 'plain';
  }

  /** In state `start`: whether the reply is a wrapper (state `fenced`) or not (`plain`); false while undecided. */
  private decide(repairs: ReplyRepair[], final: boolean): boolean {
    const buf = this.buf;
    const lead = /^\s*/.exec(buf)![0].length;
    if (lead === buf.length && !final) return false;
    // A fence at the very start, or after a one-line preamble and blank lines.
    let at = lead;
    let preamble = '';
    if (!/^(`{3,}|~{3,})/.test(buf.slice(lead))) {
      if (!final && /^(`{1,2}|~{1,2})$/.test(buf.slice(lead))) return false;
      const nl = buf.indexOf('\n', lead);
      if (nl < 0) {
        if (final || buf.length - lead > MAX_PREAMBLE) return this.plain();
        return false;
      }
      preamble = buf.slice(lead, nl).trim();
      at = nl + 1;
      for (let m = /^[ \t]*\r?\n/.exec(buf.slice(at)); m; m = /^[ \t]*\r?\n/.exec(buf.slice(at))) at += m[0].length;
      const next = buf.slice(at).replace(/^[ \t]+/, '');
      if (!final && /^(`{0,2}|~{0,2})$/.test(next)) return false;
      if (!/^(`{3,}|~{3,})/.test(next)) return this.plain();
    }
    const nl = buf.indexOf('\n', at);
    if (nl < 0 && !final) return false;
    const fence = /[`~]+/.exec(buf.slice(at))![0];
    const end = nl < 0 ? buf.length : nl + 1;
    const removed = buf.slice(0, end);
    this.buf = buf.slice(end);
    this.fence = fence;
    this.state = 'fenced';
    repairs.push({
      kind: 'wrapper',
      removed,
      summary: preamble
        ? `unwrapped the continuation from a chat preamble (${quote(preamble)}) and a fenced block`
        : 'unwrapped the continuation from a fenced block',
    });
    return true;
  }

  private plain(): true {
    this.state = 'plain';
    return true;
  }

  /**
   * In state `fenced`: releases the lines of the block. A line that may still become the closing fence is held,
   * with the line break before it; at the closing fence the rest of the reply is dropped.
   */
  private fenced(final: boolean): string {
    let out = '';
    for (;;) {
      const nl = this.buf.indexOf('\n');
      if (this.lineOut) {
        if (nl < 0) {
          out += this.take();
          break;
        }
        out += this.buf.slice(0, nl);
        this.pending = '\n';
        this.buf = this.buf.slice(nl + 1);
        this.lineOut = false;
        continue;
      }
      const line = (nl < 0 ? this.buf : this.buf.slice(0, nl)).replace(/\r$/, '');
      if (nl < 0 && !final) {
        if (/^[ \t]*$/.test(line) || /^[ \t]*[`~]/.test(line)) break; // may become a fence line
        out += this.pending + this.take();
        this.pending = '';
        this.lineOut = true;
        break;
      }
      if (this.depth === 0 && isCloser(line, this.fence)) {
        this.trailer += nl < 0 ? '' : this.buf.slice(nl + 1);
        this.buf = '';
        this.pending = '';
        this.state = 'after';
        return out;
      }
      // A block inside the block: a fence line with a language opens one, a bare one closes it (or opens one
      // inside a longer outer fence).
      if (/^[ \t]*(`{3,}|~{3,})\S/.test(line)) this.depth++;
      else if (/^[ \t]*(`{3,}|~{3,})[ \t]*$/.test(line)) this.depth += this.depth > 0 ? -1 : 1;
      if (nl < 0) {
        // The end of the reply, inside the block (a stop sequence or a length limit cut it): keep what there is.
        out += this.pending + this.take();
        this.pending = '';
        break;
      }
      out += this.pending + this.buf.slice(0, nl);
      this.pending = '\n';
      this.buf = this.buf.slice(nl + 1);
    }
    if (final && this.state === 'fenced') {
      out += this.pending;
      this.pending = '';
    }
    return out;
  }
}

function isCloser(line: string, fence: string): boolean {
  const m = /^[ \t]*(`{3,}|~{3,})[ \t]*$/.exec(line);
  return !!m && m[1][0] === fence[0] && m[1].length >= fence.length;
}

/** Drops a restatement of the text so far at the start of the reply. */
class EchoFilter {
  private state: 'start' | 'plain' = 'start';
  private buf = '';
  /** Where each candidate restatement starts in the text so far, longest first. */
  private readonly starts: number[] = [];

  constructor(private readonly text: string) {
    const whole = text.length - text.trimStart().length;
    const starts = new Set<number>();
    if (text.trim()) starts.add(whole);
    let at = text.length;
    for (let n = 0; n <= ECHO_LINES && at > 0; n++) {
      const nl = text.lastIndexOf('\n', at - 1);
      const start = nl + 1;
      if (start >= whole && text.slice(start).trim()) starts.add(start);
      if (nl < 0) break;
      at = nl;
    }
    this.starts = [...starts].sort((a, b) => a - b);
  }

  push(s: string, repairs: ReplyRepair[]): string {
    if (this.state === 'plain') return s;
    this.buf += s;
    return this.decide(repairs, false);
  }

  end(repairs: ReplyRepair[]): string {
    if (this.state === 'plain') return '';
    return this.decide(repairs, true);
  }

  private decide(repairs: ReplyRepair[], final: boolean): string {
    const lead = /^\s*/.exec(this.buf)![0].length;
    const reply = this.buf.slice(lead);
    if (!reply && !final) return '';
    let best: number | null = null;
    for (const start of this.starts) {
      const said = this.text.slice(start);
      if (reply.length >= said.length ? reply.startsWith(said) : final && reply.trimEnd() === said.trimEnd()) {
        best = start;
        break;
      }
      if (reply.length < said.length && said.startsWith(reply) && !final) return ''; // a restatement so far: wait for where it goes
    }
    // A restatement of the whole text cut short (a stop sequence in the text so far ended the reply): at least its
    // first line and nothing else. Only the whole text: a few lines that agree with a later
    // part of it (a demonstration's `Q2: [EOQ]`) may well be the continuation.
    const whole = this.starts[0];
    const said = reply.trimEnd();
    const lineEnds = (i: number) => i >= this.text.length || this.text[i] === '\n' || this.text[i] === '\r';
    if (best === null && final && said && this.text.startsWith(said, whole) && (said.includes('\n') || lineEnds(whole + said.length))) best = whole;
    this.state = 'plain';
    const buf = this.take();
    if (best === null) return buf;
    const echoed = this.text.slice(best, best === whole ? best + Math.min(this.text.length - best, reply.length) : undefined);
    const lines = echoed.replace(/\n$/, '').includes('\n');
    repairs.push({
      kind: 'echo',
      removed: buf.slice(0, Math.min(buf.length, lead + echoed.length)),
      summary:
        best === whole
          ? `dropped a restatement of the whole text so far (${echoed.length} characters${echoed.length < this.text.length - whole ? ', cut short' : ''})`
          : `dropped a restatement of the text's last ${lines ? 'lines' : 'line'} (${quote(echoed.trim())})`,
    });
    return buf.slice(Math.min(buf.length, lead + echoed.length));
  }

  private take(): string {
    const out = this.buf;
    this.buf = '';
    return out;
  }
}
