// Runs before the first paint (a classic script in the head, not a module):
// `js` hides what only a reader without scripts needs (the notes that a
// figure needs JavaScript) and shows what needs them. A figure's page
// (?fig=SLUG) is `embed-route`: until the app replaces the page with the
// figure, the document shows that figure's own section alone (its title, its
// "In words" and its readouts, at the defaults), marked `figure--first` as
// the parser reaches it; a URL that sets anything more marks it
// `embed-route--pending`, and the readouts then say they are being worked
// out rather than show the defaults (the words are left out).
const root = document.documentElement;
root.classList.add('js');
const query = new URLSearchParams(location.search);
// The app reads a figure's name in any case (?fig=DP).
const slug = query.get('fig')?.toLowerCase();
if (slug !== undefined) {
  root.classList.add('embed-route');
  if ([...query.keys()].some((key) => key !== 'fig')) root.classList.add('embed-route--pending');
  const mark = () => {
    const section = document.getElementById(slug);
    if (!section?.matches('.explainer > section.figure')) return false;
    section.classList.add('figure--first');
    return true;
  };
  // Mutation callbacks run before the browser paints what the parser added.
  const parsing = new MutationObserver(() => (mark() || document.readyState !== 'loading') && parsing.disconnect());
  parsing.observe(root, { childList: true, subtree: true });
  addEventListener('DOMContentLoaded', () => {
    // No figure of that name (?fig=nope): the whole document, as the app will show it.
    if (!document.querySelector('.figure--first')) return root.classList.remove('embed-route', 'embed-route--pending');
    // A course page's iframe (src/embed.js) takes the section's height from
    // the start: the document's own height (its margins in), not the frame's.
    if (parent !== window && !document.querySelector('main.embed')) {
      parent.postMessage({ type: 'parallax:resize', figure: slug, height: Math.ceil(root.getBoundingClientRect().height) }, '*');
    }
  });
}
