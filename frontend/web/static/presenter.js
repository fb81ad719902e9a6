// presenter.js: presenter mode, for a projector at 1280×720. prefs.js
// remembers it and applies its look before the first paint (large type, no
// side panel, no demo note: the header's "demo model" badge stays, and the
// loop map on); this module keeps the current round whole in view, by
// folding the cards before it to their one-line previews, and wires the
// keys: P switches the mode, Esc leaves it when Esc would not stop a run.
import { fold } from './pipeline.js';
import { RUN_EVENT } from './runevent.js';
import { followRuns } from './loopmap.js';
import { shortcut } from './keys.js';

const root = document.documentElement;
const presenting = () => root.classList.contains('presenting');

// What a folded card previews, by kind; other cards preview their text.
const previewOf = {
  tools: '.chosen-tool code',
  send: '[data-slot=last-text]',
  call: '[data-slot=json]',
  exec: '[data-slot=call], [data-slot=result]:not([hidden]), [data-slot=error]:not([hidden])',
};

function preview(card) {
  const kind = [...card.classList].find((c) => c.startsWith('step-'))?.slice(5);
  if (previewOf[kind]) return [...card.querySelectorAll(previewOf[kind])].map((el) => el.textContent).join(' → ');
  return (card.querySelector('[data-slot=text]') ?? card.querySelector('.step-body')).textContent;
}

/**
 * foldAway folds a card once: a card the presenter opens again stays open,
 * a live card keeps streaming where it can be seen, and a paused one keeps
 * its controls in sight, though later cards follow it.
 */
function foldAway(card) {
  if (card.dataset.presented || card.classList.contains('is-live') || card.classList.contains('is-paused')) return;
  card.dataset.presented = 'folded';
  if (card.querySelector('details').open) fold(card, preview(card));
}

/** overflow is how much taller the round is than the chat's view, with what follows it. */
function overflow(chat, round) {
  const view = chat.getBoundingClientRect();
  const box = round.getBoundingClientRect();
  const after = chat.scrollHeight - (box.bottom - view.top + chat.scrollTop);
  return box.height + after + parseFloat(getComputedStyle(chat).paddingTop) - chat.clientHeight;
}

/**
 * fit folds every card of the rounds before the newest, then the newest
 * round's cards from its top until the round fits in the chat; its newest
 * card always stays open.
 */
function fit(chat) {
  const rounds = [...chat.querySelectorAll('.round')];
  const current = rounds.pop();
  if (!current) return;
  for (const card of rounds.flatMap((r) => [...r.querySelectorAll('.step')])) foldAway(card);
  for (const card of [...current.querySelectorAll('.step')].slice(0, -1)) {
    if (overflow(chat, current) <= 0) break;
    foldAway(card);
  }
}

/**
 * startPresenter keeps the current round in view while presenting, lights
 * the loop map, and wires P and Esc. escapeStops says whether Esc stops a
 * run now, which it still does in presenter mode.
 */
export function startPresenter({ escapeStops }) {
  followRuns();
  const chat = /** @type {HTMLElement} */ (document.getElementById('chat'));
  const toggle = /** @type {HTMLElement} */ (document.getElementById('toggle-present'));
  let queued = false;
  chat.addEventListener(RUN_EVENT, () => {
    if (queued || !presenting()) return;
    queued = true;
    requestAnimationFrame(() => {
      queued = false;
      if (presenting()) fit(chat);
    });
  });
  let was = presenting();
  const switched = () => {
    if (was === presenting()) return;
    was = presenting();
    if (!was) return;
    fit(chat);
    chat.scrollTop = chat.scrollHeight;
  };
  new MutationObserver(switched).observe(root, { attributes: true, attributeFilter: ['class'] });
  document.addEventListener('keydown', (ev) => {
    // Esc in a text field first leaves the field (composer.js), and only then the mode.
    const leave = ev.key === 'Escape' && presenting() && !escapeStops();
    if ((leave || ev.key === 'p' || ev.key === 'P') && shortcut(ev)) {
      ev.preventDefault();
      toggle.click();
    }
  });
}
