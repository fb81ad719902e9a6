// runevent.js: the DOM event by which a run's view tells the rest of the
// page what it drew. It has a module of its own so that the views that
// listen (step mode, the loop map, presenter mode) need not import the
// pipeline that dispatches it, and the pipeline can import step mode.

/** RUN_EVENT is the DOM event a RunView's turn dispatches, after drawing each run event (its detail). */
export const RUN_EVENT = 'run-event';
