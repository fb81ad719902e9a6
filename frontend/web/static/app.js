// app.js: the page's composition root. It finds the page's parts, makes
// the objects that own them, and wires them to one another: the composer
// and the session (the conversation and the run in progress), the status
// line, the chat's scrolling, the server's health, the Runs panel, rerun,
// compare, evals, recordings, the model pulled from the demo banner,
// presenter mode, and the page's keys. Each part
// keeps its own state in its own module; this one keeps none.
import { get } from './api.js';
import { ChatScroll } from './scroll.js';
import { Catalog } from './resources.js';
import { Compare } from './compare.js';
import { Composer } from './composer.js';
import { Health, markOffered } from './health.js';
import { Evals } from './evals.js';
import { InputDialog } from './dialog.js';
import { Pull } from './pull.js';
import { startOAuth } from './oauth.js';
import { Replay } from './replay.js';
import { Rerun } from './rerun.js';
import { RunList } from './runlist.js';
import { runOptions } from './options.js';
import { Session } from './session.js';
import { StatusLine } from './status.js';
import { startPresenter } from './presenter.js';

/**
 * $ finds an element by id. Its type is left open: each use knows the
 * element's kind, and whether a viewer's page lacks it.
 * @param {string} id
 * @returns {any}
 */
const $ = (id) => document.getElementById(id);
const viewer = document.body.hasAttribute('data-viewer');

// The link's token is now in an HttpOnly cookie; off the address bar, it
// cannot be read from a projected screen or a shared screenshot.
if (new URLSearchParams(location.search).has('token')) history.replaceState(null, '', location.pathname + location.hash);

const chat = $('chat');
const settings = $('settings');
const dialog = new InputDialog($('input-dialog'));
// A viewer's page has no Authorize: signing in is the operator's. The
// tools panel a sign-in brings in has the catalog's boxes empty: fill them.
if (!viewer) startOAuth({ panelReplaced: () => catalog?.load() });
const health = new Health({ banner: $('health'), bannerText: $('health-text'), status: $('health-status'), model: $('set-model') }, { viewer });
// A viewer's page has no composer, Stop or New conversation.
const composer = $('composer') && new Composer({ form: $('composer'), message: $('message'), send: $('send'), error: $('composer-error'), chat, attachments: $('attachments') }, {
  send: (text) => session.send(text),
  running: () => Boolean(session.live),
});
const session = new Session({
  chat,
  empty: $('empty'),
  announcer: $('announcer'),
  // The side panel's Stop, and the composer's for when the panel is out of sight.
  stopButtons: [$('stop'), $('composer-stop')].filter(Boolean),
  viewer,
  composer,
  status: new StatusLine({ text: $('run-status'), dot: $('run-dot'), origin: $('run-origin') }),
  scroll: new ChatScroll(chat),
  dialog,
}, {
  options: () => (settings.reportValidity() ? runOptions(settings) : null),
  closeRecording: () => replay?.close(),
  runEnded: () => {
    health.refreshServers();
    // A tool may have changed what the servers offer.
    catalog?.load();
    // The run list would say "running" until its next poll.
    runList?.refresh();
  },
  onTools: markOffered,
  rerunButton: (head, runId, round, input, settings) => rerun?.button(head, runId, round, input, settings),
});

// MCP servers' resources and prompts, the operator's alone: an attached
// resource and a prompt go to the composer.
const catalog = viewer ? null : new Catalog({ dialog: $('resource-dialog') }, {
  attach: (ref) => composer?.attach(ref),
  useRequest: (text) => {
    composer?.set(text, composer.attached());
    composer?.focus();
  },
});

// The viewer's page has neither dialog: it cannot start runs.
const rerun = viewer ? null : new Rerun($('rerun-dialog'), {
  options: () => runOptions(settings),
  busy: () => session.busy('rerun'),
  start: (runId, body) => session.rerun(runId, body),
});
const runList = $('run-list') && new RunList(
  { list: $('run-list'), search: $('run-search'), history: $('run-history'), none: $('run-none') },
  { get, open: (run) => session.play(run), compare: new Compare($('compare-dialog'), $('run-list'), get) },
);
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
  busy: () => session.busy('open the recording'),
  begin: (header) => session.beginRecording(header),
  status: (text, tone) => session.status.set(text, tone),
  scroll: () => session.scroll.later(),
  end: () => session.endRecording(),
});

// The viewer's page has no Evals: an eval starts runs.
const evals = viewer ? null : new Evals($('evals-dialog'), $('set-dialect'));
$('open-evals')?.addEventListener('click', () => evals?.open());

// The demo banner offers the operator to pull the model Ollama lacks.
const pull = $('pull') && new Pull($('pull'), {
  switched: () => {
    health.check();
    health.loadModels();
  },
  announce: (text) => {
    session.announcer.textContent = text;
  },
});

for (const b of session.stopButtons) b.addEventListener('click', () => session.stop());
$('new-conversation')?.addEventListener('click', () => session.newConversation());
$('health-retry').addEventListener('click', () => health.check());
// The empty chat's examples send themselves.
session.empty.addEventListener('click', (ev) => {
  const seed = /** @type {Element} */ (ev.target).closest('[data-prompt]');
  if (seed instanceof HTMLElement) session.send(seed.dataset.prompt ?? '');
});
document.addEventListener('keydown', (ev) => {
  // Esc in the dialog closes the dialog, not the run.
  if (ev.key === 'Escape' && !dialog.open && session.live && !viewer) {
    ev.preventDefault();
    session.stop();
  }
});
// Esc stops a live run, presenting or not; otherwise it leaves presenter mode.
startPresenter({ escapeStops: () => Boolean(session.live) && !viewer });

session.start();
if (runList) {
  runList.poll();
  get('/api/health').then((h) => runList.showHistory(h.history), () => {});
}
health.check();
health.loadModels();
catalog?.load();
pull?.resume();
