// loopmap.js: the loop map, the agent loop drawn as a loop (Request →
// Model → Tool call → Tool → Response → back to Model, or out to Answer),
// lights the step of the newest event and the arrow that led to it, and
// marks the step "paused" while a run in step mode waits there. It follows
// the RunViews in the chat, live runs and recordings alike, through the
// event (RUN_EVENT) each view dispatches.
import { el, slot } from './dom.js';
import { EventType, Reason } from './events.js';
import { turnRound } from './pipeline.js';
import { RUN_EVENT } from './runevent.js';

// The step each event type shows; events not named here leave the map as
// it is. The model's output never moves the map back within a round: the
// raw output that follows a parsed call is still the call's step.
const stepOf = {
  [EventType.RunStarted]: 'request',
  [EventType.ToolsSelected]: 'request',
  [EventType.RoundStarted]: 'model',
  [EventType.ThinkingDelta]: 'model',
  [EventType.TextDelta]: 'model',
  [EventType.Token]: 'model',
  [EventType.ToolCallOpened]: 'call',
  [EventType.ToolCallDelta]: 'call',
  [EventType.ToolCallParsed]: 'call',
  [EventType.ToolCallInvalid]: 'call',
  [EventType.ToolCallCut]: 'call',
  [EventType.ToolStarted]: 'tool',
  [EventType.ToolFinished]: 'tool',
  [EventType.ToolResponse]: 'response',
};
const order = ['request', 'model', 'call', 'tool', 'response', 'answer'];

// The step a paused event waits before, by its pause's "at".
const pausedAt = { input: 'model', call: 'call', response: 'response' };

/** LoopMap lights the steps of one <nav class="loop-map">. */
export class LoopMap {
  constructor(root) {
    this.el = root;
    this.steps = new Map([...root.querySelectorAll('[data-step]')].map((li) => [li.dataset.step, li]));
    this.arrows = [...root.querySelectorAll('[data-arc]')];
    // Each step's pill goes to its point of the drawing (the server says where).
    for (const li of this.steps.values()) Object.assign(li.style, { left: `${li.dataset.x}%`, top: `${li.dataset.y}%` });
    this.step = '';
    this.pauseMark = el('span', 'loop-paused', 'paused');
  }

  /** show moves the map to the step of event e, of the run drawn in turn. */
  show(e, turn) {
    // Whatever follows a pause, the run has moved on from it.
    this.unpause();
    if (e.type === EventType.RunStarted) this.reset();
    if (e.round) slot(this.el, 'round').textContent = `round ${turnRound(turn, e.round)}`;
    if (e.type === EventType.Paused) {
      this.pause(e.pause.at);
      return;
    }
    if (e.type === EventType.ToolStarted) slot(this.el, 'tool').textContent = e.call.name;
    if (e.type === EventType.ToolFinished || e.type === EventType.RoundStarted) slot(this.el, 'tool').textContent = '';
    if (e.type === EventType.RunFinished) {
      this.el.dataset.end = e.reason;
      if (e.reason === Reason.Answered) this.light('answer');
      return;
    }
    if (e.type === EventType.Error) this.el.dataset.end = 'error';
    const next = stepOf[e.type];
    if (!next) return;
    const back = order.indexOf(next) < order.indexOf(this.step);
    if (next !== 'model' || !back || e.type === EventType.RoundStarted) this.light(next);
  }

  light(step) {
    // The arrow taken: back from Response to Model is a new round of the loop.
    const arc = `${this.step || 'request'}-${step}`;
    if (step !== this.step) for (const a of this.arrows) a.classList.toggle('is-lit', a.dataset.arc === arc);
    this.step = step;
    for (const [name, li] of this.steps) {
      if (name === step) li.setAttribute('aria-current', 'step');
      else li.removeAttribute('aria-current');
    }
    this.el.dataset.step = step;
  }

  /** pause lights the step a paused run waits before (at, as the pause has it), and marks it paused. */
  pause(at) {
    const step = pausedAt[at];
    this.light(step);
    this.el.dataset.paused = at;
    this.steps.get(step).append(this.pauseMark);
  }

  unpause() {
    delete this.el.dataset.paused;
    this.pauseMark.remove();
  }

  reset() {
    delete this.el.dataset.end;
    slot(this.el, 'round').textContent = '';
    slot(this.el, 'tool').textContent = '';
    this.step = '';
  }
}

/**
 * followRuns lights the page's loop map from the runs drawn in the chat;
 * a run drawn elsewhere, in a dialog for instance, is not the live one.
 */
export function followRuns() {
  const nav = document.getElementById('loop-map');
  const chat = document.getElementById('chat');
  if (!nav || !chat) return;
  const map = new LoopMap(nav);
  chat.addEventListener(RUN_EVENT, (ev) => map.show(/** @type {CustomEvent} */ (ev).detail, ev.target));
}
