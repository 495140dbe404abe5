// For a course page that embeds Parallax figures: include it once, from the
// same folder as the figures, and every Parallax iframe on the page takes
// the height of its figure as the figure changes. An embedded figure posts
// { type: "parallax:resize", figure, height } to its parent and nothing else.
addEventListener('message', (event) => {
  if (event.data?.type !== 'parallax:resize' || !Number.isFinite(event.data.height)) return;
  for (const frame of document.querySelectorAll('iframe')) {
    if (frame.contentWindow === event.source) frame.style.height = `${Math.ceil(event.data.height)}px`;
  }
});
