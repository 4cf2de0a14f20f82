// The board as both pages draw it: position text parsed, the board drawn as SVG
// with its stones and an arrow for each move, a move's arrow and list entry lit
// together on hover.
'use strict';

const $ = (id) => document.getElementById(id);
const SVG = 'http://www.w3.org/2000/svg';

// "3WW3B/9 w" -> width, height, stones (x from the left, y from the bottom), side.
function parsePosition(text) {
  const [rows, side] = text.trim().split(/\s+/);
  const lines = rows.split('/');
  const height = lines.length;
  let width = 0;
  const stones = [];
  lines.forEach((row, i) => {
    let x = 0;
    for (const m of row.matchAll(/(\d+)|([WB])/g)) {
      if (m[1]) x += Number(m[1]);
      else stones.push({ x: x++, y: height - 1 - i, white: m[2] === 'W' });
    }
    width = Math.max(width, x);
  });
  return { width, height, stones, white: side === 'w' };
}

// "c1-d2A-c3W" -> the points it passes, as {x, y}.
function movePoints(notation) {
  return notation.split('-').map((p) => {
    const m = /^([a-z])(\d+)/.exec(p);
    return { x: m[1].charCodeAt(0) - 97, y: Number(m[2]) - 1 };
  });
}

function el(name, attrs, parent) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

// Draws `pos` into `box` with an arrow for each move (`m.move`, classed by
// `m.value`): a click plays it (`on.play(m)`), `on.title(m)` is its tooltip. With
// `on.point(x, y)`, every point takes clicks (the position editor).
function drawBoard(box, pos, moves, on) {
  const pad = 0.7;
  const px = (x) => pad + x;
  const py = (y) => pad + (pos.height - 1 - y);
  const svg = el('svg', {
    viewBox: `0 0 ${pos.width - 1 + 2 * pad} ${pos.height - 1 + 2 * pad}`,
    role: 'img',
  });
  const line = (x1, y1, x2, y2) =>
    el('line', { class: 'grid', x1: px(x1), y1: py(y1), x2: px(x2), y2: py(y2) }, svg);
  for (let y = 0; y < pos.height; y++) line(0, y, pos.width - 1, y);
  for (let x = 0; x < pos.width; x++) line(x, 0, x, pos.height - 1);
  // Diagonals run through the strong points, where x + y is even.
  for (let x = 0; x + 1 < pos.width; x++) {
    for (let y = 0; y < pos.height; y++) {
      if ((x + y) % 2) continue;
      if (y + 1 < pos.height) line(x, y, x + 1, y + 1);
      if (y > 0) line(x, y, x + 1, y - 1);
    }
  }
  for (let x = 0; x < pos.width; x++) {
    el('text', { class: 'label', x: px(x) - 0.08, y: py(0) + 0.55 }, svg).textContent =
      String.fromCharCode(97 + x);
  }
  for (let y = 0; y < pos.height; y++) {
    el('text', { class: 'label', x: 0.05, y: py(y) + 0.1 }, svg).textContent = y + 1;
  }
  for (const s of pos.stones) {
    el('circle', {
      class: `stone ${s.white ? 'white' : 'black'}`,
      cx: px(s.x), cy: py(s.y), r: 0.32,
      'data-point': String.fromCharCode(97 + s.x) + (s.y + 1),
    }, svg);
  }
  if (on.point) {
    for (let x = 0; x < pos.width; x++) {
      for (let y = 0; y < pos.height; y++) {
        const spot = el('circle', {
          class: 'spot', cx: px(x), cy: py(y), r: 0.45,
          'data-spot': String.fromCharCode(97 + x) + (y + 1),
        }, svg);
        spot.addEventListener('click', () => on.point(x, y));
      }
    }
  }
  for (const m of moves) {
    const path = movePoints(m.move);
    const pts = path.map((p) => `${px(p.x)},${py(p.y)}`).join(' ');
    const a = el('g', { class: `arrow ${m.value}`, 'data-move': m.move }, svg);
    el('polyline', { points: pts }, a);
    // The end of the move: a dot where the stone lands.
    const end = path[path.length - 1];
    el('circle', { cx: px(end.x), cy: py(end.y), r: 0.1 }, a);
    el('title', {}, a).textContent = on.title(m);
    a.addEventListener('click', () => on.play(m));
    a.addEventListener('mouseenter', () => hover(m.move, true));
    a.addEventListener('mouseleave', () => hover(m.move, false));
  }
  box.replaceChildren(svg);
}

function hover(move, on) {
  for (const e of document.querySelectorAll(`[data-move="${move}"]`)) e.classList.toggle('hover', on);
}
