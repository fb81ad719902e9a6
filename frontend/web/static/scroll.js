// scroll.js: the chat follows new output while the reader is at the
// bottom, and stays put once they scroll up to read.

// Closer than this to the bottom (in pixels), the reader is at the bottom.
const AT_BOTTOM = 48;

export class ChatScroll {
  /** @param {HTMLElement} chat the scrolling conversation */
  constructor(chat) {
    this.chat = chat;
    this.pinned = true; // the chat follows new output
    this.queued = false; // a scroll waits for the next frame
    this.lastTop = 0;
    this.lastHeight = 0;
    // Only the reader's scroll upwards can unpin: the browser also moves
    // scrollTop up when a card above shrinks as others grow (a fold, a
    // finished stream: scroll anchoring), but then the content's height
    // changes with it, which a reader's scroll never does.
    chat.addEventListener('scroll', () => {
      const { scrollTop, scrollHeight, clientHeight } = chat;
      if (scrollHeight - scrollTop - clientHeight < AT_BOTTOM) this.pinned = true;
      else if (scrollTop < this.lastTop && scrollHeight === this.lastHeight) this.pinned = false;
      this.lastTop = scrollTop;
      this.lastHeight = scrollHeight;
    });
    // A wheel turned upwards, with room to scroll, is the reader's, however
    // fast the output grows.
    chat.addEventListener('wheel', (ev) => {
      if (ev.deltaY < 0 && chat.scrollTop > 0) this.pinned = false;
    }, { passive: true });
    // Cards also change size between events (a card folding in presenter
    // mode, a pause's controls drawn): a pinned chat follows those too.
    const resized = new ResizeObserver(() => this.later());
    new MutationObserver((changes) => {
      for (const change of changes) {
        for (const node of change.addedNodes) if (node instanceof Element) resized.observe(node);
        for (const node of change.removedNodes) if (node instanceof Element) resized.unobserve(node);
      }
    }).observe(chat, { childList: true });
  }

  /** later scrolls to the bottom at the next frame, if the chat is pinned there. */
  later() {
    if (this.queued || !this.pinned) return;
    this.queued = true;
    requestAnimationFrame(() => {
      this.queued = false;
      if (this.pinned) this.chat.scrollTop = this.chat.scrollHeight;
    });
  }

  /** pinToBottom follows new output again, as when a request is sent. */
  pinToBottom() {
    this.pinned = true;
    this.later();
  }
}
