// options.js: the fields of a run request, read from a settings form: the
// Settings panel's for a new run, the rerun dialog's for a fork.

// How a control's value becomes its request field's, by the control's
// data-type, which the server gives each setting from the settings table.
// A tristate's auto (thinking left to the model) is null, which the server
// reads as "the model decides", whatever its own --think says.
const read = {
  text: (value) => value,
  number: Number,
  seconds: (value) => Math.round(Number(value) * 1000),
  tristate: (value) => (value === 'auto' ? null : value === 'on'),
};

/**
 * runOptions reads form into the fields of POST /api/runs (and of a
 * rerun). Each of the Settings panel's controls names a setting's field
 * (data-key) and how to read it (data-type); form's control of the same
 * name gives the value. A field the form lacks is left out, so that the
 * rerun dialog's few fields can override the Settings panel's. A disabled
 * control (the demo model's one model and one mode) is undefined.
 * @param {HTMLFormElement} form
 * @returns {Record<string, unknown>}
 */
export function runOptions(form) {
  /** @type {Record<string, unknown>} */
  const opts = {};
  for (const setting of document.querySelectorAll('#settings [data-key]')) {
    const control = /** @type {HTMLInputElement | HTMLSelectElement} */ (setting);
    const field = /** @type {HTMLInputElement | HTMLSelectElement | null} */ (form.elements.namedItem(control.name));
    const how = /** @type {keyof typeof read} */ (control.dataset.type);
    if (field && control.dataset.key) opts[control.dataset.key] = field.disabled ? undefined : read[how](field.value);
  }
  if (/** @type {HTMLInputElement | null} */ (form.elements.namedItem('step'))?.checked) opts.step = true;
  return opts;
}

/**
 * settingControl is the Settings panel's control of a setting, by its
 * name (max_rounds): the server gives each the id set-<its flag>
 * (set-max-rounds). null for a setting the panel has no control of, such
 * as the backend, chosen when toolscope starts.
 * @param {string} name
 * @returns {HTMLInputElement | HTMLSelectElement | null}
 */
export function settingControl(name) {
  return /** @type {HTMLInputElement | HTMLSelectElement | null} */ (document.getElementById(`set-${name.replaceAll('_', '-')}`));
}
