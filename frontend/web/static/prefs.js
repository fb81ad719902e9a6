// prefs.js: theme and large type, remembered in localStorage. Loaded as a
// plain script in <head> so that the remembered look applies before the
// first paint; the buttons are wired once the page is parsed.
(() => {
  const root = document.documentElement;
  const dark = matchMedia('(prefers-color-scheme: dark)');
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
    } catch {}
  };

  // With no choice stored, the system's colour scheme decides.
  const theme = () => read('toolscope.theme') ?? (dark.matches ? 'dark' : 'light');
  const apply = () => {
    root.dataset.theme = theme();
    root.classList.toggle('large', read('toolscope.large') === 'on');
  };
  apply();
  dark.addEventListener('change', apply);

  document.addEventListener('DOMContentLoaded', () => {
    const themeButton = document.getElementById('toggle-theme');
    const largeButton = document.getElementById('toggle-large');
    const label = document.getElementById('theme-label');
    const show = () => {
      // The button offers the other theme.
      label.textContent = root.dataset.theme === 'dark' ? 'Light' : 'Dark';
      largeButton.setAttribute('aria-pressed', String(root.classList.contains('large')));
    };
    themeButton.addEventListener('click', () => {
      write('toolscope.theme', root.dataset.theme === 'dark' ? 'light' : 'dark');
      apply();
      show();
    });
    largeButton.addEventListener('click', () => {
      write('toolscope.large', root.classList.contains('large') ? 'off' : 'on');
      apply();
      show();
    });
    dark.addEventListener('change', show);
    show();
  });
})();
