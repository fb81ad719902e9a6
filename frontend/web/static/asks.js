// asks.js: what an MCP server asks while its tool runs, drawn as cards
// under the tool call: a form or a link for the person (elicitation), and
// a nested round of the model answering the server (sampling). A run that
// waits on the person shows the controls, when the view can answer
// (its answerAsk hook); a viewer's page or a recording shows the cards
// alone. The handlers run as the RunView's own (this is the view).
import { el, fill, plural, slot } from './dom.js';
import { EventType } from './events.js';

/** @typedef {import('./pipeline.js').RunView} RunView */

/** askCard is the card of ask a, drawing it in its round on first use. */
function askCard(view, e, kind) {
  view.asks ??= new Map();
  let card = view.asks.get(e.ask.id);
  if (!card) {
    card = view.round(e.round).add(kind);
    card.classList.add('is-server-ask');
    view.asks.set(e.ask.id, card);
  }
  return card;
}

function badge(card, text) {
  const meta = slot(card, 'meta');
  meta.textContent = '';
  meta.append(el('span', 'badge ask-badge', "server's request"), ` ${text}`);
}

// ---- forms ------------------------------------------------------------------

/** Input types for the string formats an elicitation may name. */
const formatTypes = { email: 'email', uri: 'url', date: 'date', 'date-time': 'datetime-local' };

/** choices are an enum field's values with their titles (enum, oneOf, or a list's items). */
function choices(p) {
  const src = p.type === 'array' ? (p.items ?? {}) : p;
  const titled = src.oneOf ?? src.anyOf;
  if (titled) return titled.map((c) => ({ value: c.const, title: c.title ?? c.const }));
  return (src.enum ?? []).map((v, i) => ({ value: v, title: p.enumNames?.[i] ?? v }));
}

/** field draws one field of a form, its schema's default filled in. */
function field(name, p, required) {
  const row = el('div', 'ask-field');
  const id = `ask-${Math.random().toString(36).slice(2)}-${name}`;
  const label = el('label', '', p.title ?? name);
  label.htmlFor = id;
  if (required) label.append(el('span', 'ask-required', ' (required)'));
  let input;
  const options = choices(p);
  if (p.type === 'array') {
    input = el('fieldset', 'ask-checks');
    input.append(Object.assign(el('legend', 'visually-hidden', p.title ?? name)));
    for (const c of options) {
      const box = Object.assign(document.createElement('input'), { type: 'checkbox', value: c.value, name });
      box.checked = (p.default ?? []).includes(c.value);
      const l = el('label', 'ask-check');
      l.append(box, ` ${c.title}`);
      input.append(l);
    }
    input.id = id;
    row.append(el('span', 'ask-label', p.title ?? name), input);
  } else if (options.length) {
    input = document.createElement('select');
    if (!required || p.default === undefined) input.append(Object.assign(el('option', '', '—'), { value: '' }));
    for (const c of options) input.append(Object.assign(el('option', '', c.title), { value: c.value }));
    input.value = p.default ?? '';
  } else if (p.type === 'boolean') {
    input = Object.assign(document.createElement('input'), { type: 'checkbox' });
    input.checked = Boolean(p.default);
  } else {
    input = document.createElement('input');
    if (p.type === 'number' || p.type === 'integer') {
      input.type = 'number';
      input.step = p.type === 'integer' ? '1' : 'any';
      if (p.minimum !== undefined) input.min = String(p.minimum);
      if (p.maximum !== undefined) input.max = String(p.maximum);
    } else {
      input.type = formatTypes[p.format] ?? 'text';
      if (p.minLength !== undefined) input.minLength = p.minLength;
      if (p.maxLength !== undefined) input.maxLength = p.maxLength;
    }
    if (p.default !== undefined) input.value = String(p.default);
  }
  if (p.type !== 'array') {
    input.id = id;
    input.required = required && p.type !== 'boolean';
    row.append(label, input);
  }
  input.dataset.field = name;
  input.dataset.kind = p.type ?? 'string';
  if (p.description) row.append(el('p', 'hint', p.description));
  return row;
}

/** formContent reads a form's fields as the server's schema types them; empty optional fields are left out. */
function formContent(form) {
  const content = {};
  for (const input of form.querySelectorAll('[data-field]')) {
    const name = input.dataset.field;
    if (input.dataset.kind === 'array') {
      content[name] = [...input.querySelectorAll('input:checked')].map((b) => b.value);
    } else if (input.dataset.kind === 'boolean') {
      content[name] = input.checked;
    } else if (input.value !== '') {
      content[name] = input.dataset.kind === 'number' || input.dataset.kind === 'integer' ? Number(input.value) : input.value;
    }
  }
  return content;
}

/** buttons draws the actions of an ask; each posts its reply, and the card says what failed. */
function buttons(view, card, id, actions) {
  const row = el('div', 'ask-actions');
  const error = el('p', 'step-error ask-error');
  error.hidden = true;
  for (const { text, primary, reply, type } of actions) {
    const b = el('button', primary ? 'primary' : '', text);
    b.type = type ?? 'button';
    if (type !== 'submit') {
      b.addEventListener('click', () => send(view, card, id, reply(), error));
    }
    row.append(b);
  }
  return { row, error };
}

async function send(view, card, id, body, error) {
  for (const b of card.querySelectorAll('.ask-actions button')) b.disabled = true;
  try {
    await view.answerAsk(id, body);
    error.hidden = true;
  } catch (err) {
    error.textContent = `Not sent: ${err.message}`;
    error.hidden = false;
    for (const b of card.querySelectorAll('.ask-actions button')) b.disabled = false;
  }
}

/** webLink is url parsed when it is an http or https link, else null: only a web page is opened. */
function webLink(url) {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u : null;
  } catch {
    return null;
  }
}

/** @this {RunView} */
function elicitationRequested(e) {
  const card = askCard(this, e, 'ask');
  const q = e.ask.elicitation;
  const server = e.ask.server;
  badge(card, `· elicitation · during call ${e.ask.call + 1}`);
  fill(card, { title: q.mode === 'url' ? `${server} asks you to open a link` : `${server} asks you`, message: q.message });
  const body = slot(card, 'body');
  const can = e.ask.waiting && this.answerAsk;
  // Only this event carries the question: the later ones read its mode here.
  card.dataset.mode = q.mode;
  if (q.mode === 'url') {
    const web = webLink(q.url);
    if (!web) {
      // toolscope refuses such a link (agent.checkElicitation); a recording
      // from before may hold one: show it as text, never as a link.
      body.append(el('p', 'ask-host', 'Not a web link (only http and https ones are opened):'), el('code', 'ask-link', q.url));
      return;
    }
    const link = Object.assign(el('a', 'ask-link', q.url), { href: web.href, target: '_blank', rel: 'noopener noreferrer' });
    body.append(el('p', 'ask-host', `The link leads to ${web.host}:`), link);
    if (can) {
      const { row, error } = buttons(this, card, e.ask.id, [
        { text: 'Open the link', primary: true, reply: () => { window.open(web.href, '_blank', 'noopener'); return { action: 'accept' }; } },
        { text: 'Decline', reply: () => ({ action: 'decline' }) },
        { text: 'Cancel', reply: () => ({ action: 'cancel' }) },
      ]);
      body.append(row, error);
    }
    return;
  }
  const schema = q.schema ?? {};
  const form = el('form', 'ask-form');
  const required = new Set(schema.required ?? []);
  for (const [name, p] of Object.entries(schema.properties ?? {})) form.append(field(name, p, required.has(name)));
  body.append(form);
  if (!can) {
    form.inert = true;
    return;
  }
  const { row, error } = buttons(this, card, e.ask.id, [
    { text: 'Accept', primary: true, type: 'submit' },
    { text: 'Decline', reply: () => ({ action: 'decline' }) },
    { text: 'Cancel', reply: () => ({ action: 'cancel' }) },
  ]);
  form.append(row, error);
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    send(this, card, e.ask.id, { action: 'accept', content: formContent(form) }, error);
  });
  card.classList.add('is-paused');
  form.querySelector('input, select')?.focus({ preventScroll: true });
}

const actionWords = { accept: 'Accepted', decline: 'Declined', cancel: 'Cancelled' };

/** @this {RunView} */
function elicitationAnswered(e) {
  const card = askCard(this, e, 'ask');
  card.classList.remove('is-paused');
  for (const part of card.querySelectorAll('.ask-actions, .ask-error')) part.remove();
  const form = card.querySelector('.ask-form');
  if (form) form.inert = true;
  const outcome = slot(card, 'outcome');
  outcome.hidden = false;
  if (e.error) {
    outcome.textContent = `Refused: ${e.error}`;
    outcome.dataset.action = 'decline';
    return;
  }
  const r = e.reply;
  let text = actionWords[r.action] ?? r.action;
  if (r.content && Object.keys(r.content).length) text += `: ${JSON.stringify(r.content)}`;
  if (r.note) text += ` (${r.note})`;
  if (r.action === 'accept' && card.dataset.mode === 'url') text += ' · waiting for the server to say it is done…';
  outcome.textContent = text;
  outcome.dataset.action = r.action;
}

/** @this {RunView} */
function elicitationCompleted(e) {
  const card = askCard(this, e, 'ask');
  const outcome = slot(card, 'outcome');
  outcome.textContent = 'Accepted · the server says the link’s task is done';
  outcome.hidden = false;
}

// ---- sampling ---------------------------------------------------------------

/** @this {RunView} */
function samplingRequested(e) {
  const card = askCard(this, e, 'sample');
  const s = e.ask.sampling;
  fill(card, { title: `${e.ask.server} asks the model` });
  badge(card, `· sampling · during call ${e.ask.call + 1}`);
  const facts = [`max tokens ${s.max_tokens} asked, ${s.granted_tokens} given`];
  if (s.include_context && s.include_context !== 'none') facts.push(`context: ${s.include_context}`);
  if (s.temperature !== undefined) facts.push(`temperature ${s.temperature}`);
  fill(card, { facts: facts.join(' · ') });
  const msgs = slot(card, 'messages');
  if (s.system_prompt) msgs.append(message('system', s.system_prompt));
  for (const m of s.messages ?? []) msgs.append(message(m.role, m.text));
  if (s.model_preferences) {
    fill(card, { prefs: `Model preferences (shown; the run's own model answers): ${JSON.stringify(s.model_preferences)}` });
    slot(card, 'prefs').hidden = false;
  }
  if (e.input) {
    const prompt = e.input.mode === 'raw' ? e.input.prompt : JSON.stringify(e.input.messages, null, 2);
    fill(card, { prompt });
    slot(card, 'prompt-box').hidden = false;
  }
  card.classList.add('is-live');
}

function message(role, text) {
  const li = el('li', 'ask-message');
  li.append(el('span', 'role', role), el('span', 'ask-message-text', text));
  return li;
}

/** @this {RunView} */
function samplingToken(e) {
  const card = askCard(this, e, 'sample');
  const raw = slot(card, 'raw');
  raw.append(e.region === 'think' ? el('span', 'think', e.text) : e.text);
  slot(card, 'raw-box').hidden = false;
}

/** @this {RunView} */
function samplingFinished(e) {
  const card = askCard(this, e, 'sample');
  card.classList.remove('is-live');
  const answer = e.ask.sampling.answer ?? '';
  fill(card, { answer });
  slot(card, 'answer-box').hidden = false;
  if (e.stats) fill(card, { stats: `${plural(e.stats.output_tokens ?? 0, 'token')} · ${e.stats.done_reason}` });
  if (!(e.ask.waiting && this.answerAsk)) return;
  // Step mode: the person sends the answer back, edited or not, or declines.
  card.classList.add('is-paused');
  const edit = Object.assign(el('textarea', 'step-edit ask-edit'), { value: answer, rows: 3 });
  edit.setAttribute('aria-label', 'The answer the server gets');
  const { row, error } = buttons(this, card, e.ask.id, [
    { text: 'Send back', primary: true, reply: () => (edit.value === answer ? { action: 'accept' } : { action: 'accept', answer: edit.value }) },
    { text: 'Decline', reply: () => ({ action: 'decline' }) },
  ]);
  slot(card, 'answer-box').append(edit, row, error);
}

/** @this {RunView} */
function samplingAnswered(e) {
  const card = askCard(this, e, 'sample');
  card.classList.remove('is-live', 'is-paused');
  for (const part of card.querySelectorAll('.ask-actions, .ask-error, .ask-edit')) part.remove();
  const outcome = slot(card, 'outcome');
  if (e.error) {
    outcome.textContent = `Refused: ${e.error}`;
    outcome.dataset.action = 'decline';
  } else {
    const edited = e.reply.answer !== undefined && e.reply.answer !== e.ask.sampling.answer;
    outcome.textContent = edited ? `Sent back, edited: ${e.reply.answer}` : 'Sent back to the server';
    outcome.dataset.action = 'accept';
  }
  outcome.hidden = false;
}

/** askHandlers are the RunView's handlers of the events of a server's asks. */
export const askHandlers = {
  [EventType.ElicitationRequested]: elicitationRequested,
  [EventType.ElicitationAnswered]: elicitationAnswered,
  [EventType.ElicitationCompleted]: elicitationCompleted,
  [EventType.SamplingRequested]: samplingRequested,
  [EventType.SamplingToken]: samplingToken,
  [EventType.SamplingFinished]: samplingFinished,
  [EventType.SamplingAnswered]: samplingAnswered,
};
