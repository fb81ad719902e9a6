// evals.js: the Evals view. The operator picks a bundled suite or
// uploads one, ticks the matrix (call formats, distractors, retrieval),
// and starts it (POST /api/evals); its progress streams in (case_finished,
// eval_finished), and the cells fill a table coloured by pass rate, with
// the Wilson interval. A cell lists its cases, each linking to its run
// (#run=…, which the session opens); the chart (evalchart.js) draws pass
// rate and prompt tokens against the tools offered. Suite and model text
// is set with textContent only.
import { el, plural, slot } from './dom.js';
import { get, request } from './api.js';
import { drawChart } from './evalchart.js';

/**
 * An EvalCell is one cell's tally, as GET /api/evals/{id} gives it.
 * @typedef {object} EvalCell
 * @property {number} index
 * @property {string} name
 * @property {Record<string, string | number>} settings
 * @property {number} distractors
 * @property {number} cases
 * @property {number} passed
 * @property {number} graded
 * @property {number} pass_rate
 * @property {[number, number]} interval
 * @property {number} prompt_tokens
 */

/**
 * An EvalCase is one case run.
 * @typedef {object} EvalCase
 * @property {string} id
 * @property {number} repeat
 * @property {number} cell
 * @property {boolean} pass
 * @property {string} [category]
 * @property {string} [message]
 * @property {string} [run_id]
 */

/**
 * An EvalStatus is GET /api/evals/{id}.
 * @typedef {object} EvalStatus
 * @property {string} id
 * @property {string} suite
 * @property {number} planned
 * @property {number} finished
 * @property {boolean} done
 * @property {boolean} cancelled
 * @property {boolean} demo
 * @property {number} tools
 * @property {EvalCell[]} cells
 * @property {EvalCase[]} cases
 */

/** upload is the suite select's value that asks for a file. */
const upload = '(upload)';

/** percent writes a rate to a tenth: 83.3%. */
const percent = (rate) => `${Math.round(rate * 1000) / 10}%`;

/** rateClass buckets a pass rate for its colour (css/evals.css). */
function rateClass(cell) {
  if (cell.graded === 0) return 'rate-none';
  const r = cell.pass_rate;
  return r >= 1 ? 'rate-all' : r >= 0.8 ? 'rate-high' : r >= 0.5 ? 'rate-mid' : r > 0 ? 'rate-low' : 'rate-zero';
}

export class Evals {
  /**
   * @param {HTMLDialogElement} dialog the page's #evals-dialog
   * @param {HTMLSelectElement} dialects the Settings panel's call formats, which the view offers
   */
  constructor(dialog, dialects) {
    this.dialog = dialog;
    this.dialects = dialects;
    /** @type {HTMLFormElement} */
    this.form = slot(dialog, 'form');
    /** @type {HTMLSelectElement} */
    this.suite = slot(dialog, 'suite');
    /** @type {HTMLInputElement} */
    this.file = slot(dialog, 'file');
    /** @type {EventSource | null} */
    this.source = null;
    /** @type {EvalStatus | null} */
    this.status = null;
    this.id = '';
    this.shownCell = -1;
    this.refreshing = false;
    slot(dialog, 'close').addEventListener('click', () => dialog.close());
    this.suite.addEventListener('change', () => this.suiteChanged());
    this.file.addEventListener('change', () => this.suiteChanged());
    this.form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      this.start();
    });
    slot(dialog, 'stop').addEventListener('click', () => this.stop());
    // A case's link opens its run in the chat, behind the dialog.
    slot(dialog, 'case-list').addEventListener('click', (ev) => {
      if (/** @type {Element} */ (ev.target).closest('a')) dialog.close();
    });
  }

  /** open shows the view, its choices read afresh; the first time, the server's eval, if any. */
  async open() {
    this.fillDialects();
    this.dialog.showModal();
    if (this.suite.options.length > 0) return;
    this.resume();
    try {
      const { suites } = await get('/api/evals/suites');
      for (const s of suites) {
        const option = new Option(`${s.name}: ${s.description}`, s.name);
        option.dataset.note = `${plural(s.cases, 'case')}, ${plural(s.tools, 'tool')} of its own`;
        this.suite.add(option);
      }
      this.suite.add(new Option('Upload a suite file (YAML or JSON)…', upload));
      this.suiteChanged();
    } catch (err) {
      this.error(`Could not list the suites: ${err.message}`);
    }
  }

  /**
   * resume shows the eval the server holds, running or done: one started
   * before a reload, or from another tab.
   */
  async resume() {
    /** @type {EvalStatus | {id?: undefined}} */
    const st = await get('/api/evals/latest').catch(() => ({}));
    if (!st.id || this.id) return; // none, or one started meanwhile
    if (st.done) {
      this.id = st.id;
      this.status = st;
      this.render(st);
    } else {
      this.follow(st.id, `/api/evals/${encodeURIComponent(st.id)}/events`, st.planned);
    }
  }

  /** fillDialects offers the Settings panel's call formats, the chosen one ticked. */
  fillDialects() {
    const box = slot(this.dialog, 'dialects');
    const ticked = new Set([...box.querySelectorAll('input:checked')].map((i) => /** @type {HTMLInputElement} */ (i).value));
    if (ticked.size === 0) ticked.add(this.dialects.value);
    box.replaceChildren(...[...this.dialects.options].map((o) => {
      const input = Object.assign(document.createElement('input'), { type: 'checkbox', name: 'dialects', value: o.value, checked: ticked.has(o.value) });
      const label = document.createElement('label');
      label.append(input, ` ${o.value}`);
      return label;
    }));
  }

  suiteChanged() {
    const uploading = this.suite.value === upload;
    this.file.hidden = !uploading;
    const note = slot(this.dialog, 'suite-note');
    note.textContent = uploading
      ? 'Stub and inline tools only: an uploaded suite cannot start MCP servers.'
      : (this.suite.selectedOptions[0]?.dataset.note ?? '');
  }

  /** body is the eval request the form says. */
  async body() {
    const data = new FormData(this.form);
    const numbers = (name) => data.getAll(name).map(Number);
    const body = {
      dialects: data.getAll('dialects'),
      distractors: numbers('distractors'),
      tools_top_k: data.getAll('tools_top_k'),
      repeat: Number(data.get('repeat')),
      parallel: Number(data.get('parallel')),
    };
    if (this.suite.value !== upload) return { ...body, suite: this.suite.value };
    const file = this.file.files?.[0];
    if (!file) throw new Error('Pick a suite file to upload.');
    return { ...body, upload: await file.text() };
  }

  async start() {
    this.error('');
    let started;
    try {
      started = await request('POST', '/api/evals', await this.body());
    } catch (err) {
      this.error(err.message);
      return;
    }
    this.follow(started.id, started.events, started.planned);
  }

  /** follow streams eval id's progress into the view. */
  follow(id, events, planned) {
    this.source?.close();
    this.id = id;
    this.status = null;
    this.shownCell = -1;
    slot(this.dialog, 'cases').hidden = true;
    this.running(true);
    let finished = 0;
    this.progress(finished, planned);
    const source = new EventSource(events);
    this.source = source;
    source.addEventListener('case_finished', () => {
      this.progress(++finished, planned);
      this.refreshSoon();
    });
    source.addEventListener('eval_finished', () => {
      // The stream ends after it; left open, EventSource would reconnect.
      source.close();
      this.running(false);
      this.refresh();
    });
  }

  async stop() {
    if (!this.id) return;
    try {
      await request('POST', `/api/evals/${encodeURIComponent(this.id)}/cancel`);
    } catch (err) {
      this.error(err.message);
    }
  }

  /** refreshSoon redraws the table from the server at most every half second while cases end. */
  refreshSoon() {
    if (this.refreshing) return;
    this.refreshing = true;
    setTimeout(() => {
      this.refreshing = false;
      this.refresh();
    }, 500);
  }

  async refresh() {
    const id = this.id;
    let status;
    try {
      status = await get(`/api/evals/${encodeURIComponent(id)}`);
    } catch (err) {
      this.error(`Could not read the eval: ${err.message}`);
      return;
    }
    if (id !== this.id) return; // another eval started meanwhile
    this.status = status;
    this.render(status);
  }

  /** @param {EvalStatus} st */
  render(st) {
    slot(this.dialog, 'demo').hidden = !st.demo;
    this.progress(st.finished, st.planned);
    if (st.done) {
      const stopped = st.cancelled ? `stopped: ${plural(st.planned - st.finished, 'case')} did not run; ` : '';
      slot(this.dialog, 'status').textContent = `${st.suite}: ${stopped}${plural(st.finished, 'case run')} in ${plural(st.cells.length, 'cell')}.`;
    }
    const table = slot(this.dialog, 'table');
    table.hidden = false;
    slot(table, 'cells').replaceChildren(...st.cells.map((c) => this.row(c)));
    const chart = slot(this.dialog, 'chart');
    chart.replaceChildren(...drawChart(st));
    chart.hidden = chart.childElementCount === 0;
    if (this.shownCell >= 0) this.showCases(this.shownCell);
  }

  /** @param {EvalCell} c */
  row(c) {
    const tr = document.createElement('tr');
    tr.dataset.cell = String(c.index);
    tr.tabIndex = 0;
    tr.title = 'Show its cases';
    const name = el('th', '', c.name);
    name.scope = 'row';
    const rate = el('td', `evals-rate ${rateClass(c)}`, c.graded ? percent(c.pass_rate) : '–');
    const interval = el('td', '', c.graded ? `${percent(c.interval[0])}–${percent(c.interval[1])}` : '–');
    const passed = el('td', '', `${c.passed} of ${c.graded}${c.cases > c.graded ? ` (${c.cases - c.graded} not graded)` : ''}`);
    const tokens = el('td', '', c.graded ? String(Math.round(c.prompt_tokens)) : '–');
    tr.append(name, rate, interval, passed, tokens);
    tr.classList.toggle('selected', c.index === this.shownCell);
    tr.addEventListener('click', () => this.showCases(c.index));
    tr.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter' || ev.key === ' ') {
        ev.preventDefault();
        this.showCases(c.index);
      }
    });
    return tr;
  }

  /** showCases lists the cases of cell index, failures first, each linking to its run. */
  showCases(index) {
    const st = this.status;
    if (!st) return;
    this.shownCell = index;
    for (const tr of this.dialog.querySelectorAll('tr[data-cell]')) {
      tr.classList.toggle('selected', /** @type {HTMLElement} */ (tr).dataset.cell === String(index));
    }
    const cases = st.cases.filter((c) => c.cell === index).sort((a, b) => Number(a.pass) - Number(b.pass));
    const box = slot(this.dialog, 'cases');
    box.hidden = false;
    slot(box, 'cases-title').textContent = `Cases of ${st.cells[index].name}`;
    slot(box, 'case-list').replaceChildren(...cases.map(caseItem));
  }

  progress(done, planned) {
    /** @type {HTMLProgressElement} */
    const bar = slot(this.dialog, 'progress');
    bar.hidden = false;
    bar.max = Math.max(planned, 1);
    bar.value = done;
    if (!this.status?.done) slot(this.dialog, 'status').textContent = `Running: ${done} of ${plural(planned, 'case run')}…`;
  }

  running(on) {
    slot(this.dialog, 'start').disabled = on;
    slot(this.dialog, 'stop').hidden = !on;
  }

  error(text) {
    const line = slot(this.dialog, 'error');
    line.textContent = text;
    line.hidden = !text;
  }
}

/** @param {EvalCase} c */
function caseItem(c) {
  const li = el('li', c.pass ? 'case-pass' : 'case-fail');
  li.append(el('span', 'case-verdict', c.pass ? 'pass' : c.category || 'fail'), ' ', el('strong', '', c.id));
  if (c.repeat > 1) li.append(` #${c.repeat}`);
  if (c.message) li.append(' ', el('span', 'case-message', c.message));
  if (c.run_id) {
    const a = el('a', 'case-run', 'open its run');
    a.setAttribute('href', `#run=${encodeURIComponent(c.run_id)}`);
    li.append(' ', a);
  }
  return li;
}
