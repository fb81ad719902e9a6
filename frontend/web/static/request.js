// request.js: the head of a turn, the request the person sent. A long one
// is clamped to a few lines with "Show all", so that a pasted document
// does not push the run's cards a screen away; a run gets its link, which
// opens it on any page of this toolscope, and, once it has finished, its
// export as a recording.
import { el } from './dom.js';

/** runLink is the address that opens run id: the page with #run=id. */
export function runLink(id) {
  return `${location.origin}${location.pathname}#run=${encodeURIComponent(id)}`;
}

/** linkedRun is the run the address names (#run=r-…), or ''. */
export function linkedRun() {
  return new URLSearchParams(location.hash.slice(1)).get('run') ?? '';
}

/**
 * clampRequest folds the turn's request to its first lines when it is
 * longer, with a button that unfolds it. The turn must be on the page: the
 * lines are counted as laid out.
 */
export function clampRequest(turn) {
  const text = turn.querySelector('[data-slot=message]');
  text.classList.add('is-clamped');
  if (text.scrollHeight <= text.clientHeight + 1) {
    text.classList.remove('is-clamped');
    return;
  }
  const toggle = Object.assign(el('button', 'ghost request-toggle', 'Show all'), { type: 'button' });
  toggle.setAttribute('aria-expanded', 'false');
  toggle.addEventListener('click', () => {
    const folded = text.classList.toggle('is-clamped');
    toggle.textContent = folded ? 'Show all' : 'Show less';
    toggle.setAttribute('aria-expanded', String(!folded));
  });
  text.after(toggle);
}

/**
 * showAttached lists, under the turn's request, the MCP resources it
 * attached: the server read them into the user's turn, before the text,
 * as the round's input shows.
 * @param {HTMLElement} turn
 * @param {import('./resources.js').ResourceRef[]} resources
 */
export function showAttached(turn, resources) {
  if (!resources.length) return;
  const list = el('ul', 'attachments is-sent');
  list.setAttribute('aria-label', 'Attached resources');
  for (const ref of resources) {
    const chip = el('li', 'attachment', ref.name || ref.uri);
    chip.title = `${ref.uri} · MCP server ${ref.server}`;
    list.append(chip);
  }
  turn.querySelector('[data-slot=message]')?.after(list);
}

/**
 * addRunActions puts the run's Copy link, and with exportable its Export,
 * under the turn's request. It returns a function to call when the run has
 * finished: a run is exported whole, so Export waits for its end.
 */
export function addRunActions(turn, id, { exportable }) {
  const bar = el('div', 'run-actions');
  const link = Object.assign(el('a', 'run-link', 'Copy link'), { href: runLink(id), title: 'Copy the address that opens this run' });
  link.addEventListener('click', (ev) => {
    ev.preventDefault();
    copy(link.href).then(
      () => flash(link, 'Link copied'),
      () => flash(link, 'Select the address to copy it'),
    );
  });
  bar.append(link);
  const download = exportable && Object.assign(el('a', 'run-export', 'Export'), {
    href: `/api/runs/${encodeURIComponent(id)}/export`,
    download: `toolscope-${id}.jsonl`,
    title: 'Save the run as a recording (JSON Lines) that the page and toolscope replay play with no model',
    hidden: true,
  });
  if (download) bar.append(download);
  turn.querySelector('.user-msg').append(bar);
  return () => {
    if (download) download.hidden = false;
  };
}

/**
 * copy puts text on the clipboard. The Clipboard API exists only in a
 * secure context, which an http:// address on the LAN is not, and may be
 * refused: then the older way.
 */
async function copy(text) {
  try {
    await navigator.clipboard.writeText(text);
    return;
  } catch {
    // falls through
  }
  const area = Object.assign(document.createElement('textarea'), { value: text });
  document.body.append(area);
  area.select();
  const ok = document.execCommand('copy');
  area.remove();
  if (!ok) throw new Error('the browser refused to copy');
}

/** flash shows a short confirmation in place of a link's label. */
function flash(link, text) {
  link.dataset.label ??= link.textContent;
  link.textContent = text;
  clearTimeout(link.flashed);
  link.flashed = setTimeout(() => {
    link.textContent = link.dataset.label;
  }, 1500);
}
