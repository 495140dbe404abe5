// Lets a second visit work with the network cut. On install it caches the
// page and every file the page names (the hashed script, wasm, styles); then
// it answers each request from the network when it can, keeping the fresh
// copy (and dropping files a new build no longer uses), and from the cache
// when the network fails. Only this origin's GET requests are touched.
const CACHE = 'parallax';

/**
 * Every file index.html refers to: links, scripts and boot.js's data
 * attributes, quoted or not (the release build minifies the page).
 */
function assetsOf(html) {
  const found = new Set();
  for (const [, quoted, bare] of html.matchAll(/(?:href|src|data-parallax-(?:js|wasm|drawing))=(?:"([^"#?]+)"|([^\s>"'#?]+))/g)) {
    const url = quoted ?? bare;
    if (!/^[a-z]+:/i.test(url)) found.add(new URL(url, self.registration.scope).href);
  }
  return [...found];
}

/** Drops cached files the current page no longer names (earlier builds' hashed files). */
async function keepOnly(cache, page) {
  const wanted = new Set([self.registration.scope, ...assetsOf(await page.text())]);
  for (const request of await cache.keys()) {
    if (!wanted.has(request.url)) await cache.delete(request);
  }
}

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    const page = await fetch(self.registration.scope);
    if (!page.ok) return;
    await cache.put(self.registration.scope, page.clone());
    await cache.addAll(assetsOf(await page.text()));
    await self.skipWaiting();
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil(self.clients.claim());
});

self.addEventListener('fetch', (event) => {
  const { request } = event;
  if (request.method !== 'GET' || new URL(request.url).origin !== self.location.origin) return;
  event.respondWith((async () => {
    const cache = await caches.open(CACHE);
    // Every address of the page (any ?fig= or ?step=) is the same file.
    const key = request.mode === 'navigate' ? self.registration.scope : request;
    try {
      const response = await fetch(request);
      if (response.ok) {
        await cache.put(key, response.clone());
        if (key === self.registration.scope) event.waitUntil(keepOnly(cache, response.clone()));
      }
      return response;
    } catch (error) {
      const cached = await cache.match(key);
      if (cached) return cached;
      throw error;
    }
  })());
});
