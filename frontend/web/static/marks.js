// marks.js: model text shown with its special tokens and tags made visible.
// Everything goes in as text nodes; a tag is a <span> whose textContent is
// the tag, so a model that writes markup only ever shows characters.
import { slot } from './dom.js';

// Special tokens such as <|im_start|>, the tags of the Qwen3 / Hermes
// tool-calling format, and the call markers of the other dialects.
const MARK = /<\|[^|<>\s]{1,40}\|>|<\/?(?:think|tool_call|tool_response|tools)>|>>>CALL_FUNCTION<<<|<<function>>|\[TOOL_CALLS\]/g;
const CALL_MARKERS = new Set(['>>>CALL_FUNCTION<<<', '<<function>>', '[TOOL_CALLS]']);

// The longest text that may still grow into a mark, for RawStream.
const LONGEST_MARK = 44;

// Marks of fixed text; special tokens such as <|im_start|> are a pattern.
const FIXED_MARKS = ['<think>', '</think>', '<tool_call>', '</tool_call>', '<tool_response>', '</tool_response>',
  '<tools>', '</tools>', ...CALL_MARKERS];

/** couldBecomeMark reports whether more text may turn tail into a mark. */
function couldBecomeMark(tail) {
  if (/^<(\|[^|<>\s]{0,40}\|?)?$/.test(tail)) return true;
  return FIXED_MARKS.some((m) => tail.length < m.length && m.startsWith(tail));
}

// Where a tag leaves the reply: thinking, a tool call, or plain text.
const REGION_AFTER = {
  '<think>': 'think',
  '</think>': 'text',
  '<tool_call>': 'call',
  '</tool_call>': 'text',
};

function mark(token) {
  const span = document.createElement('span');
  // tok-special, or tok-think, tok-tool_call …: one colour per tag name.
  if (token.startsWith('<|')) span.className = 'tok tok-special';
  else if (CALL_MARKERS.has(token)) span.className = 'tok tok-tool_call';
  else span.className = `tok tok-${token.replace(/[</>]/g, '')}`;
  span.textContent = token;
  return span;
}

/**
 * appendMarked appends text to parent, its marks highlighted. With each
 * plain run it calls plain(run) instead, when given, so callers can wrap
 * runs themselves.
 */
export function appendMarked(parent, text, { before = null, plain, onMark } = {}) {
  let last = 0;
  const addPlain = (s) => {
    if (!s) return;
    if (plain) plain(s);
    else parent.insertBefore(document.createTextNode(s), before);
  };
  for (const m of text.matchAll(MARK)) {
    addPlain(text.slice(last, m.index));
    parent.insertBefore(mark(m[0]), before);
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
 */
export class RawStream {
  constructor(pre, { inThinking = false } = {}) {
    this.pre = pre;
    this.tail = slot(pre, 'tail');
    this.pendingEl = slot(pre, 'pending');
    this.raw = '';
    this.settled = 0; // raw[:settled] is drawn for good
    this.region = inThinking ? 'think' : 'text';
    this.run = null; // the span plain text of the current region goes into
  }

  /** push adds a chunk; pending is what the parser holds back (a suffix). */
  push(text, pending = '') {
    this.raw += text;
    const held = pending && this.raw.endsWith(pending) ? pending.length : 0;
    const end = this.raw.length - held;
    this.settle(this.safeEnd(end));
    this.tail.className = `raw-tail raw-${this.region}`;
    this.tail.textContent = this.raw.slice(this.settled, end);
    this.pendingEl.textContent = this.raw.slice(end);
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

  // safeEnd stops before text that may still become a mark, so that a tag
  // or a marker cut by a chunk boundary is highlighted once it is whole.
  // Text inside a mark that is already whole is never held.
  safeEnd(end) {
    const start = Math.max(this.settled, end - LONGEST_MARK);
    let from = start;
    for (const m of this.raw.slice(start, end).matchAll(MARK)) from = start + m.index + m[0].length;
    for (let p = from; p < end; p++) {
      if (couldBecomeMark(this.raw.slice(p, end))) return p;
    }
    return end;
  }

  settle(end) {
    if (end <= this.settled) return;
    const text = this.raw.slice(this.settled, end);
    this.settled = end;
    appendMarked(this.pre, text, {
      before: this.tail,
      plain: (s) => this.plain(s),
      onMark: (token) => {
        this.region = REGION_AFTER[token] ?? this.region;
        this.run = null;
      },
    });
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
