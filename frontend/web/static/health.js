// health.js: what the page shows of the server itself: whether the model
// is ready (the banner over the chat, and Health in the side panel), the
// state of each MCP server, the models to choose, and which of the side
// panel's tools the newest run offered the model.
import { request } from './api.js';

export class Health {
  /**
   * @param {{banner: HTMLElement, bannerText: HTMLElement, status: HTMLElement, model: HTMLSelectElement | null}} ui
   *   #health, #health-text, #health-status, and the Settings panel's #set-model, which a viewer's page lacks
   * @param {{viewer: boolean}} audience a viewer may not read MCP servers' details
   */
  constructor(ui, { viewer }) {
    this.ui = ui;
    this.viewer = viewer;
  }

  /** check asks whether the model is ready, and shows the answer. */
  async check() {
    this.refreshServers();
    let h;
    try {
      h = await request('GET', '/api/health');
    } catch (err) {
      h = { ok: false, error: `toolscope did not answer (${err.message}) — is it still running?` };
    }
    // After a fallback Ollama may have come up; only a restart uses it.
    const demo = h.ollama?.ready ? 'demo · Ollama is ready now: restart toolscope to use it' : 'ready (offline)';
    const { banner, bannerText, status } = this.ui;
    status.textContent = h.ok ? (h.demo ? demo : `ready · Ollama ${h.ollama_version}`) : 'not ready';
    status.dataset.tone = h.ok ? 'ok' : 'bad';
    banner.hidden = h.ok;
    bannerText.textContent = h.error ?? '';
  }

  /**
   * refreshServers shows the MCP servers' state as toolscope knows it now,
   * so that a server that crashed during a run is marked failed, with why.
   */
  async refreshServers() {
    if (this.viewer) return;
    let servers;
    try {
      ({ servers } = await request('GET', '/api/mcp'));
    } catch {
      return; // check reports a toolscope that does not answer
    }
    for (const s of servers) {
      const head = document.querySelector(`.tool-group[data-source="mcp:${CSS.escape(s.name)}"] .mcp-server`);
      if (!head) continue;
      const badge = /** @type {HTMLElement} */ (head.querySelector('.badge'));
      badge.textContent = s.state;
      badge.className = `badge state-${s.state}`;
      // A server that waits for a sign-in says why in its Authorize box,
      // not as a failure.
      const signIn = /** @type {HTMLElement | null} */ (head.querySelector('.mcp-signin'));
      if (signIn) {
        signIn.hidden = !s.sign_in;
        const note = /** @type {HTMLElement} */ (signIn.querySelector('.mcp-signin-note'));
        if (s.sign_in_error) note.textContent = s.sign_in_error;
      }
      const error = /** @type {HTMLElement} */ (head.querySelector('.mcp-error'));
      error.textContent = s.error ?? '';
      error.hidden = !s.error || Boolean(s.sign_in);
      const protocol = /** @type {HTMLElement} */ (head.querySelector('.mcp-protocol'));
      protocol.textContent = `MCP ${s.protocol ?? ''}`;
      protocol.hidden = !s.protocol;
    }
  }

  /** loadModels offers the backend's models in Settings → Model, the current one kept. */
  async loadModels() {
    const { model } = this.ui;
    if (this.viewer || !model || model.disabled) return;
    try {
      const { models } = await request('GET', '/api/models');
      const current = model.value;
      const names = models.includes(current) ? models : [current, ...models];
      model.replaceChildren(...names.map((/** @type {string} */ name) => new Option(name, name, false, name === current)));
    } catch {
      // The default model stays the only choice; the health check says why.
    }
  }
}

/**
 * markOffered marks the side panel's tools that the newest run offered the model.
 * @param {string[]} names
 */
export function markOffered(names) {
  const offered = new Set(names);
  for (const item of document.querySelectorAll('.tools > li')) {
    const isOffered = offered.has(item.querySelector('.tool-name')?.textContent ?? '');
    item.classList.toggle('is-offered', isOffered);
    item.classList.toggle('is-left-out', !isOffered);
  }
}
