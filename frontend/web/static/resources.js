// resources.js: what MCP servers offer besides tools. The side panel lists
// each server's resources, resource templates and prompts under it
// (GET /api/mcp/resources, /api/mcp/prompts); a resource opens in a dialog
// (GET /api/mcp/resources/read) and may be attached to the next request,
// which the server reads into the user's turn; a prompt, its arguments
// filled in, becomes the request in the composer (POST
// /api/mcp/prompts/get). A tool result's resource links and embedded
// resources are drawn as such on its card (resultParts), from the
// tools/call response in the event's JSON-RPC messages.
import { request } from './api.js';
import { el, fill, plural, slot } from './dom.js';

/**
 * A resource reference, as a request attaches it.
 * @typedef {{server: string, uri: string, name?: string}} ResourceRef
 */

/** size writes a byte count for people: "812 bytes", "12 KB", "1.5 MB". */
export function size(n) {
  if (n < 1024) return plural(n, 'byte');
  if (n < 1 << 20) return `${Math.round(n / 1024)} KB`;
  return `${(n / (1 << 20)).toFixed(1)} MB`;
}

/** resourceMeta words a resource's type and size: "text/plain · 12 KB". */
function resourceMeta(mimeType, bytes) {
  return [mimeType || 'no stated type', bytes ? size(bytes) : ''].filter(Boolean).join(' · ');
}

/**
 * openResource opens a resource in the dialog, when the page has a
 * Catalog (the operator's page); null otherwise, as on a viewer's page.
 * @type {((ref: ResourceRef) => void) | null}
 */
let openResource = null;

/** How soon to ask again while a server is still listing, in milliseconds. */
const listingPoll = 500;

export class Catalog {
  /**
   * @param {{dialog: HTMLDialogElement}} ui #resource-dialog
   * @param {{attach: (ref: ResourceRef) => void, useRequest: (text: string) => void}} hooks
   *   attach adds a resource to the next request; useRequest puts a prompt's text in the composer
   */
  constructor(ui, hooks) {
    this.dialog = ui.dialog;
    this.hooks = hooks;
    /** @type {ResourceRef | null} the resource the dialog shows */
    this.shown = null;
    /** @type {number | undefined} the next load, while a server's first listing is under way */
    this.again = undefined;
    this.title = /** @type {HTMLElement} */ (this.dialog.querySelector('#resource-title'));
    this.note = /** @type {HTMLElement} */ (this.dialog.querySelector('#resource-note'));
    this.body = /** @type {HTMLElement} */ (this.dialog.querySelector('#resource-body'));
    this.dialog.querySelector('#resource-close')?.addEventListener('click', () => this.dialog.close());
    this.dialog.querySelector('#resource-attach')?.addEventListener('click', () => {
      if (this.shown) this.hooks.attach(this.shown);
      this.dialog.close();
    });
    this.dialog.addEventListener('click', (ev) => {
      if (ev.target === this.dialog) this.dialog.close();
    });
    openResource = (ref) => this.open(ref);
  }

  /** load lists each server's resources and prompts, anew: a server may have announced changes. */
  async load() {
    const boxes = document.querySelectorAll('.mcp-catalog[data-server]');
    if (!boxes.length) return;
    let resources, prompts;
    try {
      [resources, prompts] = await Promise.all([request('GET', '/api/mcp/resources'), request('GET', '/api/mcp/prompts')]);
    } catch {
      return; // the health check says when toolscope does not answer
    }
    for (const box of boxes) {
      const server = /** @type {HTMLElement} */ (box).dataset.server ?? '';
      const r = resources.servers.find((/** @type {any} */ s) => s.server === server);
      const p = prompts.servers.find((/** @type {any} */ s) => s.server === server);
      this.showResources(/** @type {HTMLElement} */ (box), server, r);
      this.showPrompts(/** @type {HTMLElement} */ (box), server, p);
      /** @type {HTMLElement} */ (box).hidden = !(r?.offered || p?.offered);
    }
    // A server that has just connected lists its resources and prompts
    // off the handshake: until it has, its lists are empty, not final.
    const listing = [...resources.servers, ...prompts.servers].some((/** @type {any} */ s) => s.listing);
    clearTimeout(this.again);
    if (listing) this.again = setTimeout(() => this.load(), listingPoll);
  }

  showResources(box, server, r) {
    const section = slot(box, 'resources');
    section.hidden = !r?.offered;
    if (!r?.offered) return;
    const n = r.resources.length + r.templates.length;
    fill(section, { 'resource-count': String(n), 'resource-error': r.error ?? '' });
    slot(section, 'resource-error').hidden = !r.error;
    const items = r.resources.map((/** @type {any} */ res) => this.resourceItem(server, res));
    for (const t of r.templates) items.push(this.templateItem(server, t));
    if (!n) items.push(el('li', 'hint', r.listing ? 'Listing…' : 'None listed.'));
    slot(section, 'resource-list').replaceChildren(...items);
  }

  resourceItem(server, res) {
    const item = el('li', 'resource');
    const name = res.title || res.name || res.uri;
    const head = el('div', 'resource-head');
    head.append(el('strong', 'resource-name', name));
    const open = button('Open', 'Read it (resources/read)');
    open.addEventListener('click', () => this.open({ server, uri: res.uri, name }));
    const attach = button('Attach', 'Attach it to the next request: it is read into your message');
    attach.addEventListener('click', () => this.hooks.attach({ server, uri: res.uri, name }));
    head.append(open, attach);
    const uri = el('code', 'resource-uri', res.uri);
    uri.title = res.uri;
    item.append(head, uri);
    const about = el('p', 'hint resource-desc', [resourceMeta(res.mimeType, res.size), res.description].filter(Boolean).join(' · '));
    about.title = res.description ?? '';
    item.append(about);
    return item;
  }

  /** templateItem is a resource template: its URI filled in by hand, then read or attached. */
  templateItem(server, t) {
    const item = el('li', 'resource is-template');
    const head = el('div', 'resource-head');
    head.append(el('strong', 'resource-name', t.title || t.name), el('span', 'badge', 'template'));
    const form = el('form', 'template-form');
    const input = Object.assign(el('input'), { value: t.uriTemplate, required: true, spellcheck: false });
    input.setAttribute('aria-label', `URI from the template ${t.uriTemplate}`);
    const open = button('Open', 'Read the URI written here');
    open.type = 'submit';
    const attach = button('Attach', 'Attach the URI written here to the next request');
    form.append(input, open, attach);
    const ref = () => ({ server, uri: input.value.trim(), name: input.value.trim() });
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      this.open(ref());
    });
    attach.addEventListener('click', () => {
      if (form.reportValidity()) this.hooks.attach(ref());
    });
    const about = el('p', 'hint resource-desc', [resourceMeta(t.mimeType, 0), t.description].filter(Boolean).join(' · '));
    about.title = t.description ?? '';
    item.append(head, form, about);
    return item;
  }

  showPrompts(box, server, p) {
    const section = slot(box, 'prompts');
    section.hidden = !p?.offered;
    if (!p?.offered) return;
    fill(section, { 'prompt-count': String(p.prompts.length), 'prompt-error': p.error ?? '' });
    slot(section, 'prompt-error').hidden = !p.error;
    const items = p.prompts.map((/** @type {any} */ prompt) => this.promptItem(server, prompt));
    if (!items.length) items.push(el('li', 'hint', p.listing ? 'Listing…' : 'None listed.'));
    slot(section, 'prompt-list').replaceChildren(...items);
  }

  /**
   * promptItem is a prompt with a small form of its arguments: using it
   * gets its messages (prompts/get) and puts them in the composer.
   */
  promptItem(server, prompt) {
    const item = el('li', 'prompt');
    item.dataset.name = prompt.name;
    const head = el('div', 'resource-head');
    head.append(el('strong', 'resource-name', prompt.title || prompt.name));
    const use = button('Use', 'Fill in its arguments and make it the request');
    head.append(use);
    item.append(head);
    // The name is what prompts/get asks for; a title only shows.
    if (prompt.title && prompt.title !== prompt.name) item.append(el('code', 'resource-uri', prompt.name));
    if (prompt.description) {
      const about = el('p', 'hint resource-desc', prompt.description);
      about.title = prompt.description;
      item.append(about);
    }
    const form = el('form', 'prompt-form');
    form.hidden = true;
    const args = prompt.arguments ?? [];
    /** @type {Map<string, HTMLInputElement>} */
    const inputs = new Map();
    for (const a of args) {
      const label = el('label', 'prompt-arg', a.title || a.name);
      if (a.required) label.append(el('span', 'required-mark', ' *'));
      const input = Object.assign(el('input'), { name: a.name, required: Boolean(a.required), placeholder: a.description ?? '' });
      label.append(input);
      inputs.set(a.name, /** @type {HTMLInputElement} */ (input));
      form.append(label);
    }
    const submit = button('Use as the request', 'Get its messages (prompts/get) and put them in the message box');
    submit.type = 'submit';
    const error = el('p', 'mcp-error');
    error.hidden = true;
    form.append(submit, error);
    use.addEventListener('click', () => {
      // A prompt without arguments needs no form.
      if (!args.length) {
        this.usePrompt(server, prompt.name, {}, error, form);
        return;
      }
      form.hidden = !form.hidden;
      if (!form.hidden) inputs.values().next().value?.focus();
    });
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      const values = Object.fromEntries([...inputs].filter(([, input]) => input.value !== '').map(([k, input]) => [k, input.value]));
      this.usePrompt(server, prompt.name, values, error, form);
    });
    item.append(form);
    return item;
  }

  async usePrompt(server, name, args, error, form) {
    try {
      const got = await request('POST', '/api/mcp/prompts/get', { server, name, arguments: args });
      error.hidden = true;
      form.hidden = true;
      this.hooks.useRequest(got.request);
    } catch (err) {
      form.hidden = false;
      error.textContent = err.message;
      error.hidden = false;
    }
  }

  /** open reads a resource into the dialog. */
  async open(ref) {
    this.shown = ref;
    const { title, note, body } = this;
    title.textContent = ref.name || ref.uri;
    note.textContent = `${ref.uri} · MCP server ${ref.server} · reading…`;
    body.replaceChildren();
    if (!this.dialog.open) this.dialog.showModal();
    let got;
    try {
      got = await request('GET', `/api/mcp/resources/read?${new URLSearchParams({ server: ref.server, uri: ref.uri })}`);
    } catch (err) {
      note.textContent = `${ref.uri} · MCP server ${ref.server}`;
      body.append(el('p', 'mcp-error', err.message));
      return;
    }
    note.textContent = `${ref.uri} · MCP server ${ref.server} · ${plural(got.contents.length, 'content block')}`;
    for (const c of got.contents) body.append(contentBlock(c));
  }
}

/** contentBlock draws one content of a resource read: text as it is, an image, or a blob's type and size. */
function contentBlock(c) {
  const block = el('section', 'resource-content');
  block.append(el('p', 'hint resource-meta', `${c.uri} · ${resourceMeta(c.mimeType, c.size)}`));
  if (c.blob && /^image\/(png|jpeg|gif|webp)$/.test(c.mimeType ?? '')) {
    const img = Object.assign(document.createElement('img'), { src: `data:${c.mimeType};base64,${c.blob}`, alt: c.uri });
    block.append(img);
  } else if (c.blob) {
    block.append(el('p', 'resource-blob', `Binary content: ${resourceMeta(c.mimeType, c.size)}`));
  } else {
    block.append(el('pre', 'resource-text', c.text ?? ''));
  }
  return block;
}

function button(text, title) {
  const b = /** @type {HTMLButtonElement} */ (el('button', 'ghost small', text));
  b.type = 'button';
  b.title = title;
  return b;
}

// ---- a tool result's resources -----------------------------------------------

/**
 * callResult finds the result of a call's tools/call among its JSON-RPC
 * messages: the response to the request it sent.
 * @param {{direction: string, body: any}[]} wire
 */
function callResult(wire) {
  const call = wire.find((m) => m.direction === 'sent' && m.body?.method === 'tools/call');
  if (!call) return null;
  const answer = wire.find((m) => m.direction === 'received' && m.body?.id === call.body.id && m.body.result);
  return answer?.body.result ?? null;
}

/**
 * serverOf names the MCP server that offers tool, when the side panel
 * lists it and it is connected; '' otherwise.
 * @param {string} tool
 */
function serverOf(tool) {
  for (const group of document.querySelectorAll('.tool-group[data-source^="mcp:"]')) {
    const names = [...group.querySelectorAll('.tool-name')].map((n) => n.textContent);
    const state = group.querySelector('.mcp-server .badge')?.textContent;
    if (names.includes(tool) && state === 'ready') return /** @type {HTMLElement} */ (group).dataset.source?.slice(4) ?? '';
  }
  return '';
}

/**
 * resultParts draws, under a tool's result, the resource links and
 * embedded resources its MCP server answered with: a link as a chip (name,
 * URI, type) that opens the resource while its server is connected, an
 * embedded text as a titled block, a blob as its type and size. The text
 * the model read stays as it is above.
 * @param {HTMLElement} card the tool's card
 * @param {{call: {name: string}, wire?: {direction: string, body: any}[]}} e its tool_finished event
 */
export function resultParts(card, e) {
  const content = callResult(e.wire ?? [])?.content ?? [];
  const parts = content.filter((/** @type {any} */ c) => c.type === 'resource_link' || c.type === 'resource');
  if (!parts.length) return;
  const server = openResource ? serverOf(e.call.name) : '';
  const list = el('ul', 'result-parts');
  list.setAttribute('aria-label', 'Resources in the result');
  for (const c of parts) list.append(c.type === 'resource_link' ? linkChip(c, server) : embedded(c.resource ?? {}));
  card.querySelector('[data-slot="result"]')?.after(list);
}

function linkChip(link, server) {
  const chip = el('li', 'resource-link');
  chip.append(el('span', 'badge', 'resource link'), el('strong', 'resource-name', link.title || link.name || link.uri), el('code', 'resource-uri', link.uri));
  const meta = resourceMeta(link.mimeType, link.size);
  chip.append(el('span', 'hint resource-meta', meta));
  if (server && openResource) {
    const open = button('Open', `Read it from MCP server ${server}`);
    const opener = openResource;
    open.addEventListener('click', () => opener({ server, uri: link.uri, name: link.title || link.name }));
    chip.append(open);
  }
  return chip;
}

function embedded(r) {
  const block = el('li', 'resource-embedded');
  const head = el('p', 'resource-head');
  head.append(el('span', 'badge', 'embedded resource'), el('code', 'resource-uri', r.uri ?? ''));
  block.append(head);
  if (r.blob !== undefined) {
    // base64: three bytes for every four characters, less the padding.
    const bytes = Math.floor((r.blob.length * 3) / 4) - (r.blob.match(/=*$/)?.[0].length ?? 0);
    block.append(el('p', 'resource-blob', `Binary content: ${resourceMeta(r.mimeType, bytes)}`));
  } else {
    head.append(el('span', 'hint resource-meta', resourceMeta(r.mimeType, 0)));
    block.append(el('pre', 'resource-text', r.text ?? ''));
  }
  return block;
}
