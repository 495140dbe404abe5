// Runs before the first paint (a classic script in the head, not a module):
// `js` hides what only a reader without scripts needs (the notes that a
// figure needs JavaScript) and shows what needs them; `embed-route` hides the
// whole page while one figure (?fig=) replaces it.
document.documentElement.classList.add('js');
if (new URLSearchParams(location.search).has('fig')) document.documentElement.classList.add('embed-route');
