// app.js: the playground's wiring. It starts runs from the composer,
// follows each run's events into a RunView, and keeps the side panel (run
// status, Stop, New conversation, health, models) up to date. On a viewer
// link's page, which has no composer, Stop or settings, it follows the
// operator's runs instead.
import { el } from './dom.js';
import { createTurn, eventTypes, RunView, turnRound } from './pipeline.js';
import { InputDialog } from './dialog.js';
import { Replay } from './replay.js';
import { runOptions } from './options.js';
import { lineage, Rerun } from './rerun.js';
import { Compare } from './compare.js';
import { startPresenter } from './presenter.js';
import { pausedOn, waitsFor } from './step.js';
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
if (new URLSearchParams(location.search).has('token')) history.replaceState(null, '', location.pathname);

// conversation is the server's id for the history follow-ups build on;
// live is the run in progress: {id, view, source}; watched, on a viewer's
// page, the id of the operator's run last shown.
const state = { conversation: null, live: null, watched: null };

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
  const turn = createTurn(text);
  ui.chat.append(turn);
  pinToBottom();
  ui.message.value = '';
  fitMessage();
  setLive({ id: null });

  let run;
  try {
    run = await request('POST', '/api/runs', { message: text, conversation_id: state.conversation ?? undefined, ...runOptions(ui.settings) });
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
  follow(run, turn);
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
  refreshServers();
  // The run list would say "running" until its next poll.
  if (runHistory) refreshRuns();
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

/**
 * startedAt says when a run started, in the reader's locale: the time for
 * a run of today, the date too for one of an earlier day, and the year for
 * one of an earlier year.
 */
function startedAt(iso) {
  const at = new Date(iso);
  const now = new Date();
  if (at.toDateString() === now.toDateString()) return at.toLocaleTimeString();
  const date = { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' };
  if (at.getFullYear() !== now.getFullYear()) date.year = 'numeric';
  return at.toLocaleString(undefined, date);
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

/** show draws a run the operator started, after the earlier turns of its conversation. */
function show(run) {
  state.watched = run.id;
  state.live?.source?.close();
  if (run.conversation_id !== state.conversation) ui.chat.replaceChildren();
  state.conversation = run.conversation_id;
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

// ---- the runs the server keeps, on the operator's page ----------------------

// The list is polled every RUNS_MS: runs from the API start without the page.
const RUNS_MS = 2000;
const runList = $('run-list');

const runSearch = $('run-search');
const runHistory = $('run-history');
let runsAsked = 0; // numbers the requests, so that an older answer never replaces a newer one
const runItems = new Map(); // run id → {shows: what its entry says, item: the entry}

async function listRuns() {
  await refreshRuns();
  setTimeout(listRuns, RUNS_MS);
}

/** refreshRuns shows the runs that match the search box: kept ones and past ones from the history. */
async function refreshRuns() {
  const asked = ++runsAsked;
  const q = runSearch?.value.trim() ?? '';
  try {
    const { runs, history, history_error: problem } = await request('GET', q ? `/api/runs?q=${encodeURIComponent(q)}` : '/api/runs');
    if (asked !== runsAsked) return;
    showRuns(runs);
    // A history that fails mid-session (a full disk) says so at the next poll.
    showHistory(problem ? { on: false, off: problem } : history);
  } catch {
    // The status line already says when toolscope cannot be reached.
  }
}

/** showHistory says, under the search box, when past runs are not kept. */
function showHistory(history) {
  if (!runHistory || !history) return;
  runHistory.hidden = history.on;
  runHistory.textContent = history.on ? '' : `History is off: ${history.off}`;
}

let searchTimer;
runSearch?.addEventListener('input', () => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(refreshRuns, 200);
});

/**
 * showRuns puts runs in the list, newest first. An entry whose run looks
 * as it did at the last poll stays the same element, where it was: a poll
 * every RUNS_MS would otherwise take the keyboard's focus off the entry,
 * or off its Compare box, each time.
 */
function showRuns(runs) {
  const focused = runList.contains(document.activeElement) ? document.activeElement : null;
  const wanted = runs.map((run) => {
    const shows = JSON.stringify([run.source, run.user_agent, run.message, run.status, run.started_at, run.stored, run.forked_from]);
    const kept = runItems.get(run.id);
    return kept?.shows === shows ? kept : { id: run.id, shows, item: runItem(run) };
  });
  const items = new Set(wanted.map((entry) => entry.item));
  for (const item of [...runList.children]) if (!items.has(item)) item.remove();
  runItems.clear();
  // Moving an element drops the focus it holds: kept entries keep their
  // order, so only new and redrawn ones move.
  wanted.forEach((entry, i) => {
    runItems.set(entry.id, entry);
    if (runList.children[i] !== entry.item) runList.insertBefore(entry.item, runList.children[i] ?? null);
  });
  // A redrawn entry takes the focus over from the one it replaces.
  if (focused && !focused.isConnected) {
    const id = CSS.escape(focused.dataset.id ?? focused.dataset.compare ?? '');
    runList.querySelector(focused.dataset.compare ? `[data-compare="${id}"]` : `.run-item[data-id="${id}"]`)?.focus();
  }
}

/** runItem is one run of the list: where it came from, what was asked, its state. */
function runItem(run) {
  const item = document.createElement('li');
  const button = Object.assign(el('button', 'run-item'), { type: 'button' });
  button.dataset.id = run.id;
  button.dataset.source = run.source;
  const from = el('span', 'run-source', run.source === 'api' ? `API · ${run.user_agent || 'unknown client'}` : 'page');
  const asked = el('span', 'run-message', run.message || '(tool results)');
  const status = el('span', 'run-state', `${run.status} · ${startedAt(run.started_at)}`);
  status.title = `started ${new Date(run.started_at).toLocaleString()}`;
  if (run.forked_from) status.textContent += ` · rerun of round ${run.forked_from.round}`;
  button.append(from, asked, status);
  button.addEventListener('click', () => play(run));
  item.append(button, compare.checkbox(run));
  return item;
}

/** play shows a kept run with its whole pipeline, live if it still runs. */
function play(run) {
  replay?.close();
  const { id, message, forked_from, stored, started_at } = run;
  show({ id, conversation_id: `run:${id}`, message, events: `/api/runs/${id}/events`, forked_from, stored, started_at });
  // The page's next message starts a conversation of its own.
  state.conversation = null;
}

/** openRun plays a kept run known by its id alone, as a lineage link names it. */
async function openRun(id) {
  try {
    play(await request('GET', `/api/runs/${encodeURIComponent(id)}`));
  } catch (err) {
    showComposerError(`Could not show run ${id}: ${err.message}`);
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
const compare = runList && new Compare($('compare-dialog'), runList, (url) => request('GET', url));

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
    const turn = createTurn(header.run?.message ?? '');
    turn.classList.add('is-recording');
    turn.querySelector('.who').textContent = 'Recorded request';
    ui.chat.append(turn);
    pinToBottom();
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

// Esc stops a live run, presenting or not; otherwise it leaves presenter mode.
startPresenter({ escapeStops: () => Boolean(state.live) && !viewer });
if (viewer) watch();
else if (runList) {
  listRuns();
  request('GET', '/api/health').then((h) => showHistory(h.history), () => {});
}
checkHealth();
loadModels();
