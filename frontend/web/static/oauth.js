// oauth.js: an MCP server's sign-in (OAuth) from the side panel. A server
// that asks for one shows "Connect to <server>" with Authorize; the button
// opens the server's authorization page in a new tab, toolscope's own
// /oauth/callback takes the code, and once the server has connected its
// tools replace the panel's, with no reload; the hook then fills what
// other modules own in the new panel (the resources and prompts boxes).
import { request } from './api.js';

/** How often to ask whether the sign-in is done, in milliseconds. */
const pollEvery = 1000;

/**
 * @typedef {object} OAuthHooks
 * @property {() => void} panelReplaced runs once the tools panel has been
 *   replaced after a sign-in, to fill the parts of it other modules own
 */

/**
 * startOAuth wires every Authorize button, now and after the panel is replaced.
 * @param {OAuthHooks} hooks
 */
export function startOAuth(hooks) {
  document.addEventListener('click', (event) => {
    const button = /** @type {HTMLElement} */ (event.target).closest?.('.mcp-authorize');
    if (button instanceof HTMLButtonElement) authorize(button, hooks);
  });
}

/**
 * authorize starts the sign-in of the button's server and follows it.
 * @param {HTMLButtonElement} button
 * @param {OAuthHooks} hooks
 */
async function authorize(button, hooks) {
  const name = button.dataset.server ?? '';
  const note = /** @type {HTMLElement} */ (button.parentElement?.querySelector('.mcp-signin-note'));
  // Opened now, while the click counts as the user's: a tab opened after
  // the request's await would be taken for a pop-up and blocked.
  const tab = window.open('', '_blank');
  if (tab) tab.opener = null;
  button.disabled = true;
  note.textContent = 'Asking the server where to sign in…';
  let url;
  try {
    ({ url } = await request('POST', `/api/mcp/servers/${encodeURIComponent(name)}/authorize`));
  } catch (err) {
    tab?.close();
    note.textContent = /** @type {Error} */ (err).message;
    button.disabled = false;
    return;
  }
  if (tab) {
    tab.location.href = url;
    note.textContent = 'Approve in the new tab; the tools appear here once you have.';
  } else {
    const link = Object.assign(document.createElement('a'), { href: url, target: '_blank', rel: 'noopener', textContent: 'Open the authorization page' });
    note.replaceChildren(link, ' (the browser blocked the new tab); the tools appear here once you have approved.');
  }
  follow(name, button, note, hooks);
}

/**
 * follow asks for the server's state until the sign-in has ended: then
 * the panel shows its tools, or why it failed.
 * @param {string} name
 * @param {HTMLButtonElement} button
 * @param {HTMLElement} note
 * @param {OAuthHooks} hooks
 */
function follow(name, button, note, hooks) {
  const timer = setInterval(async () => {
    let servers;
    try {
      ({ servers } = await request('GET', '/api/mcp'));
    } catch {
      return; // the health check says when toolscope does not answer
    }
    const s = servers.find((/** @type {{name: string}} */ s) => s.name === name);
    if (!s || s.sign_in === 'waiting') return;
    clearInterval(timer);
    if (s.state === 'ready' && !s.sign_in) {
      if (await replaceToolsPanel()) hooks.panelReplaced();
      return;
    }
    note.textContent = s.sign_in_error || s.error || 'The sign-in did not finish.';
    button.disabled = false;
  }, pollEvery);
}

/**
 * replaceToolsPanel shows the tools as toolscope has them now, from a
 * fresh copy of the page, and reports whether it did.
 * @returns {Promise<boolean>}
 */
async function replaceToolsPanel() {
  const selector = 'section[aria-labelledby="tools-heading"]';
  const res = await fetch('/', { headers: { Accept: 'text/html' } });
  const fresh = new DOMParser().parseFromString(await res.text(), 'text/html').querySelector(selector);
  const panel = document.querySelector(selector);
  if (!fresh || !panel) return false;
  panel.replaceWith(document.importNode(fresh, true));
  return true;
}
