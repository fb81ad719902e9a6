// pull.js: the demo banner's Pull, which the operator's page offers when
// the demo model stands in for a model that Ollama lacks. It starts the
// pull on the server (POST /api/pull), follows its progress
// (GET /api/pull/events: a bar, the bytes, the speed, the time left),
// cancels it, says why one failed and offers to try again, and finds a
// pull under way again after a reload. Once the model is pulled, the
// server runs it; the page then switches from the demo model to it, with
// no reload: the header, the banner gone, the Model panel, the Settings
// the demo model locked.
import { get, request } from './api.js';
import { settingControl } from './options.js';
import { slot } from './dom.js';

/**
 * A PullStatus is GET /api/pull, and the data of each event of its stream.
 * @typedef {object} PullStatus
 * @property {string} model
 * @property {'pulling' | 'pulled' | 'failed' | 'cancelled'} state
 * @property {string} [status] Ollama's word for the step
 * @property {string} [text] the progress as a person reads it: bytes, speed, time left
 * @property {number} completed
 * @property {number} total
 * @property {string} [problem]
 * @property {{do?: string}} [fix]
 * @property {boolean} switched the server runs the model now
 * @property {string} events
 */

/**
 * The backend as GET /api/health describes it.
 * @typedef {object} Backend
 * @property {string} backend
 * @property {string} model
 * @property {string} mode
 */

export class Pull {
  /**
   * @param {HTMLElement} box the banner's #pull
   * @param {{switched: () => void, announce: (text: string) => void}} hooks
   *   switched: the page now shows the model, for the rest of it to catch up (health, models);
   *   announce: words for screen readers
   */
  constructor(box, hooks) {
    this.box = box;
    this.hooks = hooks;
    this.model = box.dataset.model ?? '';
    /** @type {EventSource | null} */
    this.source = null;
    /** @type {HTMLButtonElement} */
    this.startButton = slot(box, 'start');
    /** @type {HTMLButtonElement} */
    this.cancelButton = slot(box, 'cancel');
    /** @type {HTMLProgressElement} */
    this.bar = slot(box, 'bar');
    this.startButton.addEventListener('click', () => this.start());
    this.cancelButton.addEventListener('click', () => this.cancel());
  }

  /** resume follows the server's pull if one is under way: the page was reloaded mid-pull. */
  async resume() {
    let status;
    try {
      status = await get('/api/pull'); // {} before the first pull
    } catch {
      return; // the health check says when toolscope does not answer
    }
    if (status.state === 'pulling') this.follow(status);
  }

  async start() {
    this.startButton.disabled = true;
    try {
      this.follow(await request('POST', '/api/pull'));
    } catch (err) {
      this.offer(`Could not start the pull: ${err.message}`, 'error');
    } finally {
      this.startButton.disabled = false;
    }
  }

  async cancel() {
    this.cancelButton.disabled = true;
    try {
      await request('POST', '/api/pull/cancel');
    } catch (err) {
      // The pull ended meanwhile: its last event says how.
      this.hooks.announce(err.message);
    }
  }

  /**
   * follow shows the pull and streams its progress until it ends.
   * @param {PullStatus} status
   */
  follow(status) {
    this.source?.close();
    this.show(status);
    const source = new EventSource(status.events);
    this.source = source;
    source.addEventListener('progress', (ev) => this.show(JSON.parse(ev.data)));
    source.addEventListener('pull_finished', (ev) => {
      // The stream ends after it; left open, EventSource would reconnect.
      source.close();
      this.finish(JSON.parse(ev.data));
    });
    // EventSource retries by itself while the server is away; it gives
    // up when the server answers without the stream, as a restarted one
    // does, which ended the pull.
    source.addEventListener('error', () => {
      if (source.readyState !== EventSource.CLOSED) return;
      this.offer('The pull stopped: toolscope no longer has it (was it restarted?). Ollama keeps what it downloaded: pulling again goes on from there.', 'error', 'Try again');
    });
  }

  /**
   * show draws a pull under way: the bar, filled once the bytes are known, and its words.
   * @param {PullStatus} status
   */
  show(status) {
    slot(this.box, 'offer').hidden = true;
    slot(this.box, 'error').hidden = true;
    slot(this.box, 'progress').hidden = false;
    this.cancelButton.disabled = false;
    if (status.total > 0) {
      this.bar.max = status.total;
      this.bar.value = status.completed;
    } else {
      this.bar.removeAttribute('value'); // indeterminate: Ollama has not said how much yet
    }
    slot(this.box, 'text').textContent = status.text || status.status || '';
  }

  /**
   * finish shows how the pull ended: the model in use, or why not, with the offer to try again.
   * @param {PullStatus} status
   */
  async finish(status) {
    const fix = status.fix?.do ? `: ${status.fix.do}` : '';
    switch (status.state) {
      case 'cancelled':
        this.offer('Pull cancelled. Ollama keeps what it downloaded: pulling again goes on from there.', 'note');
        return;
      case 'failed':
        this.offer(`${capital(status.problem ?? 'the pull failed')}${fix}.`, 'error', 'Try again');
        return;
    }
    if (!status.switched) {
      this.offer(`${status.model} is pulled, but toolscope cannot use it yet: ${status.problem}${fix}.`, 'error', 'Try again');
      return;
    }
    let backend;
    try {
      backend = await get('/api/health');
    } catch {
      backend = { backend: 'ollama', model: status.model, mode: '' };
    }
    showModel(backend);
    this.hooks.announce(`${status.model} is pulled: it answers from now on.`);
    this.hooks.switched();
  }

  /**
   * offer brings the Pull button back, with a line that says why.
   * @param {string} text
   * @param {'error' | 'note'} tone
   * @param {string} [label] the button's words, "Pull <model>" when not given
   */
  offer(text, tone, label) {
    slot(this.box, 'progress').hidden = true;
    slot(this.box, 'offer').hidden = false;
    this.startButton.textContent = label ?? `Pull ${this.model}`;
    const line = slot(this.box, 'error');
    line.textContent = text;
    line.dataset.tone = tone;
    line.hidden = false;
  }
}

/** capital starts a sentence: the server's problems are clauses. */
const capital = (/** @type {string} */ s) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * showModel switches the page from the demo model to the model the server
 * runs now: the demo badge and banner go, the header and the Model panel
 * name the model, and the settings the demo model locked are free.
 * @param {Backend} b
 */
export function showModel(b) {
  document.getElementById('demo-badge')?.remove();
  document.getElementById('demo-banner')?.remove();
  const chip = document.querySelector('.model-chip');
  if (chip) {
    /** @type {HTMLElement} */ (chip.querySelector('.model-chip-name')).textContent = b.model;
    /** @type {HTMLElement} */ (chip.querySelector('.model-chip-meta')).textContent = `${b.backend} · ${b.mode}`;
    chip.classList.add('is-new');
  }
  const facts = { 'model-backend': b.backend, 'model-name': b.model, 'model-mode': b.mode };
  for (const [id, text] of Object.entries(facts)) {
    const fact = document.getElementById(id);
    if (fact) fact.textContent = text;
  }
  for (const control of document.querySelectorAll('#settings [data-demo-locked]')) {
    /** @type {HTMLSelectElement} */ (control).disabled = false;
    delete (/** @type {HTMLElement} */ (control).dataset.demoLocked);
  }
  // The picker offers the model until the health check lists the others.
  settingControl('model')?.replaceChildren(new Option(b.model, b.model, true, true));
  const mode = settingControl('mode');
  if (mode && [...(/** @type {HTMLSelectElement} */ (mode).options)].some((o) => o.value === b.mode)) mode.value = b.mode;
}
