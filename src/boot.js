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
