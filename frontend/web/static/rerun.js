// rerun.js: "Rerun from here" on each round of a run the server keeps. A
// dialog takes the settings to change (the run's own, as it recorded them,
// to start with) and the round's messages, editable as JSON; Start forks a
// new run from the conversation as it stood before that round. The server
// starts the new run from the old one's recorded settings, so the dialog
// sends only its own fields.
import { el, fill, slot } from './dom.js';
import { runOptions, settingControl } from './options.js';

// The settings whose Settings panel controls the dialog copies, choices and all.
const copied = ['model', 'dialect', 'think'];

/**
 * recordedValue is a run's recorded setting as the dialog's control of
 * that name holds it, or undefined when the run recorded none (a run from
 * before runs recorded their settings).
 * @param {Record<string, unknown> | undefined} settings
 * @param {string} name
 * @returns {string | undefined}
 */
function recordedValue(settings, name) {
  if (!settings) return undefined;
  switch (name) {
    case 'think':
      return settings.think === true ? 'on' : settings.think === false ? 'off' : 'auto';
    case 'tool_delay':
      return typeof settings.tool_delay_ms === 'number' ? String(settings.tool_delay_ms / 1000) : undefined;
  }
  const v = settings[name];
  return typeof v === 'string' ? v : undefined;
}

export class Rerun {
  /**
   * @param {HTMLDialogElement} dialog the page's #rerun-dialog
   * @param {{options: () => object, busy: () => string, start: (runId: string, body: object) => Promise<void>}} hooks
   *   options(): the Settings panel's fields of a run request; busy(): why
   *   no run can start now, or ''; start(runId, body): asks for the rerun
   *   and shows it, throwing what went wrong
   */
  constructor(dialog, hooks) {
    this.dialog = dialog;
    this.hooks = hooks;
    this.form = /** @type {HTMLFormElement} */ (dialog.querySelector('form'));
    this.messages = /** @type {HTMLTextAreaElement} */ (this.form.elements.namedItem('messages'));
    /** @type {{runId: string, round: number, original: string} | null} the round being rerun, and its messages as first shown */
    this.target = null;
    this.form.addEventListener('submit', (ev) => {
      ev.preventDefault(); // the dialog stays open until the run has started
      this.submit();
    });
    for (const name of ['close', 'cancel']) slot(dialog, name).addEventListener('click', () => dialog.close());
  }

  /**
   * button puts "Rerun from here" in a round's header.
   * @param {HTMLElement} head
   * @param {string} runId
   * @param {number} round
   * @param {{messages?: {role: string}[]}} input the round's LLM input
   * @param {Record<string, unknown>} [settings] the run's recorded settings
   */
  button(head, runId, round, input, settings) {
    const b = Object.assign(el('button', 'ghost rerun-button', 'Rerun from here'), { type: 'button' });
    // The round as the header names it: a rerun's rounds go on from the one it reran.
    const shown = slot(head, 'number').textContent;
    b.title = `Start a new run from the conversation as it stood before round ${shown}`;
    b.addEventListener('click', () => this.open(runId, round, input, shown, settings));
    head.append(b);
  }

  /**
   * open shows the dialog for round of run runId, whose header names it shown.
   * @param {string} runId
   * @param {number} round
   * @param {{messages?: {role: string}[]}} input the round's LLM input
   * @param {string} shown
   * @param {Record<string, unknown>} [settings] the run's recorded settings; the panel's when it has none
   */
  open(runId, round, input, shown, settings) {
    const f = this.form.elements;
    for (const name of copied) {
      const from = /** @type {HTMLSelectElement} */ (settingControl(name));
      const to = /** @type {HTMLSelectElement} */ (f.namedItem(name));
      to.replaceChildren(...[...from.options].map((o) => new Option(o.textContent ?? '', o.value)));
      // A disabled control (the demo's one model) shows what the panel
      // shows, and is not sent.
      const value = (from.disabled ? undefined : recordedValue(settings, name)) ?? from.value;
      // A model the server no longer lists is still the run's.
      if (![...to.options].some((o) => o.value === value)) to.append(new Option(value, value));
      to.value = value;
      to.disabled = from.disabled;
    }
    const delay = /** @type {HTMLInputElement} */ (settingControl('tool_delay'));
    const value = recordedValue(settings, 'tool_delay') ?? delay.value;
    Object.assign(/** @type {HTMLInputElement} */ (f.namedItem('tool_delay')), { value, max: delay.max });
    // The agent writes the system prompt anew for the new run's settings.
    const original = JSON.stringify((input.messages ?? []).filter((m) => m.role !== 'system'), null, 2);
    this.messages.value = original;
    this.target = { runId, round, original };
    fill(this.dialog, { round: shown });
    this.showError('');
    this.dialog.showModal();
  }

  async submit() {
    if (!this.target) return; // only an open dialog submits
    const { runId, round, original } = this.target;
    // The dialog's settings replace the run's recorded ones, the rest stay
    // as the run had them; step mode is the panel's, as for any new run.
    /** @type {Record<string, unknown>} */
    const body = { ...runOptions(this.form), round };
    if (/** @type {{step?: boolean}} */ (this.hooks.options()).step) body.step = true;
    if (this.messages.value !== original) {
      try {
        body.messages = JSON.parse(this.messages.value);
      } catch (err) {
        this.showError(`The messages are not valid JSON: ${err.message}`);
        return;
      }
    }
    const busy = this.hooks.busy();
    if (busy) {
      this.showError(busy);
      return;
    }
    try {
      await this.hooks.start(runId, body);
      this.dialog.close();
    } catch (err) {
      this.showError(err.message);
    }
  }

  showError(text) {
    const error = slot(this.dialog, 'error');
    error.textContent = text;
    error.hidden = !text;
  }
}

/**
 * lineage says, at the top of a run's turn, which run and round it was
 * forked from; the run's id shows that run when clicked.
 */
export function lineage(turn, fork, showRun) {
  const line = el('p', 'lineage');
  const link = Object.assign(el('button', 'link', fork.run), { type: 'button' });
  link.title = 'Show the run this one was forked from';
  link.addEventListener('click', () => showRun(fork.run));
  line.append('forked from run ', link, ` at round ${fork.round}`);
  turn.querySelector('.user-msg').after(line);
}
