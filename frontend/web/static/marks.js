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
 * RawStream shows a reply as it streams: marks highlighted, each piece
 * tinted by the region the parser read it in (a token event's region:
 * text, think or call), and the text the parser still holds back shown
 * apart at the end, replaced as pieces arrive. It writes into a <pre>
 * whose last children are the "tail" and "pending" slots.
 *
 * The regions come from the parser, on the server: this draws them and
 * knows no dialect's rules, and a call that quotes a closing mark, or ends
 * where its brackets balance, is tinted exactly as the parser read it.
 */
export class RawStream {
  constructor(pre, { marks = promptMarks } = {}) {
    this.pre = pre;
    this.marks = marks;
    this.tail = slot(pre, 'tail');
    this.pendingEl = slot(pre, 'pending');
    this.raw = '';
    this.settled = 0; // raw[:settled] is drawn for good
    this.region = 'text'; // the region of the text drawn last
    this.pushed = 'text'; // the region of the piece pushed last
    this.run = null; // the span plain text of the current region goes into
    this.switches = []; // region changes ahead of settled: {at, region}
  }

  /**
   * push adds a piece of the reply as the parser read it, in its region;
   * pending is what the parser holds back after it, shown apart.
   */
  push(text, region = 'text', pending = '') {
    if (region !== this.pushed) {
      this.switches.push({ at: this.raw.length, region });
      this.pushed = region;
    }
    this.raw += text;
    this.settle(this.safeEnd(this.raw.length));
    this.tail.className = `raw-tail raw-${this.pushed}`;
    this.tail.textContent = this.raw.slice(this.settled);
    this.pendingEl.textContent = pending;
  }

  /** finish draws whatever is left, once the reply is over. */
  finish() {
    this.settle(this.raw.length);
    this.tail.textContent = '';
    this.pendingEl.textContent = '';
  }

  get pending() {
    return this.pendingEl.textContent;
  }

  // safeEnd stops before text that may still become a mark, so that a
  // special token cut by a chunk boundary is highlighted once it is whole
  // (the parser holds back its own tags, but not the prompt's tokens).
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
      onMark: () => {
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
