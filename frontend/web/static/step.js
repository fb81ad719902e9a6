// step.js: step mode on the page. A paused run shows, on the card of what
// it waits on, the controls that continue it, unchanged or edited; each
// change the run reports marks its card "edited". The controls go as soon
// as the run moves on, whoever continued it, or when it is stopped; the
// view's onPause hook hears both, for the page's status line.
import { el, shorten, slot } from './dom.js';
import { EventType } from './events.js';
import { RUN_EVENT } from './runevent.js';
import { shortcut, typing } from './keys.js';

// The pauses that wait on this page, newest last: Space continues the newest.
const waiting = [];

/** waitsFor says what a pause waits on: "before the model call". */
export function waitsFor(pause) {
  if (pause.at === 'call') return `before ${pause.call?.name ?? 'the tool'} runs`;
  return pause.at === 'input' ? 'before the model call' : 'before the response goes back';
}

/** pausedOn returns the pause a view's run waits on (as a paused event has it), or null. */
export function pausedOn(view) {
  return view.step?.pause?.pause ?? null;
}

/**
 * showPause draws the controls of a paused event on its card. Without the
 * view's continueRun hook (a viewer's page, a recording) it only says that
 * the run waits.
 */
export function showPause(view, e) {
  const state = follow(view);
  const p = e.pause;
  const r = view.round(e.round);
  let card;
  if (p.at === 'input') card = r.steps.querySelector('.step-send');
  else if (p.at === 'call') card = r.calls.get(p.call.index);
  if (!card) {
    // The tool response card is drawn once the response has gone back, so
    // the response waits in a card of its own.
    card = r.add('notice');
    card.classList.add('step-pause');
    slot(card, 'title').textContent = 'Tool response, before the model reads it';
    slot(card, 'text').remove();
    state.extra = card;
  }
  card.classList.add('is-paused');
  card.querySelector('details').open = true;
  const panel = el('div', 'step-controls');
  card.querySelector('.step-body').append(panel);
  state.pause = { seq: e.seq, pause: p, card, panel };
  view.onPause?.(p);
  if (!view.continueRun) {
    panel.append(el('p', 'hint', `Paused ${waitsFor(p)}: waiting for the operator to continue.`));
    return;
  }
  const pause = { panel, go: (body) => go(panel, view, body) };
  state.pause.entry = pause;
  waiting.push(pause);
  controls[p.at](panel, p, pause.go);
  const hint = el('p', 'hint', 'Space continues unchanged.');
  if (p.until) hint.append(' ', deadline(p.until));
  panel.append(hint);
  takeFocus(panel);
}

/** deadline says until when a pause waits: the server stops the run then. */
function deadline(until) {
  const at = new Date(until);
  /** @type {Intl.DateTimeFormatOptions} */
  const clock = { hour: 'numeric', minute: '2-digit' };
  const today = at.toDateString() === new Date().toDateString();
  const time = el('time', '', today ? at.toLocaleTimeString([], clock) : at.toLocaleString([], { month: 'short', day: 'numeric', ...clock }));
  time.dateTime = until;
  const note = el('span', 'step-deadline', 'Waits until ');
  note.append(time, '; then the run is stopped.');
  return note;
}

/**
 * takeFocus moves the keyboard to a pause, so that Space continues it as
 * its hint says, unless someone is typing elsewhere: their text keeps it.
 */
function takeFocus(panel) {
  if (typing(document.activeElement)) return;
  panel.tabIndex = -1;
  panel.focus({ preventScroll: true });
}

/**
 * markEdited marks the card of what an edited event changed, with what
 * was there in its title. The tool's card and the response's are drawn
 * after the event, so they are marked when they appear.
 */
export function markEdited(view, e) {
  const state = follow(view);
  const c = e.change;
  const r = view.round(e.round);
  const note = editNote(c);
  if (c.at === 'input') badge(r.steps.querySelector('.step-send'), note);
  if (c.at === 'call') badge(r.calls.get(c.call), note);
  if (c.at === 'response' || c.what === 'arguments' || c.what === 'result' || c.what === 'error') {
    state.pending.push({ round: e.round, call: c.call, at: c.at, note });
  }
}

/** follow keeps a view's step state, and tidies it after each event. */
function follow(view) {
  if (view.step) return view.step;
  /**
   * The pause the run waits on, the card drawn for it when it had none,
   * and the edits whose cards are not drawn yet.
   * @type {{pause: {seq: number, pause: object, card: HTMLElement, panel: HTMLElement, entry?: object} | null, extra: HTMLElement | null, pending: object[]}}
   */
  const state = { pause: null, extra: null, pending: [] };
  view.step = state;
  view.turn.addEventListener(RUN_EVENT, (ev) => {
    const e = ev.detail;
    if (state.pause && e.seq > state.pause.seq) {
      endPause(state);
      view.onPause?.(null);
    }
    if (e.type === EventType.ToolStarted || e.type === EventType.ToolFinished || e.type === EventType.ToolResponse) markLater(view, state, e);
  });
  return view.step;
}

function endPause(state) {
  const { card, panel, entry } = state.pause;
  panel.remove();
  card.classList.remove('is-paused');
  state.extra?.remove();
  if (entry) waiting.splice(waiting.indexOf(entry), 1);
  state.pause = null;
  state.extra = null;
}

/** markLater marks the tool's or the response's card once it is drawn. */
function markLater(view, state, e) {
  const r = view.rounds.get(e.round);
  const onCall = (m) => m.round === e.round && m.at === 'call' && m.call === e.call?.index;
  const onResponse = (m) => m.round === e.round && m.at === 'response';
  const matches = e.type === EventType.ToolResponse ? onResponse : onCall;
  for (const m of state.pending.filter(matches)) {
    const card = e.type === EventType.ToolResponse ? [...r.steps.querySelectorAll('.step-response')].at(-1) : r.execs.get(m.call)?.card;
    if (!card) continue;
    badge(card, m.note);
    state.pending.splice(state.pending.indexOf(m), 1);
  }
}

function badge(card, note) {
  if (!card) return;
  card.classList.add('is-edited');
  let mark = card.querySelector('.edited-badge');
  if (!mark) {
    mark = el('span', 'badge edited-badge', 'edited');
    slot(card, 'title').after(mark);
  }
  mark.title = mark.title ? `${mark.title}\n\n${note}` : note;
}

// A badge's title shows this much, at most, of what an edit replaced.
const WAS_CHARS = 1200;

/** editNote says, for a badge's title, what an edit replaced. */
function editNote(c) {
  const was = c.was ?? '';
  switch (c.what) {
    case 'skip':
      return 'Skipped at a pause: the tool did not run.';
    case 'result':
    case 'error':
      return `The ${c.what === 'error' ? 'error' : 'result'} was typed at a pause: the tool did not run.`;
    case 'input':
      return `Edited at a pause. Was:\n${shorten(was.mode === 'chat' ? JSON.stringify(was.messages, null, 1) : was.prompt ?? '', WAS_CHARS)}`;
    case 'arguments': {
      const history = c.not_written
        ? `The conversation keeps the model's own call: ${c.not_written}.`
        : "The conversation holds the edited call in place of the model's.";
      return `Edited at a pause. Was:\n${shorten(JSON.stringify(was), WAS_CHARS)}\n\n${history}`;
    }
    default:
      return `Edited at a pause. Was:\n${shorten(typeof was === 'string' ? was : JSON.stringify(was), WAS_CHARS)}`;
  }
}

// ---- the controls at each pause -------------------------------------------

const controls = {
  input(panel, p, go) {
    const chat = p.input.mode === 'chat';
    const original = chat ? JSON.stringify(p.input.messages ?? [], null, 2) : p.input.prompt;
    const box = editor(panel, chat ? 'The messages, as JSON' : 'The raw prompt', original);
    panel.append(row(button('Send', 'primary', () => {
      if (box.value === original) return go();
      if (!chat) return go({ input: { ...p.input, prompt: box.value } });
      const messages = parse(panel, box.value, 'The messages');
      if (messages) go({ input: { ...p.input, messages } });
    }), button('Continue unchanged', 'ghost', () => go())));
  },

  call(panel, p, go) {
    const more = document.createElement('div');
    const open = (build) => () => {
      more.replaceChildren();
      build(more);
      more.querySelector('textarea')?.focus();
    };
    panel.append(row(
      button('Run', 'primary', () => go()),
      button('Edit arguments', 'ghost', open((form) => {
        const box = editor(form, 'Arguments, as JSON', JSON.stringify(p.call.arguments ?? {}, null, 2));
        form.append(row(button('Run with these arguments', 'primary', () => {
          const args = parse(panel, box.value, 'The arguments');
          if (args) go({ arguments: args });
        })));
      })),
      button('Fake result', 'ghost', open((form) => {
        const box = editor(form, 'What the tool returns', '');
        const asError = Object.assign(document.createElement('input'), { type: 'checkbox' });
        const label = document.createElement('label');
        label.append(asError, ' as an error');
        form.append(row(label, button('Send this result', 'primary', () => {
          if (!asError.checked) return go({ result: box.value });
          // An empty error would read as no edit at all.
          if (!box.value.trim()) return problem(panel, 'Type the error the tool reports.');
          go({ error: box.value });
        })));
      })),
      button('Skip', 'ghost', () => go({ skip: true })),
    ), more);
  },

  response(panel, p, go) {
    const box = editor(panel, 'The text the model reads back', p.response ?? '');
    panel.append(row(button('Send', 'primary', () => go(box.value === p.response ? undefined : { response: box.value }))));
  },
};

/** go continues the run; an edit that does not fit says why in the panel. */
async function go(panel, view, body) {
  if (panel.classList.contains('is-busy')) return; // one continue per pause
  problem(panel, '');
  panel.classList.add('is-busy');
  for (const b of panel.querySelectorAll('button')) b.disabled = true;
  try {
    await view.continueRun(body);
  } catch (err) {
    problem(panel, err.message);
    panel.classList.remove('is-busy');
    for (const b of panel.querySelectorAll('button')) b.disabled = false;
  }
}

function problem(panel, message) {
  let p = panel.querySelector('.step-error');
  if (!p) {
    p = el('p', 'step-error', '');
    p.setAttribute('role', 'alert');
    panel.append(p);
  }
  p.textContent = message;
  p.hidden = !message;
}

function parse(panel, value, what) {
  try {
    return JSON.parse(value);
  } catch (err) {
    problem(panel, `${what} are not JSON: ${err.message}`);
    return null;
  }
}

function editor(parent, label, value) {
  const box = Object.assign(document.createElement('textarea'), { className: 'step-edit', value, spellcheck: false });
  box.rows = Math.min(14, Math.max(3, value.split('\n').length + 1));
  box.setAttribute('aria-label', label);
  parent.append(el('p', 'label', label), box);
  return box;
}

function button(label, className, onClick) {
  const b = Object.assign(el('button', className, label), { type: 'button' });
  b.addEventListener('click', onClick);
  return b;
}

function row(...children) {
  const div = el('div', 'step-actions');
  div.append(...children);
  return div;
}

// Space continues the newest pause unchanged, unless it is typing or
// pressing a control.
document.addEventListener('keydown', (ev) => {
  if (ev.key !== ' ' || !waiting.length || !shortcut(ev)) return;
  ev.preventDefault();
  waiting.at(-1).go();
});
