// session.js: the conversation on screen and the run in progress. It
// starts runs from the composer, follows each run's events into a
// RunView, stops a run, starts a new conversation, and shows a kept run
// alone (from the Runs panel, a lineage link, the address). On a viewer
// link's page, which has no composer, Stop or settings, it follows the
// operator's runs instead. The address names the run on screen
// (#run=r-…), so that a reload, or the link opened elsewhere, shows it
// again.
import { request, get } from './api.js';
import { EventType } from './events.js';
import { createTurn, RunView, turnRound } from './pipeline.js';
import { lineage } from './rerun.js';
import { pausedOn, waitsFor } from './step.js';
import { startedAt } from './runlist.js';
import { addRunActions, clampRequest, linkedRun, showAttached } from './request.js';

// A viewer asks every WATCH_MS which run was started last, and replays each
// new one from its first event, so that finding it late loses nothing.
const WATCH_MS = 2000;

/**
 * A Live run is the one in progress: id is null until the server has
 * answered the request that starts it.
 * @typedef {object} Live
 * @property {string | null} id
 * @property {RunView | null} view
 * @property {EventSource | null} source
 * @property {() => void} [onFinished] shows what a finished run offers (its Export)
 * @property {boolean} [stopping] Stop was pressed: the status line says so until the run ends
 */

export class Session {
  /**
   * @param {object} page
   * @param {HTMLElement} page.chat the conversation
   * @param {HTMLElement} page.empty what the chat shows with no run
   * @param {HTMLElement} page.announcer where screen readers hear the answer
   * @param {HTMLButtonElement[]} page.stopButtons the side panel's Stop, and the composer's
   * @param {boolean} page.viewer a viewer's page follows the operator's runs
   * @param {import('./composer.js').Composer | null} page.composer absent on a viewer's page
   * @param {import('./status.js').StatusLine} page.status
   * @param {import('./scroll.js').ChatScroll} page.scroll
   * @param {import('./dialog.js').InputDialog} page.dialog "View LLM input"
   * @param {object} hooks
   * @param {() => object | null} hooks.options the Settings panel's fields of a run request, or null when they are not valid
   * @param {() => void} hooks.closeRecording a message or a kept run ends the recording on screen
   * @param {() => void} hooks.runEnded a run ended: the lists of runs and MCP servers change
   * @param {(names: string[]) => void} hooks.onTools the tools a run offers the model
   * @param {(head: HTMLElement, runId: string, round: number, input: object, settings?: Record<string, unknown>) => void} hooks.rerunButton
   *   puts "Rerun from here" in a round's header, where the page can rerun
   */
  constructor(page, hooks) {
    this.chat = page.chat;
    this.empty = page.empty;
    this.announcer = page.announcer;
    this.stopButtons = page.stopButtons;
    this.viewer = page.viewer;
    this.composer = page.composer;
    this.status = page.status;
    this.scroll = page.scroll;
    this.dialog = page.dialog;
    this.hooks = hooks;
    // The server's id for the history follow-ups build on.
    /** @type {string | null} */
    this.conversation = null;
    // When the page shows a run alone (opened from the Runs panel or a
    // link), the run a follow-up continues from, its conversation being
    // one the page does not hold.
    /** @type {string | null} */
    this.after = null;
    /** @type {Live | null} */
    this.live = null;
    // On a viewer's page, the id of the operator's run last shown.
    /** @type {string | null} */
    this.watched = null;
  }

  /** busy says why no other run can start now (what: what would start), or ''. */
  busy(/** @type {string} */ what) {
    return this.live ? `a run is in progress: stop it or let it finish, then ${what}` : '';
  }

  /**
   * send starts a run with text, in the conversation on screen.
   * @param {string} text
   */
  async send(text) {
    const { composer } = this;
    if (this.live || !text.trim() || !composer) return;
    this.hooks.closeRecording(); // a message starts a live conversation
    const options = this.hooks.options();
    if (!options) return;
    composer.showError('');
    this.status.origin('');
    this.empty.remove();
    const attached = composer.attached();
    const turn = this.addTurn(text);
    showAttached(turn, attached);
    composer.set('');
    this.setLive({ id: null, view: null, source: null });

    let run;
    try {
      const follows = this.conversation ? { conversation_id: this.conversation } : { after_run: this.after ?? undefined };
      const resources = attached.length ? { resources: attached.map(({ server, uri }) => ({ server, uri })) } : {};
      run = await request('POST', '/api/runs', { message: text, ...follows, ...resources, ...options });
    } catch (err) {
      turn.remove();
      if (!this.chat.querySelector('.turn')) this.chat.append(this.empty);
      composer.set(text, attached);
      this.setLive(null);
      composer.showError(err.message);
      return;
    }
    if (!turn.isConnected) {
      // New conversation was pressed while the request was on its way.
      request('POST', `/api/runs/${run.id}/cancel`).catch(() => {});
      return;
    }
    this.conversation = run.conversation_id;
    this.after = null;
    this.follow(run, turn);
  }

  /**
   * addTurn puts a turn for the request text at the end of the chat.
   * @param {string} text
   */
  addTurn(text) {
    const turn = createTurn(text);
    this.chat.append(turn);
    clampRequest(turn);
    this.scroll.pinToBottom();
    return turn;
  }

  /**
   * follow draws a run's events as they arrive, resuming after drops.
   * @param {import('./api.js').Run} run
   * @param {HTMLElement} turn
   */
  follow(run, turn) {
    /** @type {Live} */
    const live = { id: run.id, view: null, source: null };
    nameRun(run.id);
    live.onFinished = addRunActions(turn, run.id, { exportable: !this.viewer });
    const view = new RunView(turn, {
      firstRound: run.forked_from?.round,
      ...this.viewHooks(),
      onRound: () => this.progress(live, turn),
      onPause: () => this.progress(live, turn),
      onTools: this.hooks.onTools,
      onRoundHead: (head, round, input, settings) => this.hooks.rerunButton(head, run.id, round, input, settings),
      continueRun: this.viewer ? null : (body) => request('POST', `/api/runs/${run.id}/continue`, body),
      answerAsk: this.viewer ? null : (id, body) => request('POST', `/api/runs/${run.id}/asks/${id}`, body),
    });
    // EventSource resumes by itself, sending Last-Event-ID; the view skips
    // anything it has already drawn.
    const source = new EventSource(run.events);
    Object.assign(live, { view, source });
    for (const type of Object.values(EventType)) {
      source.addEventListener(type, (msg) => {
        view.apply(JSON.parse(msg.data));
        this.scroll.later();
        // The stream ends after run_finished; left open, EventSource would
        // reconnect forever.
        if (type === EventType.RunFinished) this.end(live);
      });
    }
    source.addEventListener('open', () => {
      if (!view.finished) this.progress(live, turn);
    });
    source.addEventListener('error', () => {
      if (source.readyState === EventSource.CLOSED) {
        view.lost(`Lost the run's events and cannot resume them — the server may have restarted; check it is running, then send again.`);
        this.end(live);
      } else if (!view.finished) {
        this.status.set('Reconnecting…', 'warn');
      }
    });
    this.setLive(live);
  }

  /**
   * viewHooks are what every RunView of the page shares: the input dialog, and the announcer.
   * @returns {import('./pipeline.js').RunViewHooks}
   */
  viewHooks() {
    return {
      showInput: (input, round, marks) => this.dialog.show(input, round, marks),
      announce: (text) => {
        this.announcer.textContent = text;
      },
    };
  }

  /**
   * progress says what the live run does. A run in step mode that waits on
   * a pause is not running: it says what it waits for. A run being stopped
   * says so until it ends.
   * @param {Live} live
   * @param {HTMLElement} turn
   */
  progress(live, turn) {
    const { view } = live;
    if (live.stopping || !view) return;
    const pause = pausedOn(view);
    if (pause) this.status.set(`Paused · round ${turnRound(turn, pause.round)} · ${waitsFor(pause)}`, 'paused');
    else this.status.set(`Running · round ${turnRound(turn, Math.max(view.rounds.size, 1))}`, 'live');
  }

  /** @param {Live} live */
  end(live) {
    live.source?.close();
    if (live.view?.finished) live.onFinished?.();
    this.hooks.runEnded();
    if (this.live !== live) return;
    this.setLive(null);
    // The Stop button just went away: the keyboard stays with the page, not the composer, so P still presents.
    if (this.stopButtons.includes(/** @type {HTMLButtonElement} */ (document.activeElement))) this.chat.focus({ preventScroll: true });
  }

  /** stop asks the server to cancel the live run. */
  async stop() {
    const { live } = this;
    if (!live?.id) return;
    for (const b of this.stopButtons) b.disabled = true;
    live.stopping = true;
    this.status.set('Stopping…', 'warn');
    try {
      await request('POST', `/api/runs/${live.id}/cancel`);
    } catch (err) {
      live.stopping = false;
      for (const b of this.stopButtons) b.disabled = false;
      this.composer?.showError(`Could not stop the run: ${err.message}`);
    }
  }

  /** newConversation empties the chat; a run in progress is stopped. */
  newConversation() {
    this.hooks.closeRecording();
    if (this.live) {
      const { id, source } = this.live;
      if (id) request('POST', `/api/runs/${id}/cancel`).catch(() => {}); // its page is going anyway
      source?.close();
      this.setLive(null);
    }
    this.conversation = null;
    this.after = null;
    nameRun(null);
    this.chat.replaceChildren(this.empty);
    this.composer?.showError('');
    this.status.origin('');
    this.composer?.focus();
  }

  /**
   * setLive makes live the run in progress, or none (null), and shows it.
   * @param {Live | null} live
   */
  setLive(live) {
    this.live = live;
    const running = Boolean(live);
    if (!this.viewer) {
      for (const b of this.stopButtons) {
        b.hidden = !running;
        b.disabled = !live?.id;
      }
      this.composer?.showRunning(running);
    }
    const idle = this.viewer ? 'Waiting for the next request' : 'Ready';
    this.status.set(running ? 'Starting…' : idle, running ? 'live' : '');
  }

  /**
   * show draws a run, after the earlier turns of its conversation when the
   * page holds them; alone, it draws the run by itself, and a follow-up
   * continues from its end.
   * @param {import('./api.js').Run} run
   * @param {{alone?: boolean}} [how]
   */
  show(run, { alone = false } = {}) {
    this.watched = run.id;
    this.live?.source?.close();
    if (alone || run.conversation_id !== this.conversation) this.chat.replaceChildren();
    this.conversation = alone ? null : run.conversation_id ?? null;
    this.after = alone ? run.id : null;
    const turn = createTurn(run.message ?? '');
    // A run of an earlier start, or one this start no longer keeps in
    // memory, is labelled as a recording is.
    const origin = run.stored ? `From the history · started ${startedAt(run.started_at ?? '')}` : '';
    if (origin) {
      turn.classList.add('is-stored');
      /** @type {HTMLElement} */ (turn.querySelector('.who')).textContent = origin;
    }
    this.status.origin(origin);
    this.chat.append(turn);
    clampRequest(turn);
    this.scroll.pinToBottom();
    this.follow(run, turn);
    if (run.forked_from) lineage(turn, run.forked_from, (id) => this.open(id));
    return turn;
  }

  /**
   * play shows a kept run alone with its whole pipeline, live if it still runs.
   * @param {import('./api.js').Run} run
   */
  play(run) {
    this.hooks.closeRecording();
    this.show({ ...run, events: `/api/runs/${encodeURIComponent(run.id)}/events` }, { alone: true });
  }

  /**
   * open plays a kept run known by its id alone, as a lineage link or the address names it.
   * @param {string} id
   */
  async open(id) {
    try {
      this.play(await get(`/api/runs/${encodeURIComponent(id)}`));
    } catch (err) {
      const problem = `Could not show run ${id}: ${err.message}`;
      if (this.composer) this.composer.showError(problem);
      else this.status.set(problem, 'warn');
    }
  }

  /**
   * rerun forks run runId as body says, and shows the new run; it throws what went wrong.
   * @param {string} runId
   * @param {object} body
   */
  async rerun(runId, body) {
    const run = await request('POST', `/api/runs/${encodeURIComponent(runId)}/rerun`, body);
    this.hooks.closeRecording();
    this.empty.remove();
    // show continues the new run's conversation: a follow-up builds on the fork.
    this.show(run);
  }

  /**
   * beginRecording empties the page for a recording, and returns the view it plays into.
   * @param {{run?: {message?: string}}} header the recording's first line
   */
  beginRecording(header) {
    this.newConversation();
    this.empty.remove();
    const turn = this.addTurn(header.run?.message ?? '');
    turn.classList.add('is-recording');
    /** @type {HTMLElement} */ (turn.querySelector('.who')).textContent = 'Recorded request';
    return new RunView(turn, this.viewHooks());
  }

  /** endRecording puts the page back where a run starts. */
  endRecording() {
    this.chat.replaceChildren(this.empty);
    this.setLive(null);
  }

  /**
   * start opens the run the address names, if any: on a reload mid-run it
   * follows the run again from its first event. A viewer then follows the
   * operator's next runs, not the newest one there was when the link was
   * opened. A link pasted into the address bar of an open page opens its
   * run too.
   */
  async start() {
    window.addEventListener('hashchange', () => {
      const id = linkedRun();
      if (id && id !== this.watched) this.open(id);
    });
    const linked = linkedRun();
    if (linked) await this.open(linked);
    if (this.viewer) {
      if (linked) this.watched = (await get('/api/runs/latest').catch(() => ({}))).id ?? this.watched;
      this.watch();
    }
  }

  /** watch shows, on a viewer's page, each run the operator starts. */
  async watch() {
    try {
      const run = await get('/api/runs/latest'); // {} before the first run
      if (run.id && run.id !== this.watched) this.show(run);
    } catch (err) {
      if (!this.live) this.status.set(`Cannot reach toolscope: ${err.message}`, 'warn');
    }
    setTimeout(() => this.watch(), WATCH_MS);
  }
}

/**
 * nameRun puts the run on screen in the address, so that a reload or the link shows it again; null for none.
 * @param {string | null} id
 */
function nameRun(id) {
  history.replaceState(null, '', id ? `#run=${encodeURIComponent(id)}` : location.pathname + location.search);
}
