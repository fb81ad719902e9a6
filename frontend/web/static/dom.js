// dom.js: the page's markup lives in <template> elements that the server
// renders; scripts clone them and fill their data-slot elements with text.

/** clone returns a copy of the first element of <template id="id">. */
export function clone(id) {
  const tpl = document.getElementById(id);
  if (!tpl) throw new Error(`toolscope: the page has no <template id="${id}">`);
  return tpl.content.firstElementChild.cloneNode(true);
}

/** slot finds the element marked data-slot="name" inside root. */
export function slot(root, name) {
  return root.querySelector(`[data-slot="${name}"]`);
}

/** fill sets the text of named slots: fill(card, {name: "send_mail"}). */
export function fill(root, texts) {
  for (const [name, text] of Object.entries(texts)) slot(root, name).textContent = text;
  return root;
}
