// Starts the app without any inline script, so the page can run under a
// strict Content-Security-Policy (script-src 'self' 'wasm-unsafe-eval').
// Trunk writes the hashed file names into this script's data attributes
// (see `pattern_script` in Trunk.toml).
const tag = document.querySelector('script[data-parallax-js]');
const { default: init } = await import(new URL(tag.dataset.parallaxJs, tag.src).href);
await init({ module_or_path: new URL(tag.dataset.parallaxWasm, tag.src).href });
