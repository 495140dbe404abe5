// Starts the app without any inline script, so the page can run under a
// strict Content-Security-Policy (script-src 'self' 'wasm-unsafe-eval').
// Trunk writes the hashed file names into this script's data attributes
// (see `pattern_script` in Trunk.toml).
// Questions with a number for an answer (widgets/question.rs draws them
// with the model's answer in data-answer, in the unit data-unit names):
// checked here, in the ways people write numbers, as soon as the page is
// read, and remembered in this browser where it allows.
const store = (() => { try { return localStorage; } catch { return null; } })();
const SUFFIXES = { K: 1e3, M: 1e6, B: 1e9, T: 1e12 };
const SUPERSCRIPTS = '⁰¹²³⁴⁵⁶⁷⁸⁹';
// What the reader typed: its value and `slack`, half a unit of the last digit
// typed (27.3% is 0.273 give or take 0.0005), or why it could not be read.
// Read as people write numbers: "m = 28", "16 layers" and "8.4e23 FLOP"
// where no unit is asked for, "8.4 × 10^23" and "8.4×10²³", thousands
// grouped by commas or spaces ("1,024", "1 024"), a decimal comma ("17,5").
const readAnswer = (typed, unit) => {
  let text = typed.trim().replace(/^[a-z][\w -]*=\s*/i, '');
  if (unit && text.toUpperCase().endsWith(unit.toUpperCase())) text = text.slice(0, -unit.length).trim();
  else if (!unit) text = text.replace(/\s*[a-z]{2,}[a-z -]*$/i, '');
  text = text.replace(/\s*[x×*·]\s*10\s*(?:\^|\*\*)?\s*([-+⁻]?[\d⁰¹²³⁴⁵⁶⁷⁸⁹]+)$/i,
    (_, power) => `e${[...power].map((c) => (c === '⁻' ? '-' : SUPERSCRIPTS.includes(c) ? SUPERSCRIPTS.indexOf(c) : c)).join('')}`);
  const fraction = text.match(/^(\d+(?:\.\d+)?) ?\/ ?(\d*[1-9]\d*(?:\.\d+)?)$/);
  if (fraction) return { value: fraction[1] / fraction[2], slack: 0, digits: Infinity };
  const percent = text.endsWith('%') ? 100 : 1;
  text = text.slice(0, percent > 1 ? -1 : undefined).trim();
  const suffix = (!unit && SUFFIXES[text.slice(-1).toUpperCase()]) || 1;
  if (suffix > 1) text = text.slice(0, -1);
  if (/^\d{1,3}([, \u00a0\u202f]\d{3})+(\.\d*)?$/.test(text)) text = text.replace(/[, \u00a0\u202f]/g, '');
  else text = text.replace(/^(\d+),(\d+)$/, '$1.$2');
  const [, whole = '', decimals = '', exponent = 0] = text.match(/^(\d*)(?:\.(\d*))?(?:e([-+]?\d+))?$/i) ?? [];
  if (!whole && !decimals) {
    return { reason: `Type a number${unit ? ` of ${unit}` : ''}, such as 17.5, 27.3%, 3/11 or 1,024.` };
  }
  const scale = (suffix * 10 ** exponent) / percent;
  return {
    value: Number(`${whole || 0}.${decimals}`) * scale,
    slack: 0.5 * 10 ** -decimals.length * scale,
    digits: (whole + decimals).replace(/^0+/, '').length,
    percent: percent > 1,
  };
};
// An answer read, right or not, opens the way to the worked solution.
const answered = (form, verdict, text) => {
  if (verdict !== 'unreadable') form.dataset.tried = '';
  const feedback = form.querySelector('.question__feedback');
  feedback.dataset.verdict = verdict;
  feedback.textContent = text;
};
const check = (form) => {
  const answer = Number(form.dataset.answer);
  const tolerance = Number(form.dataset.tolerance);
  const read = readAnswer(form.querySelector('input').value, form.dataset.unit);
  if (read.reason) return answered(form, 'unreadable', read.reason);
  // A count (tolerance 0) must be exact; otherwise the typed digits may round to the answer.
  const near = (value, slack) => Math.abs(value - answer) <= (tolerance && Math.max(tolerance, slack)) + 1e-9 * Math.abs(answer);
  // An answer asked in units of 10^n (data-power) may also be typed whole: 8.4e23 for 8.4.
  const scale = near(read.value, read.slack) ? 1 : 10 ** Number(form.dataset.power ?? 0);
  const value = read.value / scale;
  if (near(value, read.slack / scale)) {
    if (read.digits < 2 && value !== answer) return answered(form, 'unreadable', 'Close: give two significant figures or more.');
    answered(form, 'right', 'Right.');
    try { store?.setItem(`parallax:${form.dataset.question}`, 'solved'); } catch {}
  } else if (answer < 1 && !read.percent && near(value / 100, read.slack / 100)) {
    // "27" for a bubble of 0.27: right as a percentage, which the reader should say.
    answered(form, 'unreadable', `As a fraction, ${value} is more than the whole: type ${value}% or ${value / 100}.`);
  } else answered(form, 'wrong', `Not yet. Hint: ${form.querySelector('.question__hint').textContent}`);
};
const restore = (root) => {
  for (const form of root.querySelectorAll('form[data-question]')) {
    if (store?.getItem(`parallax:${form.dataset.question}`)) answered(form, 'right', 'Answered right before, in this browser.');
  }
};
addEventListener('submit', (event) => {
  const form = event.target.closest?.('form[data-question]');
  if (!form) return;
  event.preventDefault();
  check(form);
});
restore(document);
// Predictions (widgets/question.rs): an option chosen lets "Reveal" show
// whether it is the answer the fieldset holds (data-answer), and why.
addEventListener('change', (event) => {
  const question = event.target.closest?.('[data-prediction]');
  if (question) question.querySelector('button').disabled = false;
});
addEventListener('click', (event) => {
  const question = event.target.closest?.('[data-prediction]');
  const chosen = question?.querySelector('input:checked');
  if (!chosen || event.target.localName !== 'button') return;
  const answer = question.querySelector('.question__answer');
  answer.firstChild.textContent = chosen.value === question.dataset.answer ? 'You predicted right. ' : 'Not quite. ';
  answer.hidden = false;
  for (const input of question.querySelectorAll('input, button')) input.disabled = true;
});

const tag = document.querySelector('script[data-parallax-js]');
// What draws a figure as SVG (src/drawing.js), fetched the first time a
// reader saves one (src/widgets/export.rs), not before.
window.parallaxDrawing = () => import(new URL(tag.dataset.parallaxDrawing, tag.src).href);
// The app's 300 KB (brotli) are asked for once the document, read whole (a module
// script runs after the parser), is on the screen: its first contentful
// paint is reported once that frame has been presented, later than any
// animation frame's callback. On a slow link they would otherwise share it
// with what that paint needs, and a page's largest paint would count the
// wasm's download as a part of it (Lighthouse's simulated LCP). Where no
// paint comes (an iframe scrolled out of view draws none), half a second is
// waited instead. .ci/post-build.mjs moved the wasm's integrity from
// Trunk's preload link, which would fetch it at once, to this script's
// data-parallax-wasm-integrity.
const painted = new Promise((resolve) => {
  setTimeout(resolve, 500);
  if (!self.PerformanceObserver?.supportedEntryTypes?.includes('paint')) return;
  new PerformanceObserver((list) => list.getEntriesByName('first-contentful-paint').length && resolve())
    .observe({ type: 'paint', buffered: true });
});
try {
  const glue = import(new URL(tag.dataset.parallaxJs, tag.src).href);
  await painted;
  const wasm = fetch(new URL(tag.dataset.parallaxWasm, tag.src), { integrity: tag.dataset.parallaxWasmIntegrity ?? '' });
  const { default: init } = await glue;
  await init({ module_or_path: wasm });
} catch (error) {
  // The app could not start (WebAssembly blocked, the network gone): the
  // page stays the document it is without scripts (src/route.js), whole.
  document.documentElement.classList.remove('js', 'embed-route', 'embed-route--pending');
  throw error;
}
// After the app is up: a service worker (src/sw.js) keeps the files for a
// second visit without a network. Where it cannot register (an insecure
// origin, a browser without it), the app simply works online only.
navigator.serviceWorker?.register(new URL('sw.js', tag.src).href).catch(() => {});
// An embedded figure is built by now: its question, answered before, shows so.
const embedded = document.querySelector('main.embed');
if (embedded) restore(embedded);
// An iframe out of view draws nothing, so the app's ResizeObserver
// (src/embedded.rs) would tell the figure's height only once a reader
// scrolled to it, and the course page would grow as they arrived: it is
// told now, from layout, once the app's first tasks are done.
if (embedded && parent !== window) {
  setTimeout(() => parent.postMessage({ type: 'parallax:resize', figure: embedded.dataset.figure, height: embedded.scrollHeight }, '*'));
}
// Each figure of the page, once the app has built it (as it nears the
// screen): its questions answered before show so, and the numbers in the
// prose that follow it ({{figure.readout}} and {{figure.key}} in
// src/content) copy the text of the element their data-follows names (a
// readout's value, a slider's text) and keep copying it, so that each reads
// as the figure shows it, in the page's byte unit too.
for (const holder of document.querySelectorAll('[data-live]')) {
  const numbers = document.querySelectorAll(`[data-of="${holder.dataset.live}"]`);
  const wire = () => {
    if (holder.classList.contains('figure__live--waiting')) return false;
    restore(holder);
    for (const number of numbers) {
      const source = holder.querySelector(number.dataset.follows);
      if (!source) continue;
      const copy = () => { if (number.textContent !== source.textContent) number.textContent = source.textContent; };
      copy();
      // A number a reader can drag says its new value to a screen reader too, whatever moved it.
      new MutationObserver(() => { copy(); describe(number); }).observe(source, { childList: true, characterData: true, subtree: true });
    }
    return true;
  };
  if (!wire()) {
    const built = new MutationObserver(() => wire() && built.disconnect());
    built.observe(holder, { childList: true });
  }
}
// Numbers in the prose that set a figure's parameter ({{figure.key}} in
// src/content, marked data-drives and data-of, the figure): the arrow keys
// step them and a sideways drag slides them. A diagram marked data-drives
// (the data-parallel ring, the pipeline timelines) slides its own figure's
// slider the same way. Each moves the figure's own slider, so the figure,
// the URL and the number itself follow exactly as they do from the slider.
// A diagram may drive a second slider downwards (data-drives-down: the
// pipeline timeline's stages, a row a stage), by mouse or pen only, so that
// a finger on it still scrolls the page; a drag keeps to the axis it moved first.
const PIXELS_A_STEP = 6;
const PIXELS_A_ROW = 16;
const sliderOf = (number, key = number.dataset.drives) => (number.dataset.of ? document.getElementById(number.dataset.of) : number.closest('.figure__body'))
  ?.querySelector(`input[type=range][data-param="${key}"]`);
// What a screen reader says of a prose number: its slider's range and position.
const describe = (number) => {
  const slider = sliderOf(number);
  if (!slider || number.getAttribute('role') !== 'slider') return;
  for (const name of ['min', 'max']) number.setAttribute(`aria-value${name}`, slider[name]);
  number.setAttribute('aria-valuenow', slider.value);
  number.setAttribute('aria-valuetext', number.textContent);
};
const step = (number, steps, key) => {
  const slider = sliderOf(number, key);
  if (!slider) return;
  const [min, max, step] = ['min', 'max', 'step'].map((name) => Number(slider[name]));
  slider.value = Math.min(max, Math.max(min, Math.round((Number(slider.value) - min) / step + steps) * step + min));
  slider.dispatchEvent(new Event('input', { bubbles: true }));
  requestAnimationFrame(() => describe(number));
};
addEventListener('focusin', (event) => event.target.dataset?.drives && describe(event.target));
// Home and End: as many steps as the slider has, which stop at its ends.
const KEY_STEPS = { ArrowRight: 1, ArrowUp: 1, ArrowLeft: -1, ArrowDown: -1, PageUp: 10, PageDown: -10, Home: -1e6, End: 1e6 };
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
  number.focus();
  number.setPointerCapture(event.pointerId);
  const down = event.pointerType !== 'touch' && number.dataset.drivesDown;
  const from = { x: event.clientX, y: event.clientY };
  let axis = null;
  const drag = (move) => {
    const along = (name, pixels, key) => {
      const steps = Math.trunc((move[`client${name.toUpperCase()}`] - from[name]) / pixels);
      if (!steps || (axis && axis !== name)) return;
      axis = name;
      from[name] += steps * pixels;
      step(number, steps, key);
    };
    along('x', PIXELS_A_STEP);
    if (down) along('y', PIXELS_A_ROW, down);
  };
  number.addEventListener('pointermove', drag);
  number.addEventListener('lostpointercapture', () => number.removeEventListener('pointermove', drag), { once: true });
});
