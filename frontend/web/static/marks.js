// marks.js: model text shown with its special tokens and tags made visible.
// Everything goes in as text nodes; a tag is a <span> whose textContent is
// the tag, so a model that writes markup only ever shows characters.
import { slot } from './dom.js';

// The prompt's own marks, the same whatever the dialect: special tokens
// such as <|im_start|> (a pattern: each model family has its own), and the
// tags toolscope writes around the tools and the tool responses. A
// dialect's marks, its thinking tags and call markers, come with the run
// (see Marks), so this file knows no dialect.
const SPECIAL = '<\\|[^|<>\\s]{1,40}\\|>';
const SPECIAL_START = /^<(\|[^|<>\s]{0,40}\|?)?$/;
const SPECIAL_LONGEST = 44;
const PROMPT_TAGS = ['<tool_response>', '</tool_response>', '<tools>', '</tools>'];

// The CSS class of a dialect mark, by the region it opens or closes.
const REGION_CLASS = { think: 'tok-think', call: 'tok-tool_call' };

const escapeRegExp = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Marks are the texts highlighted in model text: the prompt's own and a
 * dialect's, as the run_started event describes it in run.dialect_marks:
 * {name, marks: [{text, opens, closes}]}, where opens and closes name the
 * region ("think" or "call") a mark starts or ends.
 */
export class Marks {
  constructor(dialect) {
    this.dialect = new Map((dialect?.marks ?? []).map((m) => [m.text, m]));
    // Longest first, so that a mark wins over a shorter one it starts with.
    this.fixed = [...new Set([...this.dialect.keys(), ...PROMPT_TAGS])].sort((a, b) => b.length - a.length);
    this.pattern = new RegExp([...this.fixed.map(escapeRegExp), SPECIAL].join('|'), 'g');
    this.longest = Math.max(SPECIAL_LONGEST, ...this.fixed.map((m) => m.length));
  }

  /** couldBecomeMark reports whether more text may turn tail into a mark. */
  couldBecomeMark(tail) {
    return SPECIAL_START.test(tail) || this.fixed.some((m) => tail.length < m.length && m.startsWith(tail));
  }

  /**
   * regionAfter returns the region a mark leaves the reply in. Marks open
   * regions only from text, as the parser reads them: a marker written
   * while thinking is thinking. A call's end comes from the parser's
   * events, not from its closing mark, which a call's string may quote.
   */
  regionAfter(token, region) {
    const m = this.dialect.get(token);
    if (m?.opens && region === 'text') return m.opens;
    if (m?.closes === 'think' && region === 'think') return 'text';
    return region;
  }

  span(token) {
    const span = document.createElement('span');
    // tok-special, or tok-think, tok-tool_call …: one colour per kind.
    const m = this.dialect.get(token);
    const region = m && (m.opens || m.closes);
    if (region) span.className = `tok ${REGION_CLASS[region] ?? 'tok-special'}`;
    else if (token.startsWith('<|')) span.className = 'tok tok-special';
    else span.className = `tok tok-${token.replace(/[</>]/g, '')}`;
    span.textContent = token;
    return span;
  }
}

/** promptMarks are the marks of text shown outside any run's dialect. */
export const promptMarks = new Marks();

/**
 * appendMarked appends text to parent, its marks highlighted. With each
 * plain run it calls plain(run) instead, when given, so callers can wrap
 * runs themselves.
 * @param {Node} parent
 * @param {string} text
 * @param {{marks?: Marks, before?: Node | null, plain?: (s: string) => void, onMark?: (token: string) => void}} [options]
 */
export function appendMarked(parent, text, { marks = promptMarks, before = null, plain, onMark } = {}) {
  let last = 0;
  const addPlain = (s) => {
    if (!s) return;
    if (plain) plain(s);
    else parent.insertBefore(document.createTextNode(s), before);
  };
  for (const m of text.matchAll(marks.pattern)) {
    addPlain(text.slice(last, m.index));
    parent.insertBefore(marks.span(m[0]), before);
    onMark?.(m[0]);
    last = m.index + m[0].length;
  }
  addPlain(text.slice(last));
}

/**
 * RawStream shows a reply as it streams: marks highlighted, thinking and
 * tool-call text tinted, and the text the parser still holds back shown
 * apart at the end, replaced as chunks arrive. It writes into a <pre>
 * whose last children are the "tail" and "pending" slots.
 *
 * A call's tint starts at its marker, and its ends come from the parser's
 * events (callOpened, callDelta, callEnded), since bare calls have no
 * marker and bracket-ended ones no closing mark. The events of a chunk
 * come before its token, and an open call's deltas end where the parser
 * has read to, so each call is placed exactly when its chunk is pushed.
 */
export class RawStream {
  constructor(pre, { inThinking = false, marks = promptMarks } = {}) {
    this.pre = pre;
    this.marks = marks;
    this.tail = slot(pre, 'tail');
    this.pendingEl = slot(pre, 'pending');
    this.raw = '';
    this.settled = 0; // raw[:settled] is drawn for good
    this.read = 0; // raw[:read] is what the parser had read at the last push
    this.region = inThinking ? 'think' : 'text';
    this.run = null; // the span plain text of the current region goes into
    /** @type {{start: number | null, deltas: number} | null} */
    this.call = null; // the open call: {start, deltas}
    this.ended = []; // calls ended since the last push: {call, raw}
    this.switches = []; // region changes ahead of settled: {at, region}
  }

  /** callOpened, callDelta and callEnded pass on the parser's call events. */
  callOpened() {
    this.call = { start: null, deltas: 0 };
  }

  callDelta(text) {
    if (this.call) this.call.deltas += text.length;
  }

  callEnded(raw) {
    this.ended.push({ call: this.call, raw });
    this.call = null;
  }

  /** push adds a chunk; pending is what the parser holds back (a suffix). */
  push(text, pending = '') {
    this.raw += text;
    const held = pending && this.raw.endsWith(pending) ? pending.length : 0;
    const end = this.raw.length - held;
    this.placeCalls(end);
    this.settle(this.safeEnd(end));
    this.tail.className = `raw-tail raw-${this.region}`;
    this.tail.textContent = this.raw.slice(this.settled, end);
    this.pendingEl.textContent = this.raw.slice(end);
  }

  /** finish draws whatever is left, once the reply is over. */
  finish() {
    this.placeCalls(this.raw.length);
    this.settle(this.raw.length);
    this.tail.textContent = '';
    this.pendingEl.textContent = '';
  }

  get pending() {
    return this.pendingEl.textContent;
  }

  // placeCalls turns the calls the parser reported since the last push
  // into region changes; end is where the parser has read to. A call that
  // opened and ended within one push has no known start: its Raw is looked
  // for in what the parser read meanwhile.
  placeCalls(end) {
    let from = this.read;
    for (const { call, raw } of this.ended) {
      /** @type {number | null} */
      let start = call?.start ?? null;
      if (start === null) {
        start = this.raw.indexOf(raw, from);
        if (start < 0 || start + raw.length > end) continue;
        this.switches.push({ at: start, region: 'call' });
      }
      this.switches.push({ at: start + raw.length, region: 'text' });
      from = start + raw.length;
    }
    this.ended = [];
    if (this.call && this.call.start === null) {
      this.call.start = end - this.call.deltas;
      this.switches.push({ at: this.call.start, region: 'call' });
    }
    this.read = end;
  }

  // safeEnd stops before text that may still become a mark, so that a tag
  // or a marker cut by a chunk boundary is highlighted once it is whole.
  // Text inside a mark that is already whole is never held.
  safeEnd(end) {
    const start = Math.max(this.settled, end - this.marks.longest);
    let from = start;
    for (const m of this.raw.slice(start, end).matchAll(this.marks.pattern)) from = start + m.index + m[0].length;
    for (let p = from; p < end; p++) {
      if (this.marks.couldBecomeMark(this.raw.slice(p, end))) return p;
    }
    return end;
  }

  settle(end) {
    while (this.switches.length && this.switches[0].at <= end) {
      const { at, region } = this.switches.shift();
      this.draw(at);
      this.setRegion(region);
    }
    this.draw(end);
  }

  draw(end) {
    if (end <= this.settled) return;
    const text = this.raw.slice(this.settled, end);
    this.settled = end;
    appendMarked(this.pre, text, {
      marks: this.marks,
      before: this.tail,
      plain: (s) => this.plain(s),
      onMark: (token) => {
        this.region = this.marks.regionAfter(token, this.region);
        this.run = null; // text after the mark goes after it
      },
    });
  }

  setRegion(region) {
    if (region === this.region) return;
    this.region = region;
    this.run = null;
  }

  plain(s) {
    if (!this.run) {
      this.run = document.createElement('span');
      this.run.className = `raw-${this.region}`;
      this.pre.insertBefore(this.run, this.tail);
    }
    this.run.append(s);
  }
}
