// runlist.js: the Runs panel, on the operator's page. It lists the runs the
// server keeps and those of its history, newest first, polling for runs
// that start without the page (through the API), and filters them with
// its search box. Each entry says where the run came from, what was asked,
// what it ran on (model, dialect, mode: what tells two runs of one request
// apart for Compare), its state and when it started.
import { el } from './dom.js';

// The list is polled every POLL_MS: runs from the API start without the page.
const POLL_MS = 2000;

/**
 * startedAt says when a run started, in the reader's locale: the time for
 * a run of today, the date too for one of an earlier day, and the year for
 * one of an earlier year.
 */
export function startedAt(iso) {
  const at = new Date(iso);
  const now = new Date();
  if (at.toDateString() === now.toDateString()) return at.toLocaleTimeString();
  /** @type {Intl.DateTimeFormatOptions} */
  const date = { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' };
  if (at.getFullYear() !== now.getFullYear()) date.year = 'numeric';
  return at.toLocaleString(undefined, date);
}

export class RunList {
  /**
   * @param {{list: HTMLOListElement, search: HTMLInputElement, history: HTMLElement, none: HTMLElement}} ui
   * @param {{get: (url: string) => Promise<any>, open: (run: import('./api.js').Run) => void, compare: import('./compare.js').Compare}} deps
   */
  constructor(ui, { get, open, compare }) {
    this.list = ui.list;
    this.search = ui.search;
    this.history = ui.history;
    this.none = ui.none;
    this.get = get;
    this.open = open;
    this.compare = compare;
    this.asked = 0; // numbers the requests, so that an older answer never replaces a newer one
    this.items = new Map(); // run id → {shows: what its entry says, item: the entry}
    let typing;
    this.search.addEventListener('input', () => {
      clearTimeout(typing);
      typing = setTimeout(() => this.refresh(), 200);
    });
  }

  /** poll refreshes the list now, then every POLL_MS. */
  async poll() {
    await this.refresh();
    setTimeout(() => this.poll(), POLL_MS);
  }

  /** refresh shows the runs that match the search box: kept ones and past ones from the history. */
  async refresh() {
    const asked = ++this.asked;
    const q = this.search.value.trim();
    try {
      const { runs, history, history_error: problem } = await this.get(q ? `/api/runs?q=${encodeURIComponent(q)}` : '/api/runs');
      if (asked !== this.asked) return;
      this.show(runs);
      this.none.hidden = runs.length > 0;
      this.none.textContent = q ? `No run matches “${q}”.` : 'No runs yet: send a message, or start one through the API.';
      // A history that fails mid-session (a full disk) says so at the next poll.
      this.showHistory(problem ? { on: false, off: problem } : history);
    } catch {
      // The status line already says when toolscope cannot be reached.
    }
  }

  /** showHistory says, under the search box, when past runs are not kept. */
  showHistory(history) {
    if (!history) return;
    this.history.hidden = history.on;
    this.history.textContent = history.on ? '' : `History is off: ${history.off}`;
  }

  /**
   * show puts runs in the list, newest first. An entry whose run looks as
   * it did at the last poll stays the same element, where it was: a poll
   * every POLL_MS would otherwise take the keyboard's focus off the entry,
   * or off its Compare box, each time.
   */
  show(runs) {
    const active = document.activeElement;
    const focused = active instanceof HTMLElement && this.list.contains(active) ? active : null;
    const wanted = runs.map((run) => {
      const shows = JSON.stringify([run.source, run.user_agent, run.message, run.status, run.started_at, run.stored, run.forked_from,
        run.model, run.dialect, run.mode]);
      const kept = this.items.get(run.id);
      return kept?.shows === shows ? kept : { id: run.id, shows, item: this.entry(run) };
    });
    const items = new Set(wanted.map((entry) => entry.item));
    for (const item of [...this.list.children]) if (!items.has(item)) item.remove();
    this.items.clear();
    // Moving an element drops the focus it holds: kept entries keep their
    // order, so only new and redrawn ones move.
    wanted.forEach((entry, i) => {
      this.items.set(entry.id, entry);
      if (this.list.children[i] !== entry.item) this.list.insertBefore(entry.item, this.list.children[i] ?? null);
    });
    // A redrawn entry takes the focus over from the one it replaces.
    if (focused && !focused.isConnected) {
      const id = CSS.escape(focused.dataset.id ?? focused.dataset.compare ?? '');
      /** @type {HTMLElement | null} */
      const successor = this.list.querySelector(focused.dataset.compare ? `[data-compare="${id}"]` : `.run-item[data-id="${id}"]`);
      successor?.focus();
    }
  }

  /** entry is one run of the list: where it came from, what was asked, what it ran on, its state. */
  entry(run) {
    const item = document.createElement('li');
    const button = Object.assign(el('button', 'run-item'), { type: 'button' });
    button.dataset.id = run.id;
    button.dataset.source = run.source;
    const from = el('span', 'run-source', sourceLabel(run));
    const asked = el('span', 'run-message', run.message || '(tool results)');
    asked.title = run.message;
    const setup = el('span', 'run-setup', [run.model, run.dialect, run.mode].filter(Boolean).join(' · '));
    const status = el('span', 'run-state', `${run.status} · ${startedAt(run.started_at)}`);
    status.title = `started ${new Date(run.started_at).toLocaleString()}`;
    if (run.forked_from) status.textContent += ` · rerun of round ${run.forked_from.round}`;
    button.append(from, asked);
    if (setup.textContent) button.append(setup);
    button.append(status);
    button.addEventListener('click', () => this.open(run));
    item.append(button, this.compare.checkbox(run));
    return item;
  }
}

/**
 * sourceLabel says where a run came from: the page, an app through the
 * API (and which client), or a case of `toolscope eval`.
 * @param {{source?: string, user_agent?: string}} run
 */
function sourceLabel(run) {
  if (run.source === 'api') return `API · ${run.user_agent || 'unknown client'}`;
  if (run.source === 'eval') return 'eval';
  return 'page';
}
