// The analysis page: posts a pasted record to /api/analyse and shows every move's
// value before and after for its mover, what the tables or the proofs prove, the
// mistakes with the best move, and the value for White along the game as a chart.
'use strict';

const $ = (id) => document.getElementById(id);
const SVG = 'http://www.w3.org/2000/svg';

const END = {
  'no-stones': 'the side to move had no stones',
  'no-move': 'the side to move had no move',
  repetition: 'drawn by the third repetition',
  'no-capture-limit': 'drawn at the no-capture limit',
};

function valueText(v, depth) {
  if (v == null) return '-';
  return depth != null && v !== 'draw' ? `${v} in ${depth}` : v;
}

// White's value of the position before each ply, and after the last: 1, 0, -1 or null.
function whiteValues(moves) {
  const score = { win: 1, draw: 0, loss: -1 };
  const white = (m, v) => (v == null ? null : (m.mover === 'white' ? 1 : -1) * score[v]);
  // The tables' value, else the value the proofs fix.
  const out = moves.map((m) => white(m, m.before ?? m.proved_value));
  if (moves.length) out.push(white(moves[moves.length - 1], moves[moves.length - 1].after));
  return out;
}

function el(name, attrs, parent) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

function drawChart(a) {
  const values = whiteValues(a.moves);
  const n = Math.max(values.length - 1, 1);
  const W = 800, H = 200, L = 90, R = 10, T = 10, B = 30;
  const x = (i) => L + (i / n) * (W - L - R);
  const y = (v) => T + ((1 - v) / 2) * (H - T - B);
  const svg = el('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img' });
  for (const [v, name] of [[1, 'White wins'], [0, 'draw'], [-1, 'Black wins']]) {
    el('line', { class: 'grid', x1: L, x2: W - R, y1: y(v), y2: y(v) }, svg);
    el('text', { class: 'label', x: 4, y: y(v) + 4 }, svg).textContent = name;
  }
  // A step line per covered stretch.
  let pts = [];
  const flush = () => {
    if (pts.length) el('polyline', { class: 'value', points: pts.join(' ') }, svg);
    pts = [];
  };
  values.forEach((v, i) => {
    if (v == null) return flush();
    if (pts.length) pts.push(`${x(i)},${pts[pts.length - 1].split(',')[1]}`);
    pts.push(`${x(i)},${y(v)}`);
  });
  flush();
  for (const m of a.moves) {
    if (!m.mistake || values[m.ply] == null) continue;
    const c = el('circle', { class: 'mistake', cx: x(m.ply), cy: y(values[m.ply]), r: 5 }, svg);
    el('title', {}, c).textContent = `${m.ply}. ${m.move}: ${m.mistake}, best ${m.best}`;
  }
  el('text', { class: 'label', x: W / 2, y: H - 6 }, svg).textContent = 'ply';
  $('chart').replaceChildren(svg);
}

function show(a) {
  const mistakes = a.moves.filter((m) => m.mistake);
  const end = a.end ? END[a.end] : 'the game did not end by the rules';
  $('summary').textContent =
    `result ${a.result}; ${end}; ${mistakes.length} mistake${mistakes.length === 1 ? '' : 's'}, ` +
    `${a.moves.filter((m) => m.inaccuracy).length} inaccuracies; ` +
    `${a.proved} of ${a.moves.length} positions proved, ${a.thrown} thrown away`;
  const t = $('plies');
  t.innerHTML = '<tr><th>ply</th><th>move</th><th>before</th><th>after</th><th>proved</th><th>note</th></tr>';
  for (const m of a.moves) {
    const tr = document.createElement('tr');
    if (m.mistake) tr.className = 'mistake';
    const kind = m.mistake || m.inaccuracy;
    let note = kind ? `${kind}, best ${m.best}` : m.not_covered ? `not covered: ${m.not_covered}` : '';
    if (m.verdict === 'thrown' && !m.mistake) note = `throws it away: ${m.proved_after}`;
    if (m.verdict === 'thrown') tr.className = 'mistake';
    for (const v of [m.ply, m.move, valueText(m.before, m.before_depth), valueText(m.after, m.after_depth), m.proved_before, note]) {
      const td = document.createElement('td');
      td.textContent = v;
      tr.appendChild(td);
    }
    const link = document.createElement('a');
    link.href = `./?position=${encodeURIComponent(m.position)}`;
    link.textContent = 'board';
    const td = document.createElement('td');
    td.appendChild(link);
    tr.appendChild(td);
    t.appendChild(tr);
  }
  drawChart(a);
}

async function analyse(text) {
  $('status').textContent = 'analysing...';
  try {
    const r = await fetch('api/analyse', { method: 'POST', body: text });
    const body = await r.json();
    if (!r.ok) throw new Error(body.error || r.statusText);
    $('status').textContent = '';
    show(body);
  } catch (e) {
    $('status').textContent = e.message;
  }
}

$('record-form').addEventListener('submit', (e) => {
  e.preventDefault();
  analyse($('record').value);
});
// The web board links here with its game's record after the #.
if (location.hash.length > 1) {
  $('record').value = decodeURIComponent(location.hash.slice(1));
  analyse($('record').value);
}
