// A figure redrawn as plain SVG for "Save as SVG" and "Save as PNG"
// (issue 37): boxes as <rect>, text as <text> a line at a time, the page's
// inline diagrams as nested <svg> with their colours written on each shape,
// chart canvases as <image>, MathML's fraction bars and radicals as paths.
// Every position and colour is the browser's own (bounding boxes, text
// ranges, computed styles), so the file needs no style sheet and no HTML:
// slide and vector tools, which cannot read <foreignObject>, open it.
//
// Loaded only when a reader saves a figure (src/boot.js, `parallaxDrawing`),
// so the page does not download it to start: its bytes are nobody's until
// then. src/widgets/export.rs calls `figureSvg`.

const escape = (text) => String(text).replace(/[&<>"]/g, (c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot' }[c]};`);
const round = (x) => Math.round(x * 10) / 10;

/**
 * A CSS colour as the computed style gives it (`rgb(…)`, `rgba(…)`, or
 * `color(srgb …)` where the style sheet mixes colours) as `#rrggbb` and its
 * opacity: SVG 1.1 readers know neither `rgba()` nor `color()`. Null when it
 * is transparent or not a colour.
 */
export function colour(css) {
  const scale = css.startsWith('color(srgb') ? 255 : css.startsWith('rgb') ? 1 : 0;
  const numbers = (css.match(/-?[\d.]+(?:e-?\d+)?/g) ?? []).map(Number);
  if (!scale || numbers.length < 3) return null;
  const alpha = numbers[3] ?? 1;
  if (alpha <= 0) return null;
  const hex = numbers.slice(0, 3).map((c) => Math.min(255, Math.max(0, Math.round(c * scale))).toString(16).padStart(2, '0')).join('');
  return { hex: `#${hex}`, alpha };
}

/** A CSS colour as an SVG paint attribute `name` (with its opacity when translucent); '' when it paints nothing. */
export function paint(name, css) {
  const found = colour(css);
  if (!found) return '';
  return found.alpha < 1 ? `${name}="${found.hex}" ${name}-opacity="${found.alpha}"` : `${name}="${found.hex}"`;
}

/** The arguments of a CSS function, split at the commas not inside brackets. */
function args(css) {
  const parts = [];
  let depth = 0;
  let from = 0;
  for (let at = 0; at < css.length; at++) {
    const c = css[at];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(css.slice(from, at).trim());
      from = at + 1;
    }
  }
  parts.push(css.slice(from).trim());
  return parts;
}

/**
 * A computed `repeating-linear-gradient(…)`, the page's hatching, as its
 * angle in degrees (CSS's: 90 runs left to right) and its stops, each a
 * colour and where it starts in CSS pixels; null for anything else.
 */
export function stripes(css) {
  const inner = /^repeating-linear-gradient\((.*)\)$/.exec(css)?.[1];
  if (!inner) return null;
  const parts = args(inner);
  const angle = /^(-?[\d.]+)deg$/.exec(parts[0]);
  if (angle) parts.shift();
  const stops = parts.map((part) => /^(.*\))\s+(-?[\d.]+)px$/.exec(part)).map((m) => m && [m[1], Number(m[2])]);
  if (stops.length < 2 || stops.some((stop) => !stop)) return null;
  return { angle: angle ? Number(angle[1]) : 180, stops };
}

/**
 * The pieces of `text` a line may break between: its words, and a
 * hyphenated word's parts after each hyphen, dash or slash ("tensor-",
 * "parallel"), each with where it starts and ends (UTF-16 code units, as a
 * DOM range counts them) and whether white space comes before it. CSS's
 * white space only: a no-break space is part of a word.
 */
export function pieces(text) {
  return [...text.matchAll(/([ \t\n\r\f]*)([^ \t\n\r\f]+?(?:[-–—/]|(?=[ \t\n\r\f]|$)))/g)]
    .map((m) => ({ start: m.index + m[1].length, end: m.index + m[0].length, text: m[2], spaced: m[1].length > 0 }));
}

class Drawing {
  constructor(origin) {
    const corner = origin.getBoundingClientRect();
    this.left = corner.left;
    this.top = corner.top;
    this.range = document.createRange();
    this.patterns = 0;
    // The furthest right anything is drawn: what scrolls sideways on the page
    // (the 3D grid, a long equation, the search's table on a phone) widens
    // the drawing rather than being cut off.
    this.right = corner.right;
    this.svg = '';
  }

  /** A page rectangle in the drawing: its `x`, `y`, `width` and `height`, rounded; it widens the drawing. */
  box(rect) {
    this.right = Math.max(this.right, rect.left + rect.width);
    return { x: round(rect.left - this.left), y: round(rect.top - this.top), width: round(rect.width), height: round(rect.height) };
  }

  /** `x`, `y`, `width` and `height` attributes of a page rectangle. */
  place(rect) {
    const { x, y, width, height } = this.box(rect);
    return `x="${x}" y="${y}" width="${width}" height="${height}"`;
  }

  path(d, colour) {
    this.svg += `<path d="${d}" fill="none" ${paint('stroke', colour)}/>`;
  }

  /** `element` and everything in it that shows. */
  element(element) {
    const style = getComputedStyle(element);
    // Nothing of what is not displayed, nor of text kept for screen readers
    // only (clipped away: the page's `.visually-hidden`).
    if (style.display === 'none' || style.clipPath.startsWith('inset(50%')) return;
    const rect = element.getBoundingClientRect();
    if (element.localName === 'svg') return this.inlineSvg(element, rect);
    if (element.localName === 'img') {
      this.svg += `<image ${this.place(rect)} href="${escape(element.src)}" preserveAspectRatio="none"><title>${escape(element.alt)}</title></image>\n`;
      return;
    }
    const shows = style.visibility !== 'hidden';
    if (shows) {
      this.frame(style, rect);
      this.math(element, style, rect);
      this.marker(element, style, rect);
    }
    for (const node of element.childNodes) {
      if (node.nodeType === Node.ELEMENT_NODE) this.element(node);
      else if (shows && node.nodeType === Node.TEXT_NODE) this.text(node, style);
    }
  }

  /**
   * The paint of a background: its colour, or a pattern of the stripes its
   * repeating gradient draws (the page's hatching tells parts apart where
   * colour alone would not), defined here; '' when it has neither.
   */
  background(style) {
    const fill = paint('fill', style.backgroundColor);
    const hatch = fill ? null : stripes(style.backgroundImage);
    const period = hatch?.stops.at(-1)[1];
    if (!period) return fill;
    const id = `hatch${++this.patterns}`;
    this.svg += `<defs><pattern id="${id}" patternUnits="userSpaceOnUse" width="${period}" height="${period}" patternTransform="rotate(${hatch.angle - 90})">`;
    hatch.stops.forEach(([colour, from], i) => {
      const to = hatch.stops[i + 1]?.[1] ?? from;
      const stripe = paint('fill', colour);
      if (to > from && stripe) this.svg += `<rect x="${from}" width="${to - from}" height="${period}" ${stripe}/>`;
    });
    this.svg += '</pattern></defs>';
    return `fill="url(#${id})"`;
  }

  /** A box's background and border. */
  frame(style, rect) {
    if (rect.width <= 0 || rect.height <= 0) return;
    const corner = style.borderTopLeftRadius;
    const radius = corner.endsWith('%') ? (parseFloat(corner) / 100) * rect.width : parseFloat(corner) || 0;
    const rounded = radius > 0 ? ` rx="${round(radius)}"` : '';
    const fill = this.background(style);
    if (fill) this.svg += `<rect ${this.place(rect)}${rounded} ${fill}/>`;
    const sides = ['Top', 'Right', 'Bottom', 'Left'].map((side) => ({
      width: style[`border${side}Style`] === 'none' ? 0 : parseFloat(style[`border${side}Width`]) || 0,
      colour: style[`border${side}Color`],
      line: style[`border${side}Style`],
    }));
    const [top, right, bottom, left] = sides;
    if (sides.every((side) => side.width === top.width && side.colour === top.colour && side.line === top.line)) {
      this.outline(rect, -top.width / 2, top, rounded);
    } else {
      // Each side a line along its middle.
      const ends = [
        [top, rect.left, rect.top + top.width / 2, rect.right, rect.top + top.width / 2],
        [right, rect.right - right.width / 2, rect.top, rect.right - right.width / 2, rect.bottom],
        [bottom, rect.left, rect.bottom - bottom.width / 2, rect.right, rect.bottom - bottom.width / 2],
        [left, rect.left + left.width / 2, rect.top, rect.left + left.width / 2, rect.bottom],
      ];
      for (const [side, x1, y1, x2, y2] of ends) {
        const stroke = paint('stroke', side.colour);
        if (side.width > 0 && stroke) {
          this.svg += `<path d="M${round(x1 - this.left)} ${round(y1 - this.top)}L${round(x2 - this.left)} ${round(y2 - this.top)}" stroke-width="${side.width}"${dashes(side)} ${stroke}/>`;
        }
      }
    }
    // An outline (the 3D grid's selected group) sits outside the border, at its offset.
    const ring = { width: style.outlineStyle === 'none' ? 0 : parseFloat(style.outlineWidth) || 0, colour: style.outlineColor, line: style.outlineStyle };
    this.outline(rect, (parseFloat(style.outlineOffset) || 0) + ring.width / 2, ring, '');
  }

  /** A stroke `side` (width, colour, line style) round `rect`, its middle `by` outside it. */
  outline(rect, by, side, rounded) {
    const stroke = paint('stroke', side.colour);
    if (!(side.width > 0) || !stroke) return;
    const around = { left: rect.left - by, top: rect.top - by, width: rect.width + 2 * by, height: rect.height + 2 * by };
    this.svg += `<rect ${this.place(around)}${rounded} fill="none" stroke-width="${side.width}"${dashes(side)} ${stroke}/>`;
  }

  /** What MathML draws rather than writes: a fraction's bar, a square root's radical. */
  math(element, style, rect) {
    const x = (value) => round(value - this.left);
    const y = (value) => round(value - this.top);
    if (element.localName === 'mfrac' && element.children.length === 2) {
      const [above, below] = element.children;
      const bar = (above.getBoundingClientRect().bottom + below.getBoundingClientRect().top) / 2;
      this.path(`M${x(rect.left)} ${y(bar)}H${x(rect.right)}`, style.color);
    } else if (element.localName === 'msqrt') {
      const em = parseFloat(style.fontSize);
      const top = rect.top + 1;
      this.path(`M${x(rect.left)} ${y((top + rect.bottom) / 2)}L${x(rect.left + 0.25 * em)} ${y(rect.bottom)}L${x(rect.left + 0.5 * em)} ${y(top)}H${x(rect.right)}`, style.color);
    }
  }

  /**
   * An element's `::before`, which the page uses for its legends' colour
   * keys and a few words: drawn at the start of its first line.
   */
  marker(element, style, rect) {
    const before = getComputedStyle(element, '::before');
    if (before.content === 'none' || before.content === 'normal' || before.display === 'none') return;
    const x = rect.left + parseFloat(style.paddingLeft) + parseFloat(style.borderLeftWidth) - this.left;
    const line = parseFloat(style.lineHeight) || 1.2 * parseFloat(style.fontSize);
    const top = rect.top + parseFloat(style.paddingTop) + parseFloat(style.borderTopWidth) - this.top;
    const words = before.content.replace(/^"|"$/g, '').trim();
    if (!words) {
      const [width, height] = [parseFloat(before.width), parseFloat(before.height)];
      const fill = this.background(before);
      if (width > 0 && height > 0 && fill) {
        this.svg += `<rect x="${round(x)}" y="${round(top + (line - height) / 2)}" width="${width}" height="${height}" rx="2" ${fill}/>`;
      }
    } else {
      this.svg += `<text x="${round(x)}" y="${round(top + 0.75 * line)}" ${font(before)}>${escape(words)}</text>\n`;
    }
  }

  /**
   * A text node, a <text> a line: its pieces are measured one by one and
   * those on the same line written together, at the first one's left and on
   * the line's baseline (about four fifths down a text box).
   */
  text(node, style) {
    const lines = [];
    for (const piece of pieces(node.data)) {
      this.range.setStart(node, piece.start);
      this.range.setEnd(node, piece.end);
      const rect = this.range.getBoundingClientRect();
      if (rect.width <= 0) continue;
      this.right = Math.max(this.right, rect.right);
      const line = lines.at(-1);
      if (line && Math.abs(rect.top - line.top) < line.height / 2) line.text += (piece.spaced ? ' ' : '') + piece.text;
      else lines.push({ left: rect.left, top: rect.top, height: rect.height, text: piece.text });
    }
    const attributes = font(style);
    for (const line of lines) {
      this.svg += `<text x="${round(line.left - this.left)}" y="${round(line.top + 0.8 * line.height - this.top)}" ${attributes}>${escape(line.text)}</text>\n`;
    }
  }

  /** An inline diagram, copied with each shape's computed colours and font written on it, in place. */
  inlineSvg(element, rect) {
    const copy = element.cloneNode(true);
    const originals = [element, ...element.querySelectorAll('*')];
    const copies = [copy, ...copy.querySelectorAll('*')];
    originals.forEach((original, i) => {
      const shape = copies[i];
      const style = getComputedStyle(original);
      if (style.display === 'none') return shape.remove();
      for (const name of ['fill', 'stroke']) {
        const found = colour(style[name]);
        if (found) {
          shape.setAttribute(name, found.hex);
          if (found.alpha < 1) shape.setAttribute(`${name}-opacity`, found.alpha);
        } else if (style[name] === 'none') shape.setAttribute(name, 'none');
      }
      for (const name of ['stroke-width', 'stroke-dasharray', 'opacity', 'font-size', 'font-weight', 'font-family', 'text-anchor']) {
        const value = style.getPropertyValue(name);
        if (value && value !== 'none' && value !== 'normal') shape.setAttribute(name, value);
      }
      shape.removeAttribute('class');
      shape.removeAttribute('style');
    });
    for (const [name, value] of Object.entries(this.box(rect))) copy.setAttribute(name, value);
    this.svg += new XMLSerializer().serializeToString(copy);
  }
}

/** A dashed or dotted CSS line as a stroke's dashes, its dash as long as CSS draws it. */
function dashes({ width, line }) {
  if (line === 'dashed') return ` stroke-dasharray="${3 * width} ${3 * width}"`;
  if (line === 'dotted') return ` stroke-dasharray="${width} ${width}"`;
  return '';
}

/** The font and colour of text in `style`, as SVG attributes. */
function font(style) {
  return `font-family="${escape(style.fontFamily)}" font-size="${parseFloat(style.fontSize)}" font-weight="${style.fontWeight}" font-style="${style.fontStyle}" ${paint('fill', style.color)}`;
}

/**
 * The figure in `section` as a standalone SVG document: a copy without the
 * parts that match `leftOut` (controls, questions, the share panel), each
 * chart canvas as the image it shows, laid out off screen at the section's
 * width and drawn. Returns [text, width, height] in CSS pixels.
 */
export function figureSvg(section, leftOut) {
  const copy = section.cloneNode(true);
  // A clone's canvases are blank: each original's pixels take its place.
  const canvases = section.querySelectorAll('canvas');
  copy.querySelectorAll('canvas').forEach((blank, i) => {
    const original = canvases[i];
    const image = document.createElement('img');
    image.src = original.toDataURL();
    image.alt = blank.getAttribute('aria-label') ?? '';
    // The canvas's own size, through the CSS object model (a style attribute
    // would break the page's CSP): the copy is laid out before its image
    // decodes, and an image is not held to a canvas's width.
    Object.assign(image.style, { width: `${original.clientWidth}px`, height: `${original.clientHeight}px` });
    blank.replaceWith(image);
  });
  for (const part of copy.querySelectorAll(leftOut)) part.remove();
  const width = Math.ceil(section.getBoundingClientRect().width);
  // Off screen, through the CSS object model: a style attribute would break the page's CSP.
  const holder = document.createElement('div');
  Object.assign(holder.style, { position: 'absolute', left: '-100000px', top: '0', width: `${width}px` });
  document.body.append(holder);
  holder.append(copy);
  try {
    const drawing = new Drawing(copy);
    drawing.element(copy);
    const box = copy.getBoundingClientRect();
    const wide = Math.max(width, Math.ceil(drawing.right - box.left + 16));
    // Where it came from, with every setting in its address: a figure pasted
    // into slides still says how it was set.
    const page = getComputedStyle(document.body);
    const source = `<text x="16" y="${Math.ceil(box.height) + 18}" font-family="${escape(page.fontFamily)}" font-size="12" ${paint('fill', page.color)}>${escape(location.href)}</text>`;
    const height = Math.ceil(box.height) + 28;
    const text = `<svg xmlns="http://www.w3.org/2000/svg" width="${wide}" height="${height}" viewBox="0 0 ${wide} ${height}">\n<rect width="100%" height="100%" ${paint('fill', page.backgroundColor)}/>\n${drawing.svg}${source}</svg>\n`;
    return [text, wide, height];
  } finally {
    holder.remove();
  }
}
