// options.js: the fields of a run request, read from a settings form: the
// Settings panel's for a new run, the rerun dialog's for a fork.

/**
 * runOptions reads form into the fields of POST /api/runs (and of a
 * rerun). A field the form lacks is left out, so that the rerun dialog's
 * few fields can override the Settings panel's. Thinking left to the
 * model, or a model or mode the backend does not let one choose, is
 * undefined: JSON leaves it out, and it still overrides.
 */
export function runOptions(form) {
  const field = (name) => form.elements.namedItem(name);
  const opts = {};
  for (const name of ['max_rounds', 'tools_top_k']) if (field(name)) opts[name] = Number(field(name).value);
  for (const name of ['dialect', 'retriever']) if (field(name)) opts[name] = field(name).value;
  if (field('tool_delay')) opts.tool_delay_ms = Math.round(Number(field('tool_delay').value) * 1000);
  const think = field('think')?.value;
  if (think) opts.think = think === 'auto' ? undefined : think === 'on';
  // The demo model has one model and one mode, so its fields are disabled.
  for (const name of ['model', 'mode']) if (field(name)) opts[name] = field(name).disabled ? undefined : field(name).value;
  if (field('step')?.checked) opts.step = true;
  return opts;
}
