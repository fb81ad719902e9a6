// dialog.js: "View LLM input", exactly what the model was given in one
// round: the rendered prompt with its special tokens highlighted (raw
// mode), and the message list it was rendered from.
import { clone, fill, slot } from './dom.js';
import { appendMarked } from './marks.js';

export class InputDialog {
  constructor(dialog) {
    this.dialog = dialog;
    this.heading = dialog.querySelector('#input-title');
    this.note = dialog.querySelector('#input-note');
    this.prompt = dialog.querySelector('#input-prompt');
    this.messages = dialog.querySelector('#input-messages');
    this.tabs = { prompt: dialog.querySelector('#tab-prompt'), messages: dialog.querySelector('#tab-messages') };
    this.copyButton = dialog.querySelector('#copy-input');
    this.input = null;

    this.tabs.prompt.addEventListener('click', () => this.select('prompt'));
    this.tabs.messages.addEventListener('click', () => this.select('messages'));
    dialog.querySelector('#close-input').addEventListener('click', () => dialog.close());
    this.copyButton.addEventListener('click', () => this.copy());
    // A click on the backdrop lands on the <dialog> itself.
    dialog.addEventListener('click', (ev) => {
      if (ev.target === dialog) dialog.close();
    });
  }

  get open() {
    return this.dialog.open;
  }

  /** show opens the dialog on one round's input, marking the run's dialect. */
  show(input, round, marks) {
    this.input = input;
    this.heading.textContent = `LLM input · round ${round}`;
    this.note.textContent = input.prompt
      ? 'Raw mode: the exact text toolscope sent to /api/generate with raw: true, special tokens included.'
      : "Chat mode: Ollama renders this message list with the model's template, so the exact prompt stays inside Ollama.";

    this.prompt.replaceChildren();
    appendMarked(this.prompt, input.prompt ?? '', { marks });
    this.messages.replaceChildren(...(input.messages ?? []).map((m) => messageItem(m, marks)));

    this.tabs.prompt.disabled = !input.prompt;
    this.select(input.prompt ? 'prompt' : 'messages');
    this.dialog.showModal();
    // Later rounds differ from earlier ones at the end: that is where the
    // <tool_response> went in.
    const panel = input.prompt ? this.prompt : this.messages;
    panel.scrollTop = round > 1 ? panel.scrollHeight : 0;
  }

  select(name) {
    for (const [tab, button] of Object.entries(this.tabs)) button.setAttribute('aria-selected', String(tab === name));
    this.prompt.hidden = name !== 'prompt';
    this.messages.hidden = name !== 'messages';
    this.copyButton.textContent = 'Copy';
  }

  async copy() {
    const text = this.prompt.hidden ? JSON.stringify(this.input.messages, null, 2) : this.input.prompt;
    try {
      await navigator.clipboard.writeText(text);
      this.copyButton.textContent = 'Copied';
    } catch {
      this.copyButton.textContent = 'Copy failed';
    }
  }
}

function messageItem(m, marks) {
  const item = fill(clone('tpl-message'), { role: m.role });
  item.dataset.role = m.role;
  appendMarked(slot(item, 'content'), m.content, { marks });
  if (m.thinking) {
    fill(item, { 'thinking-text': m.thinking });
    slot(item, 'thinking').hidden = false;
  }
  return item;
}
