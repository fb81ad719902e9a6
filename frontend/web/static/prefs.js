// prefs.js: the page's look, remembered in localStorage: theme, large
// type, the side panel and the demo note shown or hidden, presenter mode.
// Loaded as a plain script in <head> so that the remembered look applies
// before the first paint; the buttons are wired once the page is parsed.
(() => {
  const root = document.documentElement;
  const dark = matchMedia('(prefers-color-scheme: dark)');
  // Below this width the side panel is a drawer over the chat (css/layout.css).
  const narrow = matchMedia('(max-width: 60rem)');
  const read = (key) => {
    try {
      return localStorage.getItem(key);
    } catch {
      return null; // storage can be off; the defaults still work
    }
  };
  const write = (key, value) => {
    try {
      localStorage.setItem(key, value);
    } catch {
      // storage can be off: the choice lasts until the page is left
    }
  };

  // With no choice stored, the system's colour scheme decides.
  const theme = () => read('toolscope.theme') ?? (dark.matches ? 'dark' : 'light');
  // Presenter mode lays its look over the stored choices, which come back
  // when it ends. Its demo note stays hidden unless the badge asks for it
  // (not remembered): the badge always says the demo model answers.
  let noteWhilePresenting = false;
  const apply = () => {
    const presenting = read('toolscope.present') === 'on';
    if (!presenting) noteWhilePresenting = false;
    root.dataset.theme = theme();
    root.classList.toggle('presenting', presenting);
    root.classList.toggle('large', presenting || read('toolscope.large') === 'on');
    root.classList.toggle('side-hidden', presenting || read('toolscope.side') === 'hidden');
    const noteHidden = presenting ? !noteWhilePresenting : read('toolscope.banner') === 'hidden';
    root.classList.toggle('banner-hidden', noteHidden);
  };
  apply();
  dark.addEventListener('change', apply);

  /**
   * keepInView makes a change that reflows the chat, such as the type
   * size, without moving what is being read: the chat stays at its end if
   * it was there, else the first card in sight stays where it was.
   */
  const keepInView = (change) => {
    const chat = /** @type {HTMLElement} */ (document.getElementById('chat'));
    // From the chat's top, which moves too as the header grows or shrinks.
    const below = (el) => el.getBoundingClientRect().top - chat.getBoundingClientRect().top;
    const atEnd = chat.scrollHeight - chat.scrollTop - chat.clientHeight < 48;
    const anchor = [...chat.querySelectorAll('.user-msg, .round-head, .step, .turn-end')]
      .find((el) => below(el) + el.getBoundingClientRect().height > 0);
    const before = anchor ? below(anchor) : 0;
    // The browser's own anchoring would pick its own card, and move it again.
    chat.style.overflowAnchor = 'none';
    change();
    if (atEnd) chat.scrollTop = chat.scrollHeight;
    else if (anchor) chat.scrollTop += below(anchor) - before;
    requestAnimationFrame(() => chat.style.removeProperty('overflow-anchor'));
  };

  document.addEventListener('DOMContentLoaded', () => {
    // The page renders each of these; the demo's only with the demo model.
    const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));
    const label = $('theme-label');
    const sideShown = () => (narrow.matches ? root.classList.contains('side-open') : !root.classList.contains('side-hidden'));
    const show = () => {
      // The button offers the other theme.
      label.textContent = root.dataset.theme === 'dark' ? 'Light' : 'Dark';
      $('toggle-large').setAttribute('aria-pressed', String(root.classList.contains('large')));
      $('toggle-side').setAttribute('aria-expanded', String(sideShown()));
      $('demo-badge')?.setAttribute('aria-expanded', String(!root.classList.contains('banner-hidden')));
      $('toggle-present').setAttribute('aria-pressed', String(root.classList.contains('presenting')));
    };
    // flip stores the other of a choice's two values; isFirst: the first is current.
    const flip = (key, isFirst, [first, second]) => {
      write(key, isFirst ? second : first);
      apply();
      show();
    };
    $('toggle-theme').addEventListener('click', () => flip('toolscope.theme', root.dataset.theme === 'dark', ['dark', 'light']));
    $('toggle-large').addEventListener('click', () => {
      keepInView(() => flip('toolscope.large', root.classList.contains('large'), ['on', 'off']));
    });
    // On a narrow screen the panel opens over the chat for a moment, so
    // that is not remembered; on a wide one hiding it is.
    $('toggle-side').addEventListener('click', () => {
      if (narrow.matches) {
        root.classList.toggle('side-open');
        show();
      } else {
        flip('toolscope.side', root.classList.contains('side-hidden'), ['hidden', 'visible']);
      }
    });
    $('toggle-present').addEventListener('click', () => {
      keepInView(() => flip('toolscope.present', root.classList.contains('presenting'), ['on', 'off']));
    });
    // The header's "demo model" badge stays when the note goes, and brings it back.
    const banner = () => {
      if (!root.classList.contains('presenting')) {
        flip('toolscope.banner', root.classList.contains('banner-hidden'), ['hidden', 'visible']);
        return;
      }
      noteWhilePresenting = !noteWhilePresenting;
      apply();
      show();
    };
    $('hide-banner')?.addEventListener('click', banner);
    $('demo-badge')?.addEventListener('click', banner);
    narrow.addEventListener('change', () => {
      root.classList.remove('side-open');
      show();
    });
    dark.addEventListener('change', show);
    show();
  });
})();
