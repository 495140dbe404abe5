// The launch worker (src/widgets/worker.rs starts it when a reader first
// opens "Run it with"): loads the launch tools' writers and readers
// (src/bin/launch.rs, built by Trunk as launch.js and launch_bg.wasm) and
// answers each [number, question] with [number, its answer], or
// [number, null] if the wasm could not be loaded.
importScripts('./launch.js');
const ready = wasm_bindgen({ module_or_path: './launch_bg.wasm' });
onmessage = async ({ data: [number, text] }) => {
  try {
    await ready;
    postMessage([number, wasm_bindgen.answer(text)]);
  } catch {
    postMessage([number, null]);
  }
};
