// app.js: the playground's wiring. It starts runs from the composer,
// follows each run's events into a RunView, and keeps the side panel (run
// status, Stop, New conversation, health, models) up to date. On a viewer
// link's page, which has no composer, Stop or settings, it follows the
// operator's runs instead. The address names the run on screen (#run=r-…),
// so that a reload, or the link opened elsewhere, shows it again.
import { el } from './dom.js';
import { createTurn, eventTypes, RunView, turnRound } from './pipeline.js';
import { InputDialog } from './dialog.js';
import { Replay } from './replay.js';
import { runOptions } from './options.js';
import { lineage, Rerun } from './rerun.js';
import { Compare } from './compare.js';
import { startPresenter } from './presenter.js';
import { pausedOn, waitsFor } from './step.js';
import { RunList, startedAt } from './runlist.js';
import { addRunActions, clampRequest, linkedRun } from './request.js';
import { shortcut } from './keys.js';

const $ = (id) => document.getElementById(id);
const ui = {
  chat: $('chat'),
  empty: $('empty'),
  composer: $('composer'),
  message: $('message'),
  send: $('send'),
  composerError: $('composer-error'),
  stop: $('stop'),
  composerStop: $('composer-stop'),
  newConversation: $('new-conversation'),
  status: $('run-status'),
  dot: $('run-dot'),
  origin: $('run-origin'),
  settings: $('settings'),
  model: $('set-model'),
  health: $('health'),
  healthText: $('health-text'),
  healthStatus: $('health-status'),
  announcer: $('announcer'),
};
const dialog = new InputDialog($('input-dialog'));
// The side panel's Stop, and the composer's for when the panel is out of sight.
const stopButtons = [ui.stop, ui.composerStop].filter(Boolean);
const viewer = document.body.hasAttribute('data-viewer');

// The link's token is now in an HttpOnly cookie; off the address bar, it
// cannot be read from a projected screen or a shared screenshot.
if (new URLSearchParams(location.search).has('token')) history.replaceState(null, '', location.pathname + location.hash);

// conversation is the server's id for the history follow-ups build on;
// after, when the page shows a run alone (opened from the Runs panel or a
// link), the run a follow-up continues from, its conversation being one the
// page does not hold; live is the run in progress: {id, view, source};
// watched, on a viewer's page, the id of the operator's run last shown.
const state = { conversation: null, after: null, live: null, watched: null };

// ---- talking to the server ------------------------------------------------

async function request(method, url, body) {
  const res = await fetch(url, {
    method,
    headers: body ? { 'Content-Type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(data.error || `${method} ${url} answered ${res.status} ${res.statusText}`);
  return data;
}

// ---- runs -----------------------------------------------------------------

async function send(text) {
  if (state.live || !text.trim()) return;
  replay?.close(); // a message starts a live conversation
  if (!ui.settings.reportValidity()) return;
  showComposerError('');
  showOrigin('');
  ui.empty?.remove();
  const turn = addTurn(text);
  ui.message.value = '';
  fitMessage();
  setLive({ id: null });

  let run;
  try {
    const follows = state.conversation ? { conversation_id: state.conversation } : { after_run: state.after ?? undefined };
    run = await request('POST', '/api/runs', { message: text, ...follows, ...runOptions(ui.settings) });
  } catch (err) {
    turn.remove();
    if (!ui.chat.querySelector('.turn')) ui.chat.append(ui.empty);
    ui.message.value = text;
    fitMessage();
    setLive(null);
    showComposerError(err.message);
    return;
  }
  if (!turn.isConnected) {
    // New conversation was pressed while the request was on its way.
    request('POST', `/api/runs/${run.id}/cancel`).catch(() => {});
    return;
  }
  state.conversation = run.conversation_id;
  state.after = null;
  follow(run, turn);
}

/** addTurn puts a turn for the request text at the end of the chat. */
function addTurn(text) {
  const turn = createTurn(text);
  ui.chat.append(turn);
  clampRequest(turn);
  pinToBottom();
  return turn;
}

/** nameRun puts the run on screen in the address, so that a reload or the link shows it again; null for none. */
function nameRun(id) {
  history.replaceState(null, '', id ? `#run=${encodeURIComponent(id)}` : location.pathname + location.search);
}

/** markOffered marks the side panel's tools that the newest run offered the model. */
function markOffered(names) {
  const offered = new Set(names);
  for (const item of document.querySelectorAll('.tools > li')) {
    const isOffered = offered.has(item.querySelector('.tool-name')?.textContent);
    item.classList.toggle('is-offered', isOffered);
    item.classList.toggle('is-left-out', !isOffered);
  }
}

/** follow draws a run's events as they arrive, resuming after drops. */
function follow(run, turn) {
  const live = { id: run.id, view: null, source: null };
  nameRun(run.id);
  live.onFinished = addRunActions(turn, run.id, { exportable: !viewer });
  // A run in step mode that waits on a pause is not running: it says what
  // it waits for. A run being stopped says so until it ends.
  const progress = () => {
    if (live.stopping) return;
    const pause = pausedOn(view);
    if (pause) setStatus(`Paused · round ${turnRound(turn, pause.round)} · ${waitsFor(pause)}`, 'paused');
    else setStatus(`Running · round ${turnRound(turn, Math.max(view.rounds.size, 1))}`, 'live');
  };
  const view = new RunView(turn, {
    firstRound: run.forked_from?.round,
    showInput: (input, round, marks) => dialog.show(input, round, marks),
    onRound: progress,
    onPause: progress,
    onTools: markOffered,
    onRoundHead: rerun && ((head, round, input) => rerun.button(head, run.id, round, input)),
    continueRun: viewer ? null : (body) => request('POST', `/api/runs/${run.id}/continue`, body),
    announce: (text) => {
      ui.announcer.textContent = text;
    },
  });
  // EventSource resumes by itself, sending Last-Event-ID; the view skips
  // anything it has already drawn.
  const source = new EventSource(run.events);
  Object.assign(live, { view, source });
  for (const type of eventTypes) {
    source.addEventListener(type, (msg) => {
      view.apply(JSON.parse(msg.data));
      scrollLater();
      // The stream ends after run_finished; left open, EventSource would
      // reconnect forever.
      if (type === 'run_finished') end(live);
    });
  }
  source.addEventListener('open', () => {
    if (!view.finished) progress();
  });
  source.addEventListener('error', () => {
    if (source.readyState === EventSource.CLOSED) {
      view.lost(`Lost the run's events and cannot resume them — the server may have restarted; check it is running, then send again.`);
      end(live);
    } else if (!view.finished) {
      setStatus('Reconnecting…', 'warn');
    }
  });
  setLive(live);
}

function end(live) {
  live.source.close();
  if (live.view.finished) live.onFinished();
  refreshServers();
  // The run list would say "running" until its next poll.
  runList?.refresh();
  if (state.live !== live) return;
  setLive(null);
  // The Stop button just went away: the keyboard stays with the page, not the composer, so P still presents.
  if (stopButtons.includes(document.activeElement)) leaveComposer();
}

async function stop() {
  const live = state.live;
  if (!live?.id) return;
  for (const b of stopButtons) b.disabled = true;
  live.stopping = true;
  setStatus('Stopping…', 'warn');
  try {
    await request('POST', `/api/runs/${live.id}/cancel`);
  } catch (err) {
    live.stopping = false;
    for (const b of stopButtons) b.disabled = false;
    showComposerError(`Could not stop the run: ${err.message}`);
  }
}

function newConversation() {
  replay?.close();
  if (state.live) {
    const { id, source } = state.live;
    if (id) request('POST', `/api/runs/${id}/cancel`).catch(() => {}); // its page is going anyway
    source?.close();
    setLive(null);
  }
  state.conversation = null;
  state.after = null;
  nameRun(null);
  ui.chat.replaceChildren(ui.empty);
  showComposerError('');
  showOrigin('');
  ui.message.focus();
}

// ---- side panel -----------------------------------------------------------

function setLive(live) {
  state.live = live;
  const running = Boolean(live);
  if (!viewer) {
    for (const b of stopButtons) {
      b.hidden = !running;
      b.disabled = !live?.id;
    }
    ui.send.disabled = running;
  }
  const idle = viewer ? 'Waiting for the next request' : 'Ready';
  setStatus(running ? 'Starting…' : idle, running ? 'live' : '');
}

function setStatus(text, tone) {
  ui.status.textContent = text;
  ui.dot.dataset.tone = tone;
}

/** showOrigin says, under the status line, where the run on screen comes from; '' for a run of now. */
function showOrigin(text) {
  if (!ui.origin) return;
  ui.origin.textContent = text;
  ui.origin.hidden = !text;
}

function showComposerError(text) {
  ui.composerError.textContent = text;
  ui.composerError.hidden = !text;
}

/**
 * refreshServers shows the MCP servers' state as toolscope knows it now, so
 * that a server that crashed during a run is marked failed, with why.
 */
async function refreshServers() {
  if (viewer) return; // a viewer may not read MCP servers' details
  let servers;
  try {
    ({ servers } = await request('GET', '/api/mcp'));
  } catch {
    return; // checkHealth reports a toolscope that does not answer
  }
  for (const s of servers) {
    const head = document.querySelector(`.tool-group[data-source="mcp:${CSS.escape(s.name)}"] .mcp-server`);
    if (!head) continue;
    const badge = head.querySelector('.badge');
    badge.textContent = s.state;
    badge.className = `badge state-${s.state}`;
    const error = head.querySelector('.mcp-error');
    error.textContent = s.error ?? '';
    error.hidden = !s.error;
  }
}

async function checkHealth() {
  refreshServers();
  let h;
  try {
    h = await request('GET', '/api/health');
  } catch (err) {
    h = { ok: false, error: `toolscope did not answer (${err.message}) — is it still running?` };
  }
  // After a fallback Ollama may have come up; only a restart uses it.
  const demo = h.ollama?.ready ? 'demo · Ollama is ready now: restart toolscope to use it' : 'ready (offline)';
  ui.healthStatus.textContent = h.ok ? (h.demo ? demo : `ready · Ollama ${h.ollama_version}`) : 'not ready';
  ui.healthStatus.dataset.tone = h.ok ? 'ok' : 'bad';
  ui.health.hidden = h.ok;
  ui.healthText.textContent = h.error ?? '';
}

async function loadModels() {
  if (viewer || ui.model.disabled) return;
  try {
    const { models } = await request('GET', '/api/models');
    const current = ui.model.value;
    const names = models.includes(current) ? models : [current, ...models];
    ui.model.replaceChildren(...names.map((name) => new Option(name, name, false, name === current)));
  } catch {
    // The default model stays the only choice; the health check says why.
  }
}

// ---- scrolling ------------------------------------------------------------

// The chat follows new output while the reader is at the bottom, and stays
// put once they scroll up to read. Only the reader's scroll upwards can
// unpin: the browser also moves scrollTop up when a card above shrinks as
// others grow (a fold, a finished stream: scroll anchoring), but then the
// content's height changes with it, which a reader's scroll never does.
let pinned = true;
let scrollQueued = false;
let lastTop = 0;
let lastHeight = 0;
ui.chat.addEventListener('scroll', () => {
  const { scrollTop, scrollHeight, clientHeight } = ui.chat;
  if (scrollHeight - scrollTop - clientHeight < 48) pinned = true;
  else if (scrollTop < lastTop && scrollHeight === lastHeight) pinned = false;
  lastTop = scrollTop;
  lastHeight = scrollHeight;
});
// A wheel turned upwards, with room to scroll, is the reader's, however
// fast the output grows.
ui.chat.addEventListener(
  'wheel',
  (ev) => {
    if (ev.deltaY < 0 && ui.chat.scrollTop > 0) pinned = false;
  },
  { passive: true },
);

// Cards also change size between events (a card folding in presenter
// mode, a pause's controls drawn): a pinned chat follows those too.
const resized = new ResizeObserver(() => scrollLater());
new MutationObserver((changes) => {
  for (const change of changes) {
    for (const node of change.addedNodes) if (node instanceof Element) resized.observe(node);
    for (const node of change.removedNodes) if (node instanceof Element) resized.unobserve(node);
  }
}).observe(ui.chat, { childList: true });

function scrollLater() {
  if (scrollQueued || !pinned) return;
  scrollQueued = true;
  requestAnimationFrame(() => {
    scrollQueued = false;
    if (pinned) ui.chat.scrollTop = ui.chat.scrollHeight;
  });
}

function pinToBottom() {
  pinned = true;
  scrollLater();
}

// ---- watching, on a viewer link ----------------------------------------------

// A viewer asks every WATCH_MS which run was started last, and replays each
// new one from its first event, so that finding it late loses nothing.
const WATCH_MS = 2000;

async function watch() {
  try {
    const run = await request('GET', '/api/runs/latest'); // {} before the first run
    if (run.id && run.id !== state.watched) show(run);
  } catch (err) {
    if (!state.live) setStatus(`Cannot reach toolscope: ${err.message}`, 'warn');
  }
  setTimeout(watch, WATCH_MS);
}

/**
 * show draws a run, after the earlier turns of its conversation when the
 * page holds them; alone, it draws the run by itself, and a follow-up
 * continues from its end.
 */
function show(run, { alone = false } = {}) {
  state.watched = run.id;
  state.live?.source?.close();
  if (alone || run.conversation_id !== state.conversation) ui.chat.replaceChildren();
  state.conversation = alone ? null : run.conversation_id;
  state.after = alone ? run.id : null;
  const turn = createTurn(run.message);
  // A run of an earlier start, or one this start no longer keeps in
  // memory, is labelled as a recording is.
  const origin = run.stored ? `From the history · started ${startedAt(run.started_at)}` : '';
  if (origin) {
    turn.classList.add('is-stored');
    turn.querySelector('.who').textContent = origin;
  }
  showOrigin(origin);
  ui.chat.append(turn);
  clampRequest(turn);
  pinToBottom();
  follow(run, turn);
  if (run.forked_from) lineage(turn, run.forked_from, openRun);
  return turn;
}

// ---- composer and keys ----------------------------------------------------

function fitMessage() {
  ui.message.style.height = 'auto';
  ui.message.style.height = `${Math.min(ui.message.scrollHeight, 200)}px`;
}

// A viewer's page has no composer, Stop or New conversation.
ui.composer?.addEventListener('submit', (ev) => {
  ev.preventDefault();
  send(ui.message.value);
});
ui.message?.addEventListener('input', fitMessage);
ui.message?.addEventListener('keydown', (ev) => {
  // Enter sends, Shift+Enter is a new line; an IME composing text keeps Enter.
  if (ev.key === 'Enter' && !ev.shiftKey && !ev.isComposing) {
    ev.preventDefault();
    ui.composer.requestSubmit();
  }
  // With no run to stop, Esc leaves the box, and the keys are the page's again.
  if (ev.key === 'Escape' && !state.live) {
    ev.preventDefault();
    leaveComposer();
  }
});
// The composer has the keyboard only when someone puts it there (a click,
// "/", New conversation): once a request is sent, P, Space and Esc act on
// the run again.
ui.composer?.addEventListener('submit', () => {
  if (document.activeElement === ui.message && !ui.message.value) leaveComposer();
});
document.addEventListener('keydown', (ev) => {
  // Esc in the dialog closes the dialog, not the run.
  if (ev.key === 'Escape' && !dialog.open && state.live && !viewer) {
    ev.preventDefault();
    stop();
  }
  // "/" goes to the composer, which does not take the keyboard by itself.
  if (ev.key === '/' && ui.message && shortcut(ev)) {
    ev.preventDefault();
    ui.message.focus();
  }
});

function leaveComposer() {
  ui.chat.focus({ preventScroll: true });
}
for (const b of stopButtons) b.addEventListener('click', stop);
$('health-retry').addEventListener('click', checkHealth);
ui.newConversation?.addEventListener('click', newConversation);
ui.empty.addEventListener('click', (ev) => {
  const seed = ev.target.closest('[data-prompt]');
  if (seed) send(seed.dataset.prompt);
});

// ---- the runs the server keeps ----------------------------------------------

/** play shows a kept run alone with its whole pipeline, live if it still runs. */
function play(run) {
  replay?.close();
  show({ ...run, events: `/api/runs/${encodeURIComponent(run.id)}/events` }, { alone: true });
}

/** openRun plays a kept run known by its id alone, as a lineage link or the address names it. */
async function openRun(id) {
  try {
    play(await request('GET', `/api/runs/${encodeURIComponent(id)}`));
  } catch (err) {
    const problem = `Could not show run ${id}: ${err.message}`;
    if (ui.composerError) showComposerError(problem);
    else setStatus(problem, 'warn');
  }
}

// ---- rerun from a round, and compare two runs (operator only) -------------

// The viewer's page has neither dialog: it cannot start runs.
const rerun = viewer ? null : new Rerun($('rerun-dialog'), {
  options: () => runOptions(ui.settings),
  busy: () => (state.live ? 'a run is in progress: stop it or let it finish, then rerun' : ''),
  async start(runId, body) {
    const run = await request('POST', `/api/runs/${encodeURIComponent(runId)}/rerun`, body);
    replay?.close();
    ui.empty?.remove();
    // show continues the new run's conversation: a follow-up builds on the fork.
    show(run);
  },
});
const get = (url) => request('GET', url);
const runList = $('run-list') && new RunList(
  { list: $('run-list'), search: $('run-search'), history: $('run-history'), none: $('run-none') },
  { get, open: play, compare: new Compare($('compare-dialog'), $('run-list'), get) },
);

// ---- recordings, from a file: no server, no model --------------------------

// A viewer's page follows the operator's runs, which a recording would hide.
const replay = viewer ? null : new Replay({
  bar: $('recording-bar'),
  label: $('recording-label'),
  play: $('replay-play'),
  step: $('replay-step'),
  speed: $('replay-speed'),
  progress: $('replay-progress'),
  close: $('replay-close'),
  open: $('open-recording'),
  file: $('recording-file'),
  error: $('recording-error'),
  errorText: $('recording-error-text'),
  errorClose: $('recording-error-close'),
}, {
  busy: () => (state.live ? 'a run is in progress: stop it or let it finish, then open the recording' : ''),
  begin(header) {
    newConversation();
    ui.empty.remove();
    const turn = addTurn(header.run?.message ?? '');
    turn.classList.add('is-recording');
    turn.querySelector('.who').textContent = 'Recorded request';
    return new RunView(turn, {
      showInput: (input, round, marks) => dialog.show(input, round, marks),
      announce: (text) => {
        ui.announcer.textContent = text;
      },
    });
  },
  status: setStatus,
  scroll: scrollLater,
  end() {
    ui.chat.replaceChildren(ui.empty);
    setLive(null);
  },
});

// A link pasted into the address bar of an open page opens its run too.
window.addEventListener('hashchange', () => {
  const id = linkedRun();
  if (id && id !== state.watched) openRun(id);
});

/**
 * start opens the run the address names, if any: on a reload mid-run it
 * follows the run again from its first event. A viewer then follows the
 * operator's next runs, not the newest one there was when the link was
 * opened.
 */
async function start() {
  const linked = linkedRun();
  if (linked) await openRun(linked);
  if (viewer) {
    if (linked) state.watched = (await get('/api/runs/latest').catch(() => ({}))).id ?? state.watched;
    watch();
  }
}

// Esc stops a live run, presenting or not; otherwise it leaves presenter mode.
startPresenter({ escapeStops: () => Boolean(state.live) && !viewer });
start();
if (runList) {
  runList.poll();
  get('/api/health').then((h) => runList.showHistory(h.history), () => {});
}
checkHealth();
loadModels();
