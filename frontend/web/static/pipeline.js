// pipeline.js: one run drawn as a pipeline of step cards, round by round,
// from its events. Each event type has one handler; each card kind has one
// renderer. Model text is set with textContent only.
import { clone, count, el, fill, plural, shorten, slot } from './dom.js';
import { appendMarked, Marks, promptMarks, RawStream } from './marks.js';
import { markEdited, showPause } from './step.js';
import { EventType, Reason } from './events.js';
import { RUN_EVENT } from './runevent.js';
import { settingControl } from './options.js';
import { askHandlers } from './asks.js';
import { resultParts } from './resources.js';

/** createTurn draws a user's request; its rounds go inside. */
export function createTurn(message) {
  return fill(clone('tpl-turn'), { message });
}

// ---- formatting -----------------------------------------------------------

/** duration formats milliseconds for people: "0.4 ms", "812 ms", "3.00 s". */
export function duration(ms) {
  if (ms < 10 && !Number.isInteger(ms)) return `${ms.toFixed(1)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}

/** callText writes a call the way tool descriptions do: name(a="x", b=2). */
function callText(call) {
  const args = Object.entries(call.arguments ?? {}).map(([k, v]) => {
    const value = typeof v === 'string' ? JSON.stringify(shorten(v, 32)) : shorten(JSON.stringify(v), 32);
    return `${k}=${value}`;
  });
  return `${call.name}(${args.join(', ')})`;
}

const parsedBy = (who) => {
  if (!who || who === 'toolscope') return 'parsed by toolscope';
  return who === 'ollama' ? 'parsed by Ollama' : `parsed by the ${who} server`;
};

// ---- cards ----------------------------------------------------------------

/**
 * turnRound is the number round n of the run drawn in turn has in its
 * conversation's turn: a rerun's rounds go on from the round it reran.
 */
export function turnRound(turn, n) {
  return n + Number(turn.dataset.firstRound ?? 1) - 1;
}

/** A Round is one model reply and the tool runs that follow it. */
class Round {
  constructor(number, turn, marks) {
    this.number = number;
    this.marks = marks;
    this.el = clone('tpl-round');
    fill(this.el, { number: String(turnRound(turn, number)) });
    this.el.classList.add('is-live');
    this.steps = slot(this.el, 'steps');
    this.input = null;
    this.text = ''; // reply text outside tags
    this.thinking = null;
    this.raw = null;
    this.answer = null;
    this.replied = false; // the reply ran to its end: the backend said why it stopped
    this.calls = new Map(); // call index → card
    this.execs = new Map(); // call index → {card, timer}
    this.faked = new Set(); // indexes of the calls whose result was typed at a pause
    slot(turn, 'rounds').append(this.el);
  }

  add(kind, before = null) {
    const card = clone(`tpl-${kind}`);
    this.steps.insertBefore(card, before);
    return card;
  }

  /** output returns the raw output card, drawing it on first use. */
  output() {
    if (!this.raw) {
      const card = this.add('raw');
      card.classList.add('is-live');
      const stream = new RawStream(slot(card, 'text'), { marks: this.marks });
      this.raw = { card, stream };
      // The thinking it holds is the Thinking card's text again, so it is
      // folded to one line (css/pipeline.css); a click shows it here too, or folds it again.
      stream.pre.addEventListener('click', (ev) => {
        if (ev.target.closest('.raw-think')) stream.pre.classList.toggle('shows-thinking');
      });
    }
    return this.raw;
  }

  /** endReply marks the model's reply as over; tools may still run. */
  endReply() {
    this.raw?.stream.finish();
    for (const card of [this.thinking, this.raw?.card, this.answer]) card?.classList.remove('is-live');
  }

  /**
   * fold closes the cards that only lead up to the round's outcome, once
   * the next round starts: the live round stays open, earlier ones read as
   * a summary. Each folded card shows a preview and opens with a click.
   */
  fold() {
    if (this.thinking) fold(this.thinking, slot(this.thinking, 'text').textContent);
    if (this.raw) fold(this.raw.card, this.raw.stream.raw);
  }

  /**
   * cutShort labels the text of a reply that a stop or an error ended
   * midway: it is not an answer, so it loses the answer's check.
   */
  cutShort(reason) {
    if (this.replied || !this.answer) return;
    partial(this.answer, reason === Reason.Cancelled ? 'Stopped: partial reply' : 'Cut off: partial reply');
  }

  /** close ends everything still live in the round, when the run is over. */
  close() {
    this.endReply();
    this.el.classList.remove('is-live');
    for (const card of this.steps.querySelectorAll('.is-live')) card.classList.remove('is-live');
    for (const exec of this.execs.values()) clearInterval(exec.timer);
  }
}

/** fold closes a step card to its header line, with text as its preview. */
export function fold(card, text) {
  fill(card, { preview: shorten(text.replace(/\s+/g, ' ').trim(), 160) });
  card.querySelector('details').open = false;
}

/** partial marks a card whose text a stop, an error or a limit cut short. */
function partial(card, heading) {
  card.classList.add('is-partial');
  title(card, heading);
  card.querySelector('.step-icon').replaceChildren(clone('tpl-icon-partial'));
}

function meta(card, text) {
  slot(card, 'meta').textContent = text;
}

function title(card, text) {
  slot(card, 'title').textContent = text;
}

/** argText writes an argument's value: text as it is, other JSON on one line, or indented when long. */
function argText(value) {
  if (typeof value === 'string') return value;
  const json = JSON.stringify(value);
  return json.length > 60 ? JSON.stringify(value, null, 2) : json;
}

function argRow(key, value) {
  const row = clone('tpl-arg');
  fill(row, { key, value: argText(value) });
  slot(row, 'value').classList.toggle('json-value', typeof value !== 'string');
  return row;
}

/**
 * showEditedArguments redraws a call's card with the arguments it ran
 * with, edited at a pause: each one changed shows what the model wrote,
 * struck through, then what ran.
 */
function showEditedArguments(card, change) {
  if (!card) return;
  const was = change.was ?? {};
  const now = change.now ?? {};
  const rows = Object.keys({ ...was, ...now }).map((key) => {
    const row = argRow(key, now[key] ?? '');
    if (JSON.stringify(was[key]) === JSON.stringify(now[key])) return row;
    const cell = slot(row, 'value');
    const ran = key in now ? el('ins', 'arg-now', argText(now[key])) : el('span', 'arg-now hint', '(left out)');
    const wrote = key in was ? el('del', 'arg-was', argText(was[key])) : el('span', 'arg-was hint', '(none)');
    wrote.title = 'what the model wrote';
    cell.replaceChildren(wrote, el('span', 'arg-arrow', ' → '), ran);
    row.classList.add('is-edited');
    return row;
  });
  slot(card, 'args').replaceChildren(...rows);
  slot(card, 'args').closest('table').hidden = rows.length === 0;
  fill(card, { json: JSON.stringify(now, null, 2) });
  slot(card, 'edited-note').hidden = false;
}

// A fix's booleans are the Thinking select's "on" and "off".
const optionValue = (value) => ({ true: 'on', false: 'off' })[value] ?? value;

/**
 * fixText words an error's fix for this page: its step outside toolscope,
 * then the Settings control that applies it, named as the page labels it
 * ("Settings → Mode: chat messages"). The backend has no control here: it
 * is chosen when toolscope starts.
 */
export function fixText(fix) {
  const change = settingText(fix.setting, fix.value);
  return [fix.do, change].filter(Boolean).join(', or ');
}

function settingText(setting, value) {
  if (!setting) return '';
  if (setting === 'backend') return `restart toolscope with --backend ${value}`;
  const control = settingControl(setting);
  const label = control?.labels?.[0]?.textContent.trim() ?? setting;
  if (!value) return `choose another in Settings → ${label}`;
  const options = control instanceof HTMLSelectElement ? [...control.options] : [];
  const option = options.find((o) => o.value === optionValue(value));
  return `choose Settings → ${label}: ${option?.textContent.trim() ?? value}`;
}

/** errorCard shows what went wrong and, apart, what to do about it. */
/**
 * @param {HTMLElement} card
 * @param {string} message
 * @param {string} where
 * @param {{do?: string, setting?: string, value?: any} | null} [fix]
 */
function errorCard(card, message, where, fix = null) {
  title(card, 'Error');
  meta(card, where);
  fill(card, { what: message });
  if (!fix) return card;
  fill(card, { 'next-text': fixText(fix) });
  const control = fix.setting ? settingControl(fix.setting) : null;
  if (control) {
    const show = Object.assign(document.createElement('button'), { type: 'button', className: 'ghost' });
    show.textContent = 'Show the setting';
    show.addEventListener('click', () => {
      control.scrollIntoView({ block: 'center' });
      control.focus();
    });
    slot(card, 'next').append(' ', show);
  }
  slot(card, 'next').hidden = false;
  return card;
}

/**
 * execCard draws the card of a call's tool run, with the pill in its
 * header that times the run (a faked result's says so instead).
 */
function execCard(round, call) {
  const card = round.add('exec');
  fill(card, { call: callText(call) });
  slot(card, 'meta').append(el('span', 'timer'));
  return card;
}

/** execTitle names how a tool's run ended: executed, failed, stopped, or faked at a pause. */
function execTitle(e, faked) {
  const { name } = e.call;
  if (faked) return `Faked ${e.error ? 'error' : 'result'} of ${name}`;
  if (e.stopped) return `Stopped ${name}`;
  return e.error ? `${name} failed` : `Executed ${name}`;
}

// ---- event handlers -------------------------------------------------------

/**
 * finishedHow words, at the end of a turn, how its run finished. Its type
 * asks for every reason in events.js, so tsc names one it lacks.
 * @type {Record<import('./events.js').ReasonName, string>}
 */
const finishedHow = {
  [Reason.Answered]: 'Answered',
  // A run of the /v1 API whose tools the app runs: the calls went back to it.
  [Reason.Returned]: 'Calls returned to the app',
  [Reason.Cancelled]: 'Stopped',
  [Reason.CutOff]: 'Cut off',
  [Reason.MaxRounds]: 'Round limit reached',
  [Reason.Failed]: 'Failed',
};

// handlers draws each event type; `this` is the RunView. Its type asks for
// a handler for every type in events.js, so tsc names any event the page
// does not draw.
/** @type {Record<import('./events.js').EventTypeName, (this: RunView, e: any) => void>} */
const handlers = {
  [EventType.RunStarted](e) {
    this.info = e.run;
    this.marks = new Marks(e.run.dialect_marks);
    this.onTools?.(e.run.tools ?? []);
  },

  // Tool retrieval chose the run's tools: the first card of round 1.
  [EventType.ToolsSelected](e) {
    const sel = e.selection;
    const card = this.round(1).add('tools');
    const offered = sel.tools ?? [];
    const total = offered.length + sel.left_out;
    meta(card, [`${sel.retriever} retrieval`, `k = ${sel.k}`, `${count.format(offered.length)} of ${plural(total, 'tool')} offered`].join(' · '));
    fill(card, { query: sel.query });
    if (sel.fallback) {
      const fix = sel.fallback.do ? ` To use it: ${sel.fallback.do}.` : '';
      fill(card, { fallback: `${sel.asked} retrieval is not available (${sel.fallback.problem}), so the tools were ranked lexically.${fix}` });
      slot(card, 'fallback').hidden = false;
    }
    for (const t of offered) {
      const item = fill(clone('tpl-chosen-tool'), { name: t.name, score: t.kept ? 'called earlier' : t.score.toFixed(3) });
      item.classList.toggle('is-kept', Boolean(t.kept));
      slot(item, 'kept').hidden = !t.kept;
      slot(card, 'chosen').append(item);
    }
    const names = sel.left_out_names ?? [];
    fill(card, { 'left-out-summary': `${plural(sel.left_out, 'tool')} left out` });
    for (const name of names) {
      slot(card, 'left-out-list').append(el('li', '', name));
    }
    if (sel.left_out > names.length) {
      slot(card, 'left-out-list').append(el('li', 'hint', `… and ${count.format(sel.left_out - names.length)} more: see Tools in the side panel`));
    }
    slot(card, 'left-out').hidden = sel.left_out === 0;
  },

  [EventType.RoundStarted](e) {
    this.rounds.get(e.round - 1)?.fold();
    const r = this.round(e.round);
    r.input = e.input;
    const card = r.add('send');
    const { mode, prompt, think, messages = [] } = e.input;
    const last = messages.at(-1);
    const size = prompt ? [plural(prompt.length, 'character')] : [];
    meta(card, [this.info?.model, `${mode} mode`, this.info?.dialect && `${this.info.dialect} calls`, plural(messages.length, 'message'), ...size, `thinking ${think ? 'on' : 'off'}`]
      .filter(Boolean).join(' · '));
    fill(card, { 'last-role': last ? `newest: ${last.role}` : '', 'last-text': last ? shorten(last.content, 240) : '' });
    slot(card, 'view').addEventListener('click', () => this.showInput?.(e.input, e.round, this.marks));
    this.onRound?.(e.round);
    this.onRoundHead?.(r.el.querySelector('.round-head'), e.round, e.input, this.info?.settings);
  },

  [EventType.ThinkingDelta](e) {
    const r = this.round(e.round);
    if (!r.thinking) {
      // Thinking is read out of the raw output, but it is the model's first
      // step, so its card goes above.
      r.thinking = r.add('thinking', r.raw?.card);
      r.thinking.classList.add('is-live');
      meta(r.thinking, parsedBy(e.parsed_by));
    }
    const box = slot(r.thinking, 'text');
    // Models open their thinking with a line break; the card needs none.
    box.append(box.textContent ? e.text : e.text.trimStart());
    box.scrollTop = box.scrollHeight;
  },

  [EventType.Token](e) {
    const raw = this.round(e.round).output();
    // A token event says the region the parser read its text in; one
    // recorded before events said so is a chunk as it arrived, what the
    // parser held back included, and is drawn as plain text.
    if (e.region) raw.stream.push(e.text ?? '', e.region, e.pending ?? '');
    else raw.stream.push(e.text ?? '');
    raw.stream.pre.scrollTop = raw.stream.pre.scrollHeight;
    const held = raw.stream.pending;
    meta(raw.card, plural(raw.stream.raw.length, 'character') +
      (held ? ` · holding back ${plural(held.length, 'character')}` : ''));
  },

  [EventType.TextDelta](e) {
    const r = this.round(e.round);
    r.output(); // parsed text comes before its token event, but goes below it
    r.text += e.text;
    if (!r.answer && !r.text.trim()) return;
    if (!r.answer) {
      r.answer = r.add('answer');
      r.answer.classList.add('is-live');
      if (r.calls.size) title(r.answer, 'Text beside the tool call');
    }
    slot(r.answer, 'text').textContent = r.text.trim();
  },

  [EventType.ToolCallOpened](e) {
    const r = this.round(e.round);
    r.output(); // the raw output the call is written in goes above it
    const card = r.add('call-live');
    card.classList.add('is-live');
    meta(card, 'the call\'s characters as they arrive');
    r.calls.set(e.call.index, card);
    // Text written before a call is not the answer.
    if (r.answer) title(r.answer, 'Text before the tool call');
  },

  [EventType.ToolCallDelta](e) {
    const r = this.round(e.round);
    const card = r.calls.get(e.call.index);
    if (card) slot(card, 'text').append(e.text);
  },

  [EventType.ToolCallParsed](e) {
    const r = this.round(e.round);
    const card = clone('tpl-call');
    const { call } = e;
    fill(card, { name: call.name, json: JSON.stringify(call.arguments ?? {}, null, 2) });
    const rows = slot(card, 'args');
    const args = Object.entries(call.arguments ?? {});
    for (const [k, v] of args) rows.append(argRow(k, v));
    if (!args.length) slot(card, 'args').closest('table').hidden = true;
    meta(card, `${parsedBy(call.parsed_by)} · call ${call.index + 1}`);
    this.placeCall(r, call.index, card);
  },

  [EventType.ToolCallInvalid](e) {
    const r = this.round(e.round);
    const card = clone('tpl-call-invalid');
    // The tag's own line breaks say nothing about the call.
    fill(card, { reason: e.call.reason, raw: (e.call.raw ?? '').replace(/^\n+|\n+$/g, '') });
    meta(card, `${parsedBy(e.call.parsed_by)} · call ${e.call.index + 1}`);
    this.placeCall(r, e.call.index, card);
  },

  // A stop, an error or the length limit ended the reply inside a call:
  // the model did not write it broken, so it is no invalid call.
  [EventType.ToolCallCut](e) {
    const r = this.round(e.round);
    let card = r.calls.get(e.call.index);
    if (!card) {
      card = r.add('call-live');
      slot(card, 'text').append(e.call.raw ?? '');
      r.calls.set(e.call.index, card);
    }
    card.classList.remove('is-live');
    partial(card, e.reason === Reason.Cancelled ? 'Stopped: partial call' : 'Cut off: partial call');
    meta(card, `not run · call ${e.call.index + 1}`);
  },

  [EventType.ToolCallInThinking](e) {
    // The reply ended before </think>, after a call the model wrote there.
    this.notice(this.round(e.round), 'A tool call inside thinking was not run',
      `The model wrote ${e.text} while thinking, and its reply ended before </think>. ` +
      'Calls inside thinking are plans, so toolscope did not run it.');
  },

  [EventType.ToolStarted](e) {
    const r = this.round(e.round);
    const card = execCard(r, e.call);
    card.classList.add('is-live');
    title(card, `Executing ${e.call.name}`);
    const timer = slot(card, 'meta').querySelector('.timer');
    timer.setAttribute('role', 'timer');
    const start = performance.now();
    const tick = () => {
      timer.textContent = `${((performance.now() - start) / 1000).toFixed(1)} s`;
    };
    tick();
    r.execs.set(e.call.index, { card, timer: setInterval(tick, 100) });
  },

  [EventType.ToolFinished](e) {
    const r = this.round(e.round);
    // A result typed at a pause (step mode) comes with no tool_started:
    // no tool ran, so there is no time to show.
    const faked = r.faked.has(e.call.index);
    if (!r.execs.has(e.call.index)) r.execs.set(e.call.index, { card: execCard(r, e.call) });
    const exec = r.execs.get(e.call.index);
    clearInterval(exec.timer);
    const { card } = exec;
    card.classList.remove('is-live');
    // A tool the person stopped did not fail.
    card.classList.toggle('is-failed', Boolean(e.error) && !e.stopped);
    card.classList.toggle('is-stopped', Boolean(e.stopped));
    title(card, execTitle(e, faked));
    slot(card, 'meta').querySelector('.timer').textContent = faked ? 'faked' : duration(e.duration_ms ?? 0);
    if (e.error) {
      fill(card, { error: e.error });
      slot(card, 'error').hidden = false;
    } else {
      // The exact text the tool returned: the model reads the same.
      fill(card, { result: e.result ?? '' });
      slot(card, 'result').hidden = false;
      resultParts(card, e);
    }
    if (e.wire?.length) {
      const list = slot(card, 'wire-list');
      for (const m of e.wire) {
        list.append(fill(clone('tpl-wire'), { direction: m.direction, body: JSON.stringify(m.body, null, 2) }));
      }
      fill(card, { 'wire-count': `(${plural(e.wire.length, 'message')})` });
      // Every message of a call belongs to the revision its server speaks.
      const protocol = e.wire.find((m) => m.protocol)?.protocol;
      if (protocol) {
        fill(card, { 'wire-protocol': `· MCP ${protocol}` });
        slot(card, 'wire-protocol').hidden = false;
      }
      slot(card, 'wire').hidden = false;
    }
  },

  [EventType.ToolResponse](e) {
    const card = this.round(e.round).add('response');
    appendMarked(slot(card, 'text'), e.text, { marks: this.marks });
    meta(card, `added as a user turn · ${plural(e.text.length, 'character')}`);
  },

  // Step mode: the run waits on the page (step.js draws the controls).
  [EventType.Paused](e) {
    showPause(this, e);
  },

  [EventType.Edited](e) {
    const { what, call } = e.change;
    if (what === 'result' || what === 'error') this.round(e.round).faked.add(call);
    if (what === 'arguments') showEditedArguments(this.round(e.round).calls.get(call), e.change);
    markEdited(this, e);
  },

  [EventType.RoundFinished](e) {
    const r = this.round(e.round);
    r.endReply();
    const s = e.stats ?? {};
    // A reply cut by a stop or an error has no counters; the error event
    // says why. One cut at the length limit has them, but is cut all the same.
    r.replied = Boolean(s.done_reason) && s.done_reason !== 'length';
    if (!s.done_reason) return;
    const seconds = (s.eval_ms ?? 0) / 1000;
    fill(r.el, {
      prompt_tokens: plural(s.prompt_tokens ?? 0, 'token'),
      output_tokens: plural(s.output_tokens ?? 0, 'token'),
      first_token: duration(s.first_token_ms ?? 0),
      // The demo model's pace is a setting, not a measure of any model.
      speed: seconds > 0 ? `${(s.output_tokens / seconds).toFixed(1)} tok/s${this.info?.demo ? ' (scripted)' : ''}` : '—',
      done_reason: s.done_reason,
    });
    slot(r.el, 'stats').classList.add('is-filled');
  },

  [EventType.Error](e) {
    const r = e.round > 0 ? this.round(e.round) : null;
    // Only the backend fails a run: rendering the input, or streaming the reply.
    let where = 'before the first round';
    if (r) where = `round ${turnRound(this.turn, r.number)}, ${r.input ? 'while asking the model' : "while preparing the model's input"}`;
    errorCard(this.add(r, 'error'), e.error, where, e.fix);
  },

  [EventType.RunFinished](e) {
    const last = this.rounds.get(e.rounds) ?? [...this.rounds.values()].at(-1);
    for (const r of this.rounds.values()) r.close();
    if (e.reason !== Reason.Answered) last?.cutShort(e.reason);
    if (e.reason === Reason.Answered) {
      let card = last?.answer;
      if (!card) card = this.add(last, 'answer');
      card.classList.add('is-final');
      slot(card, 'text').textContent = e.text || '(the model wrote no text)';
      this.announce?.(e.text);
    } else if (e.reason === Reason.Cancelled) {
      this.notice(last, 'Stopped', 'The model request and any running tool were cancelled. What happened so far stays in the conversation.');
    } else if (e.reason === Reason.CutOff) {
      this.notice(last, 'Cut off: the model reached its context or token limit',
        'The reply stopped before the model finished it, so it is not an answer. Ask for something shorter, start a new conversation, ' +
        'or give the model more room: a larger context for Ollama (OLLAMA_CONTEXT_LENGTH=16384 ollama serve), or a larger max_tokens.');
    } else if (e.reason === Reason.MaxRounds) {
      this.notice(last, 'Round limit reached',
        `The model was still calling tools after ${plural(e.rounds, 'round')}. Raise “Max rounds” in Settings, or ask again.`);
    }
    const end = slot(this.turn, 'end');
    const how = finishedHow[e.reason] ?? e.reason;
    end.textContent = `${how} · ${plural(e.rounds ?? 0, 'round')} · ${duration(e.at_ms ?? 0)}`;
    end.dataset.reason = e.reason;
    end.hidden = false;
    this.finished = true;
  },

  // What an MCP server asks while its tool runs (asks.js).
  ...askHandlers,
};


/**
 * What a RunView tells the page, and asks of it; each may be absent.
 * @typedef {object} RunViewHooks
 * @property {(input: object, round: number, marks: Marks) => void} [showInput] opens "View LLM input"
 * @property {(n: number) => void} [onRound] a round started
 * @property {(text: string) => void} [announce] the answer, for screen readers
 * @property {(names: string[]) => void} [onTools] the tools the run offers the model
 * @property {(head: HTMLElement, round: number, input: object, settings?: Record<string, unknown>) => void} [onRoundHead]
 *   a round's header has been drawn; settings are the run's own, as run_started recorded them
 * @property {((body: object | undefined) => Promise<unknown>) | null} [continueRun] ends a pause in step mode (absent: the page cannot)
 * @property {((id: number, body: object) => Promise<unknown>) | null} [answerAsk] answers an MCP server's ask the run waits on (absent: the page cannot)
 * @property {(pause: object | null) => void} [onPause] the run waits on a pause (step mode), or no longer (null)
 * @property {number} [firstRound] for a rerun, the round of the run it reran, which its round 1 is
 */

/**
 * RunView draws one run into a turn. Feed it every event with apply; it
 * skips events it has seen, so a resumed stream may overlap.
 */
export class RunView {
  /**
   * @param {HTMLElement} turn from createTurn
   * @param {RunViewHooks} hooks
   */
  constructor(turn, hooks = {}) {
    this.showInput = hooks.showInput;
    this.onRound = hooks.onRound;
    this.announce = hooks.announce;
    this.onTools = hooks.onTools;
    this.onRoundHead = hooks.onRoundHead;
    this.continueRun = hooks.continueRun;
    this.answerAsk = hooks.answerAsk;
    this.onPause = hooks.onPause;
    this.turn = turn;
    if (hooks.firstRound) turn.dataset.firstRound = String(hooks.firstRound);
    this.roundsEl = slot(turn, 'rounds');
    this.rounds = new Map();
    this.seq = 0;
    this.info = null;
    this.marks = promptMarks; // until run_started gives the dialect's
    this.finished = false;
    /** @type {HTMLElement | null} the cards of no round, such as an error before the first */
    this.runSteps = null;
  }

  apply(e) {
    if (e.seq <= this.seq) return;
    this.seq = e.seq;
    handlers[e.type]?.call(this, e);
    // The loop map and presenter mode follow whichever view draws last.
    this.turn.dispatchEvent(new CustomEvent(RUN_EVENT, { bubbles: true, detail: e }));
  }

  /** lost ends the view when the event stream cannot be resumed. */
  lost(message) {
    if (this.finished) return;
    const last = [...this.rounds.values()].at(-1);
    for (const r of this.rounds.values()) r.close();
    last?.cutShort('lost');
    errorCard(this.add(last, 'error'), message, 'the event stream');
    this.finished = true;
  }

  round(n) {
    let r = this.rounds.get(n);
    if (!r) {
      r = new Round(n, this.turn, this.marks);
      this.rounds.set(n, r);
    }
    return r;
  }

  /** add appends a card to a round, or below the rounds when there is none. */
  add(round, kind) {
    if (round) return round.add(kind);
    const steps = (this.runSteps ??= this.roundsEl.appendChild(el('ol', 'steps run-steps')));
    const card = clone(`tpl-${kind}`);
    steps.append(card);
    return card;
  }

  notice(round, heading, text) {
    const card = this.add(round, 'notice');
    title(card, heading);
    fill(card, { text });
  }

  /** placeCall puts a finished call where its live card was, if any. */
  placeCall(round, index, card) {
    const live = round.calls.get(index);
    if (live) live.replaceWith(card);
    else round.steps.append(card);
    round.calls.set(index, card);
  }
}
