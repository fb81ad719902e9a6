// replay.js: a recording (a run exported from GET /api/runs/{id}/export,
// JSON Lines) played in the page from a file, with no server and no model.
// It reads the file with the same checks and the same words as toolscope's
// Go reader (package recording), then feeds the events to a RunView at the
// recorded pace, or one at a time.
import { el } from './dom.js';
import { EventType } from './events.js';

/** FORMAT is the newest recording format this page reads. */
export const FORMAT = 1;

const notRecording = (why) => new Error(`this is not a toolscope recording: ${why}`);
const badEvent = (line, why) => new Error(`line ${line} is not an event: ${why}`);
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * REQUIRED is the field each event type always carries, which the page
 * draws it from: as package recording checks them.
 */
const REQUIRED = {
  [EventType.RunStarted]: 'run', [EventType.ToolsSelected]: 'selection', [EventType.RoundStarted]: 'input',
  [EventType.ToolCallOpened]: 'call', [EventType.ToolCallDelta]: 'call', [EventType.ToolCallParsed]: 'call', [EventType.ToolCallInvalid]: 'call', [EventType.ToolCallCut]: 'call',
  [EventType.ToolStarted]: 'call', [EventType.ToolFinished]: 'call', [EventType.RoundFinished]: 'stats', [EventType.Paused]: 'pause', [EventType.Edited]: 'change',
};

/** MAX_BYTES is the largest recording, as package recording bounds it (recording.MaxBytes). */
const MAX_BYTES = 17 << 20;

/**
 * parseRecording reads a recording's text into {header, events}, or throws
 * an Error that says what is wrong and on which line. A file cut mid-line
 * (its last line has no end and is not JSON, as a copy stopped short
 * leaves it) gives the events before the cut, and cut: the line's number.
 */
export function parseRecording(text) {
  let header = null;
  const events = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim(); // blank lines and CRLF endings are an editor's
    if (!line) continue;
    if (!header) {
      header = parseHeader(line, i + 1);
      continue;
    }
    if (i === lines.length - 1 && !isJSON(line)) return { header, events, cut: i + 1 };
    const e = parseEvent(line, i + 1);
    const last = events.at(-1);
    if (last && e.seq <= last.seq) throw badEvent(i + 1, `its seq ${e.seq} does not follow ${last.seq}: events must be in order`);
    events.push(e);
  }
  if (!header) throw notRecording('the file is empty');
  return { header, events };
}

function isJSON(line) {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
}

function parseHeader(line, n) {
  let h;
  try {
    h = JSON.parse(line);
  } catch {
    throw notRecording('the first line is not a JSON object');
  }
  if (!isObject(h)) throw notRecording('the first line is not a JSON object');
  if (!('toolscope' in h)) throw notRecording('the first line has no "toolscope" field');
  if (Number.isInteger(h.format) && h.format > FORMAT) {
    throw new Error(`format ${h.format} is newer than this toolscope reads (${FORMAT}): update toolscope`);
  }
  if (!Number.isInteger(h.format) || h.format < 1) throw new Error(`line ${n} is not a valid recording header: "format" must be a whole number from 1`);
  return h;
}

function parseEvent(line, n) {
  let e;
  try {
    e = JSON.parse(line);
  } catch (err) {
    throw badEvent(n, err.message);
  }
  if (!isObject(e)) throw badEvent(n, 'it is not a JSON object');
  if (typeof e.type !== 'string' || !e.type) throw badEvent(n, 'it has no "type"');
  if (!Number.isInteger(e.seq) || e.seq < 1) throw badEvent(n, 'it has no "seq" from 1');
  const field = REQUIRED[e.type];
  if (field && !isObject(e[field])) throw badEvent(n, `${e.type} has no ${field}`);
  return e;
}

/** recordingLabel is the banner's line: what was recorded, when, and that nothing runs now. */
export function recordingLabel(header) {
  const model = header.model?.model || header.settings?.model || 'an unnamed model';
  // Older recordings have no start time.
  const when = header.run?.started_at || header.exported_at;
  const date = when && !Number.isNaN(Date.parse(when)) ? new Date(when).toLocaleString() : 'an unknown date';
  return `${model}${header.model?.demo ? ' (demo model)' : ''} · ${date} · no model is running`;
}

/**
 * Replay plays one recording at a time into the page. The page gives it
 * its controls (ui) and hooks: begin(header) → a RunView to draw into,
 * busy() → why a file cannot be opened now (a live run), or '',
 * status(text, tone), scroll(), and end() when the recording is closed.
 */
export class Replay {
  constructor(ui, hooks) {
    this.ui = ui;
    this.hooks = hooks;
    this.rec = null; // {header, events, view, next, timer}
    ui.play.addEventListener('click', () => (this.rec?.timer ? this.pause() : this.play()));
    ui.step.addEventListener('click', () => this.step());
    ui.close.addEventListener('click', () => this.close());
    ui.open.addEventListener('click', () => ui.file.click());
    ui.file.addEventListener('change', () => {
      if (ui.file.files[0]) this.open(ui.file.files[0]);
      ui.file.value = ''; // the same file may be opened again
    });
    ui.errorClose.addEventListener('click', () => this.showError(''));
    this.acceptDrops(document.documentElement);
  }

  /** open reads file and shows it, paused before its first event. */
  async open(file) {
    const busy = this.hooks.busy();
    if (busy) return this.showError(busy);
    if (file.size > MAX_BYTES) {
      return this.showError(`${file.name}: the file is larger than ${MAX_BYTES >> 20} MiB, more than any recording`);
    }
    let parsed;
    try {
      parsed = parseRecording(await file.text());
    } catch (err) {
      return this.showError(`${file.name}: ${err.message}`);
    }
    this.close();
    this.showError('');
    const view = this.hooks.begin(parsed.header);
    this.rec = { ...parsed, view, next: 0, timer: null };
    this.ui.label.replaceChildren(el('strong', '', 'Recording'), ` · ${recordingLabel(parsed.header)}`);
    this.ui.bar.hidden = false;
    document.title = 'Recording · toolscope';
    this.update();
    this.ui.play.focus();
    if (parsed.cut) this.showError(`${file.name}: the file is cut at line ${parsed.cut}: it ends mid-event; the events before it play`);
  }

  play() {
    const rec = this.rec;
    if (!rec || rec.timer || rec.next >= rec.events.length) return;
    const tick = () => {
      this.apply();
      rec.timer = null;
      if (rec.next >= rec.events.length) return this.update();
      // The recorded gap to the next event, at the chosen speed.
      const gap = rec.events[rec.next].at_ms - rec.events[rec.next - 1].at_ms;
      rec.timer = setTimeout(tick, Math.max(gap, 0) / Number(this.ui.speed.value));
      this.update();
    };
    rec.timer = setTimeout(tick, 0);
    this.update();
  }

  pause() {
    if (!this.rec) return;
    clearTimeout(this.rec.timer);
    this.rec.timer = null;
    this.update();
  }

  /** step pauses, then shows the next event. */
  step() {
    this.pause();
    if (this.rec && this.rec.next < this.rec.events.length) this.apply();
    this.update();
  }

  /** close ends the recording: the page goes back to where a run starts. */
  close() {
    if (!this.rec) return;
    clearTimeout(this.rec.timer);
    this.rec = null;
    this.ui.bar.hidden = true;
    document.title = 'toolscope';
    this.hooks.end();
  }

  apply() {
    const rec = this.rec;
    rec.view.apply(rec.events[rec.next++]);
    this.hooks.scroll();
  }

  update() {
    const rec = this.rec;
    if (!rec) return;
    const { events, next, timer } = rec;
    const done = next >= events.length;
    this.ui.play.textContent = timer ? 'Pause' : 'Play';
    this.ui.play.disabled = this.ui.step.disabled = done;
    const at = next > 0 ? events[next - 1].at_ms : 0;
    this.ui.progress.textContent = `event ${next} of ${events.length} · ${(at / 1000).toFixed(1)} s of ${((events.at(-1)?.at_ms ?? 0) / 1000).toFixed(1)} s`;
    const state = done ? 'finished' : timer ? 'playing' : 'paused';
    this.hooks.status(`Recording · ${state} · no model is running`, timer ? 'live' : 'recording');
  }

  showError(text) {
    this.ui.errorText.textContent = text;
    this.ui.error.hidden = !text;
  }

  /** acceptDrops opens a file dropped anywhere on target. */
  acceptDrops(target) {
    const hasFiles = (ev) => ev.dataTransfer?.types.includes('Files');
    target.addEventListener('dragover', (ev) => {
      if (!hasFiles(ev)) return;
      ev.preventDefault();
      target.classList.add('is-dropping');
    });
    target.addEventListener('dragleave', (ev) => {
      if (ev.relatedTarget === null) target.classList.remove('is-dropping');
    });
    target.addEventListener('drop', (ev) => {
      if (!hasFiles(ev)) return;
      ev.preventDefault();
      target.classList.remove('is-dropping');
      if (ev.dataTransfer.files[0]) this.open(ev.dataTransfer.files[0]);
    });
  }
}
