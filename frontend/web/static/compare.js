// compare.js: two kept runs side by side, rounds aligned: each round's LLM
// input as a line diff from the first run to the second, then each run's
// raw output, then its calls, results and counters. A rerun's rounds line
// up with the rounds of the run it reran. The Runs panel picks the two
// with a "Compare" box per run. Model text is set with textContent only.
import { clone, el, fill, plural, slot } from './dom.js';
import { EventType } from './events.js';
import { hunks, lineDiff } from './diff.js';
import { createTurn, duration, RunView } from './pipeline.js';

export class Compare {
  /**
   * @param {HTMLDialogElement} dialog the page's #compare-dialog
   * @param {HTMLElement} list the Runs panel's list, which the Compare button follows
   * @param {(url: string) => Promise<object>} get fetches JSON from the server
   */
  constructor(dialog, list, get) {
    this.dialog = dialog;
    this.list = list;
    this.get = get;
    this.picked = []; // run ids, oldest pick first; at most two
    this.button = Object.assign(document.createElement('button'), { type: 'button', className: 'compare-button', hidden: true });
    list.after(this.button);
    this.button.addEventListener('click', () => this.open(...this.picked));
    slot(dialog, 'close').addEventListener('click', () => dialog.close());
    dialog.addEventListener('click', (ev) => {
      if (ev.target === dialog) dialog.close();
    });
  }

  /** checkbox is a run's "Compare" box for the Runs panel. */
  checkbox(run) {
    const label = Object.assign(document.createElement('label'), { className: 'compare-pick' });
    const box = Object.assign(document.createElement('input'), { type: 'checkbox', checked: this.picked.includes(run.id) });
    box.dataset.compare = run.id;
    box.addEventListener('change', () => this.pick(run.id, box.checked));
    label.append(box, ' Compare');
    return label;
  }

  pick(id, on) {
    this.picked = this.picked.filter((p) => p !== id);
    if (on) this.picked.push(id);
    // A third pick replaces the oldest, so two boxes at most are checked.
    for (const old of this.picked.splice(0, Math.max(this.picked.length - 2, 0))) {
      /** @type {HTMLInputElement | null} */
      const box = this.list.querySelector(`[data-compare="${CSS.escape(old)}"]`);
      if (box) box.checked = false;
    }
    this.button.hidden = this.picked.length === 0;
    this.button.disabled = this.picked.length < 2;
    this.button.textContent = this.picked.length < 2 ? 'Tick one more run to compare' : 'Compare the two runs';
  }

  /** open shows runs a and b side by side. */
  async open(a, b) {
    const body = slot(this.dialog, 'body');
    body.replaceChildren(el('p', 'hint', 'Loading both runs…'));
    this.dialog.showModal();
    let runs;
    try {
      runs = (await Promise.all([a, b].map((id) => this.get(`/api/runs/${encodeURIComponent(id)}`)))).map(summarize);
    } catch (err) {
      body.firstChild.textContent = `Could not load the runs: ${err.message}`;
      return;
    }
    body.replaceChildren(header(runs), settingsDiff(runs));
    const last = Math.max(...runs.flatMap((r) => [...r.rounds.keys()]));
    const first = Math.min(...runs.map((r) => r.first));
    for (let n = first; n <= last; n++) body.append(compareRound(n, runs));
  }
}

/**
 * summarize reads a run's snapshot into its rounds: input, raw output,
 * calls, reply text, counters. They are numbered as in the conversation's
 * turn: a rerun's round 1 is the round it reran.
 */
function summarize(snap) {
  const first = snap.forked_from?.round ?? 1;
  const rounds = new Map();
  const round = (n) => {
    const at = n + first - 1;
    return rounds.get(at) ?? rounds.set(at, { calls: new Map(), text: '' }).get(at);
  };
  let info = null;
  for (const [n, raw] of rawOutputs(snap.events)) round(n).raw = raw;
  for (const e of snap.events) {
    switch (e.type) {
      case EventType.RunStarted:
        info = e.run;
        break;
      case EventType.RoundStarted:
        round(e.round).input = e.input;
        break;
      case EventType.Edited:
        // The model read the input as edited at its pause, not as first shown.
        if (e.change.what === 'input') Object.assign(round(e.round), { input: e.change.now, edited: true });
        break;
      case EventType.TextDelta:
        round(e.round).text += e.text;
        break;
      case EventType.ToolCallParsed:
      case EventType.ToolCallInvalid:
      case EventType.ToolCallCut:
        round(e.round).calls.set(e.call.index, { call: e.call, error: e.call.reason });
        break;
      case EventType.ToolFinished:
        round(e.round).calls.set(e.call.index, { call: e.call, result: e.result, error: e.error, ms: e.duration_ms });
        break;
      case EventType.RoundFinished:
        round(e.round).stats = e.stats;
        break;
    }
  }
  return { snap, info, rounds, first };
}

/**
 * rawOutputs draws a run off the page with the page's own renderer, and
 * returns each round's raw output as the live view shows it, marks
 * highlighted and thinking and calls tinted: {text, pre} by round.
 */
function rawOutputs(events) {
  const view = new RunView(createTurn(''));
  for (const e of events) view.apply(e);
  return [...view.rounds].filter(([, r]) => r.raw).map(([n, r]) => [n, { text: r.raw.stream.raw, pre: r.raw.stream.pre }]);
}

/** header names the two runs: what was asked, on what, how it ended. */
function header(runs) {
  const row = el('div', 'compare-sides compare-head');
  runs.forEach(({ snap, info }, i) => {
    const side = el('div', 'compare-side');
    side.append(el('h3', '', `${'AB'[i]} · ${snap.id}`), el('p', 'compare-message', snap.message));
    const how = [info?.model, info?.mode && `${info.mode} mode`, info?.dialect && `${info.dialect} calls`,
      snap.done ? `${snap.reason} after ${plural(snap.rounds, 'round')}` : 'running'];
    side.append(el('p', 'compare-meta', how.filter(Boolean).join(' · ')));
    if (snap.forked_from) side.append(el('p', 'compare-meta', `forked from ${snap.forked_from.run} at round ${snap.forked_from.round}`));
    row.append(side);
  });
  return row;
}

/**
 * settingsDiff lists the settings the two runs ran with that differ, from
 * each run's run_started settings: every value that shaped it, A's struck
 * and B's added, as in the input diff.
 */
function settingsDiff(runs) {
  const [a, b] = runs.map((r) => r.info?.settings);
  const section = el('section', 'compare-settings');
  if (!a || !b) {
    section.append(el('p', 'hint', 'Settings: not recorded by a run from before runs kept them.'));
    return section;
  }
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  const differ = keys.filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
  section.append(el('p', 'compare-label', differ.length ? `Settings that differ: ${differ.length} of ${keys.length}` : `Settings: all ${keys.length} the same`));
  const show = (v) => (v === undefined ? 'unset' : v === null ? 'auto' : typeof v === 'object' ? JSON.stringify(v) : String(v));
  const list = el('ul', 'compare-settings-list');
  for (const key of differ) {
    const item = el('li');
    item.append(el('code', '', key), ' ', el('span', 'diff-del', show(a[key])), ' → ', el('span', 'diff-add', show(b[key])));
    list.append(item);
  }
  if (differ.length) section.append(list);
  return section;
}

/** inputText is what a diff compares: the rendered prompts when both have one, else the message lists. */
function inputText(input, raw) {
  if (!input) return '';
  if (raw) return input.prompt;
  return (input.messages ?? []).map((m) => `[${m.role}]\n${m.content}`).join('\n\n');
}

function compareRound(n, runs) {
  const section = fill(clone('tpl-compare-round'), { number: String(n) });
  const [a, b] = runs.map((r) => r.rounds.get(n));
  const raw = Boolean(a?.input?.prompt && b?.input?.prompt);
  const diff = lineDiff(inputText(a?.input, raw), inputText(b?.input, raw));
  const changed = diff.filter((l) => l.op !== '=').length;
  const what = raw ? 'the rendered prompts' : 'the message lists';
  const edited = ['A', 'B'].filter((_, i) => runs[i].rounds.get(n)?.edited);
  const note = edited.length ? ` (as the model read them: ${edited.join(' and ')} edited at the pause)` : '';
  fill(section, { 'diff-summary': (changed ? `${plural(changed, 'line')} differ in ${what}` : `${what} are the same`) + note });
  const pre = slot(section, 'diff');
  for (const line of hunks(diff)) {
    if (line.op === '…') pre.append(el('span', 'diff-fold', `… ${plural(line.count, 'unchanged line')}\n`));
    else pre.append(el('span', { '=': 'diff-same', '-': 'diff-del', '+': 'diff-add' }[line.op], `${line.op === '=' ? ' ' : line.op} ${line.text}\n`));
  }
  runs.forEach((run, i) => {
    slot(section, `raw-${'ab'[i]}`).append(...rawSide(run.rounds.get(n)));
    slot(section, 'ab'[i]).append(...side(run, n));
  });
  return section;
}

/** rawSide is one run's raw output in a round, where the two dialects differ most. */
function rawSide(r) {
  if (!r?.raw) return [];
  return [el('p', 'compare-label', `Raw output · ${plural(r.raw.text.length, 'character')}`), r.raw.pre];
}

/** side is one run's round: its calls and results, its reply, its counters. */
function side(run, n) {
  const r = run.rounds.get(n);
  if (n < run.first) return [el('p', 'hint', `No round ${n}: this run reran the conversation from round ${run.first}.`)];
  if (!r) {
    const ended = run.rounds.size ? `after round ${Math.max(...run.rounds.keys())}` : 'before its first round';
    return [el('p', 'hint', `No round ${n}: the run ended ${ended}.`)];
  }
  const out = [];
  const calls = el('ul', 'compare-calls');
  for (const { call, result, error, ms } of r.calls.values()) {
    const item = el('li', error ? 'is-error' : '');
    item.append(el('code', '', `${call.name ?? '(unreadable call)'}(${call.arguments ? JSON.stringify(call.arguments) : call.raw ?? ''})`));
    const outcome = error ? `error: ${error}` : result !== undefined ? result : 'not run';
    item.append(el('pre', 'compare-result', ms !== undefined ? `→ ${outcome}  (${duration(ms)})` : `→ ${outcome}`));
    calls.append(item);
  }
  if (r.calls.size) out.push(calls);
  if (r.text.trim()) out.push(el('p', 'compare-reply', r.text.trim()));
  const s = r.stats;
  if (s) {
    const total = s.total_ms ? `total ${duration(s.total_ms)}` : '';
    out.push(el('p', 'compare-meta', [`prompt ${s.prompt_tokens} tok`, `output ${s.output_tokens} tok`,
      `first token ${duration(s.first_token_ms)}`, total, `done: ${s.done_reason}`].filter(Boolean).join(' · ')));
  }
  return out;
}
