// dom.js: the page's markup lives in <template> elements that the server
// renders; scripts clone them and fill their data-slot elements with text.
// It also holds the small element and wording helpers the scripts share.

/**
 * clone returns a copy of the first element of <template id="id">.
 * @param {string} id
 * @returns {HTMLElement}
 */
export function clone(id) {
  const tpl = document.getElementById(id);
  const first = tpl instanceof HTMLTemplateElement && tpl.content.firstElementChild;
  if (!first) throw new Error(`toolscope: the page has no <template id="${id}">`);
  return /** @type {HTMLElement} */ (first.cloneNode(true));
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

/** el makes an element with a class and text: el('p', 'hint', 'Loading…'). */
export function el(tag, className = '', text = '') {
  return Object.assign(document.createElement(tag), { className, textContent: text });
}

/** shorten cuts s to n characters at most, the last an ellipsis. */
export function shorten(s, n) {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

/** count writes numbers the same way on every page: 1,200. */
export const count = new Intl.NumberFormat('en');

/** plural counts things in English: plural(1, 'round') is "1 round", plural(1200, 'token') "1,200 tokens". */
export function plural(n, word) {
  return `${count.format(n)} ${word}${n === 1 ? '' : 's'}`;
}
