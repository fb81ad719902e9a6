// status.js: the side panel's status line: what the run on screen is
// doing, with a dot of its tone, and under it where that run comes from.

export class StatusLine {
  /**
   * @param {{text: HTMLElement, dot: HTMLElement, origin: HTMLElement | null}} ui
   *   #run-status, #run-dot, and #run-origin, which not every page has
   */
  constructor(ui) {
    this.ui = ui;
  }

  /**
   * set says what the run is doing; tone colours the dot ('live', 'paused',
   * 'warn', 'recording', or '' for idle).
   * @param {string} text
   * @param {string} [tone]
   */
  set(text, tone = '') {
    this.ui.text.textContent = text;
    this.ui.dot.dataset.tone = tone;
  }

  /**
   * origin says where the run on screen comes from; '' for a run of now.
   * @param {string} text
   */
  origin(text) {
    const { origin } = this.ui;
    if (!origin) return;
    origin.textContent = text;
    origin.hidden = !text;
  }
}
