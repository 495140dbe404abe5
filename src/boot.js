// Starts the app without any inline script, so the page can run under a
// strict Content-Security-Policy (script-src 'self' 'wasm-unsafe-eval').
// Trunk writes the hashed file names into this script's data attributes
// (see `pattern_script` in Trunk.toml).
const tag = document.querySelector('script[data-parallax-js]');
try {
  const { default: init } = await import(new URL(tag.dataset.parallaxJs, tag.src).href);
  await init({ module_or_path: new URL(tag.dataset.parallaxWasm, tag.src).href });
} catch (error) {
  // The app could not start (WebAssembly blocked, the network gone): the
  // page stays the document it is without scripts (src/route.js), whole.
  document.documentElement.classList.remove('js', 'embed-route');
  throw error;
}
// After the app is up: a service worker (src/sw.js) keeps the files for a
// second visit without a network. Where it cannot register (an insecure
// origin, a browser without it), the app simply works online only.
navigator.serviceWorker?.register(new URL('sw.js', tag.src).href).catch(() => {});
// Numbers in the prose follow their figure ({{figure.readout}} and
// {{figure.key}} in src/content): once the app has built the figure, each
// copies the text of the element its data-follows names (a readout's value,
// a slider's text) and keeps copying it, so it reads as the figure shows it,
// in the page's byte unit too.
for (const holder of document.querySelectorAll('[data-live]')) {
  const numbers = document.querySelectorAll(`[data-of="${holder.dataset.live}"]`);
  const follow = () => {
    if (holder.classList.contains('figure__live--waiting')) return false;
    for (const number of numbers) {
      const source = holder.querySelector(number.dataset.follows);
      if (!source) continue;
      const copy = () => { if (number.textContent !== source.textContent) number.textContent = source.textContent; };
      copy();
      new MutationObserver(copy).observe(source, { childList: true, characterData: true, subtree: true });
    }
    return true;
  };
  if (numbers.length && !follow()) {
    const built = new MutationObserver(() => follow() && built.disconnect());
    built.observe(holder, { childList: true });
  }
}
// Numbers in the prose that set a figure's parameter ({{figure.key}} in
// src/content, marked data-drives): the arrow keys step them and a sideways
// drag slides them. Each moves the figure's own slider, so the figure, the
// URL and the number itself follow exactly as they do from the slider.
const PIXELS_A_STEP = 6;
const sliderOf = (number) => document.getElementById(number.dataset.of)
  ?.querySelector(`input[type=range][data-param="${number.dataset.drives}"]`);
// What a screen reader says of the number: its slider's range and position.
const describe = (number) => {
  const slider = sliderOf(number);
  if (!slider) return;
  for (const name of ['min', 'max']) number.setAttribute(`aria-value${name}`, slider[name]);
  number.setAttribute('aria-valuenow', slider.value);
  number.setAttribute('aria-valuetext', number.textContent);
};
const step = (number, steps) => {
  const slider = sliderOf(number);
  if (!slider) return;
  if (steps > 0) slider.stepUp(steps); else slider.stepDown(-steps);
  slider.dispatchEvent(new Event('input', { bubbles: true }));
  requestAnimationFrame(() => describe(number));
};
addEventListener('focusin', (event) => event.target.dataset?.drives && describe(event.target));
const KEY_STEPS = { ArrowRight: 1, ArrowUp: 1, ArrowLeft: -1, ArrowDown: -1, PageUp: 10, PageDown: -10 };
addEventListener('keydown', (event) => {
  const number = event.target.closest?.('[data-drives]');
  if (number && KEY_STEPS[event.key]) {
    event.preventDefault();
    step(number, KEY_STEPS[event.key]);
  }
});
addEventListener('pointerdown', (event) => {
  const number = event.target.closest?.('[data-drives]');
  if (!number || event.button !== 0) return;
  event.preventDefault();
  number.setPointerCapture(event.pointerId);
  let from = event.clientX;
  const drag = (move) => {
    const steps = Math.trunc((move.clientX - from) / PIXELS_A_STEP);
    if (steps) {
      from += steps * PIXELS_A_STEP;
      step(number, steps);
    }
  };
  number.addEventListener('pointermove', drag);
  number.addEventListener('lostpointercapture', () => number.removeEventListener('pointermove', drag), { once: true });
});
