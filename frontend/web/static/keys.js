// keys.js: whose a key is. The page's shortcuts are bare keys (P, Space,
// /, Esc), so each one first asks whether the element with the focus
// needs that key itself: a text field needs every key that types, a
// button or a checkbox needs Space. Elsewhere the key is the page's.

// Inputs that take no typed text: Space presses or ticks them.
const pressed = new Set(['button', 'checkbox', 'radio', 'submit', 'reset', 'file', 'color', 'range', 'image']);

const textField = (el) =>
  el.closest('textarea, select, [contenteditable]:not([contenteditable=false])') ||
  (el instanceof HTMLInputElement && !pressed.has(el.type));

/** takesKey says whether the focused element target uses key itself, so the page's shortcut must not. */
export function takesKey(target, key) {
  if (!(target instanceof Element)) return false;
  if (textField(target)) return true;
  return key === ' ' && Boolean(target.closest('button, a[href], summary, input, [role=button], [role=tab]'));
}

/** typing says whether someone is typing into the focused element: a text field that holds text. */
export function typing(target) {
  return target instanceof Element && Boolean(textField(target)) && Boolean('value' in target ? target.value : target.textContent);
}

/** shortcut says whether a keydown may be one of the page's: no modifier, no dialog open, not the focused element's key. */
export function shortcut(ev) {
  if (ev.defaultPrevented || ev.ctrlKey || ev.metaKey || ev.altKey || ev.isComposing || ev.repeat) return false;
  if (document.querySelector('dialog[open]')) return false;
  return !takesKey(ev.target, ev.key);
}
