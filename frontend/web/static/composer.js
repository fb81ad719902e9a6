// composer.js: the box a request is typed in, on the operator's page. Enter
// sends, Shift+Enter is a new line, the box grows with its text, and its
// error line says why a request did not start. The composer has the
// keyboard only when someone puts it there (a click, "/", New
// conversation): once a request is sent, or Esc is pressed with no run to
// stop, the keys are the page's again (P, Space, Esc). MCP resources
// attached from the side panel wait above the box, each with its ✕, and
// go with the next request.
import { el } from './dom.js';
import { shortcut } from './keys.js';

// The box grows with its text up to this height, in pixels, then scrolls.
const MAX_HEIGHT = 200;

export class Composer {
  /**
   * @param {{form: HTMLFormElement, message: HTMLTextAreaElement, send: HTMLButtonElement, error: HTMLElement, chat: HTMLElement, attachments: HTMLElement}} ui
   *   #composer, #message, #send, #composer-error, the chat, which takes the keyboard when the composer lets it go, and #attachments
   * @param {{send: (text: string) => void, running: () => boolean}} hooks
   *   send starts a run with the text; running says whether Esc would stop a run
   */
  constructor(ui, hooks) {
    this.ui = ui;
    /** @type {import('./resources.js').ResourceRef[]} */
    this.resources = [];
    const { form, message } = ui;
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      hooks.send(message.value);
      if (document.activeElement === message && !message.value) this.leave();
    });
    message.addEventListener('input', () => this.fit());
    message.addEventListener('keydown', (ev) => {
      // An IME composing text keeps Enter.
      if (ev.key === 'Enter' && !ev.shiftKey && !ev.isComposing) {
        ev.preventDefault();
        form.requestSubmit();
      }
      if (ev.key === 'Escape' && !hooks.running()) {
        ev.preventDefault();
        this.leave();
      }
    });
    // "/" goes to the composer, which does not take the keyboard by itself.
    document.addEventListener('keydown', (ev) => {
      if (ev.key === '/' && shortcut(ev)) {
        ev.preventDefault();
        this.focus();
      }
    });
  }

  focus() {
    this.ui.message.focus();
  }

  /** leave gives the keyboard back to the page, so that P still presents. */
  leave() {
    this.ui.chat.focus({ preventScroll: true });
  }

  /**
   * set puts text in the box, and the resources attached: '' and none once
   * a request is sent, the request and its resources again when it could not start.
   * @param {string} text
   * @param {import('./resources.js').ResourceRef[]} [resources]
   */
  set(text, resources = []) {
    this.ui.message.value = text;
    this.fit();
    this.resources = [...resources];
    this.showAttached();
  }

  /**
   * attach adds an MCP resource to the next request, once.
   * @param {import('./resources.js').ResourceRef} ref
   */
  attach(ref) {
    if (!this.resources.some((r) => r.server === ref.server && r.uri === ref.uri)) this.resources.push(ref);
    this.showAttached();
  }

  /** attached are the resources the next request attaches. */
  attached() {
    return [...this.resources];
  }

  showAttached() {
    const list = this.ui.attachments;
    list.replaceChildren(...this.resources.map((ref, i) => {
      const chip = el('li', 'attachment', ref.name || ref.uri);
      chip.title = `${ref.uri} · MCP server ${ref.server}: read into your message when you send it`;
      const remove = Object.assign(el('button', 'ghost small', '✕'), { type: 'button' });
      remove.setAttribute('aria-label', `Detach ${ref.name || ref.uri}`);
      remove.addEventListener('click', () => {
        this.resources.splice(i, 1);
        this.showAttached();
      });
      chip.append(remove);
      return chip;
    }));
    list.hidden = this.resources.length === 0;
  }

  /**
   * showRunning disables Send while a run is in progress.
   * @param {boolean} running
   */
  showRunning(running) {
    this.ui.send.disabled = running;
  }

  /**
   * showError says why a request did not start, or a run could not be stopped; '' hides it.
   * @param {string} text
   */
  showError(text) {
    this.ui.error.textContent = text;
    this.ui.error.hidden = !text;
  }

  /** fit grows the box with its text. */
  fit() {
    const { message } = this.ui;
    message.style.height = 'auto';
    message.style.height = `${Math.min(message.scrollHeight, MAX_HEIGHT)}px`;
  }
}
