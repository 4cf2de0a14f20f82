// The web board: draws a position from its text, asks /api/probe for the value and
// every move's, and plays moves by showing the position each one leads to; where no
// table covers the position, /api/moves gives its moves from the rules alone. The
// moves played from where the board was set up make a game: /api/game replays it
// by the rules (the third repetition, the no-capture limit end it) and gives its
// record, which the analysis page takes; the address carries the game (start and
// moves), so that a link shares it. A vela side (s.vela) stays with the game: its
// stones lost are those it is missing, as in a game from the start. The editor
// sets up a position by clicking points. The drawing is draw.js's.
'use strict';


let visited = []; // the positions shown, for back and forward
let at = -1;
let answer = null; // the last /api/probe answer

function query(s) {
  const q = new URLSearchParams({ position: s.position });
  if (s.limit) {
    q.set('limit', s.limit);
    q.set('counter', s.counter || 0);
  }
  if (s.vela) q.set('vela', s.vela);
  return q.toString();
}

async function api(path, s) {
  const r = await fetch(`api/${path}?${query(s)}`);
  const body = await r.json();
  if (!r.ok) throw Object.assign(new Error(body.error || r.statusText), { status: r.status });
  return body;
}

// The answer for a position no table covers: its moves from the rules, no values.
async function rulesOnly(s, why) {
  const m = await api('moves', s);
  const counter = Number(s.counter || 0);
  const moves = m.moves.map((x) => ({
    move: x.move,
    value: 'unknown',
    depth: null,
    result: x.result,
    counter: s.limit ? (x.captured.length ? 0 : counter + 1) : undefined,
  }));
  return { position: m.position, value: 'unknown', depth: null, moves, best: [], uncovered: why };
}

// "win in 49", "loss in 20", "draw"; under the limit "win, capture in 29 (counter 4)".
function describeMove(m) {
  if (m.value === 'unknown') return 'no table';
  if (m.plies_to_capture !== undefined) {
    const t = m.value !== 'draw' && m.plies_to_capture != null ? `, capture in ${m.plies_to_capture}` : '';
    return `${m.value}${t} (counter ${m.counter})`;
  }
  return m.depth != null ? `${m.value} in ${m.depth}` : m.value;
}

function describe(a, pos) {
  const side = pos.white ? 'White' : 'Black';
  const lost = a.vela && `${a.vela.lost} stone${a.vela.lost === 1 ? '' : 's'} lost`;
  const vela = a.vela ? ` · vela for ${a.vela.side === 'white' ? 'White' : 'Black'}, ${lost}` : '';
  return describeValue(a, pos, side) + vela;
}

function describeValue(a, pos, side) {
  if (a.uncovered) {
    if (!a.moves.length) return `${side} to move: lost, no move`;
    return `${side} to move: ${a.uncovered}`;
  }
  if (a.limit !== undefined) {
    let v = a.value;
    if (a.value !== 'draw' && a.plies_to_capture != null) v += `, capture in ${a.plies_to_capture}`;
    if (a.cursed) v += ' (won or lost without the limit)';
    return `${side} to move: ${v} · limit ${a.limit}, counter ${a.counter}`;
  }
  if (!a.moves.length && a.value === 'loss') return `${side} to move: lost, no move`;
  return `${side} to move: ${describeMove(a)}`;
}

function render(a, s) {
  const pos = parsePosition(a.position);
  drawBoard($('board'), pos, a.moves, { play, title: (m) => `${m.move}: ${describeMove(m)}` });
  const value = $('value');
  value.textContent = describe(a, pos);
  value.className = a.value;
  const list = $('moves');
  list.replaceChildren();
  for (const m of a.moves) {
    const li = document.createElement('li');
    li.dataset.move = m.move;
    li.className = m.value + (a.best.includes(m.move) ? ' best' : '');
    li.textContent = `${m.move}  ${describeMove(m)}`;
    li.addEventListener('click', () => play(m));
    li.addEventListener('mouseenter', () => hover(m.move, true));
    li.addEventListener('mouseleave', () => hover(m.move, false));
    list.appendChild(li);
  }
  if (!a.moves.length) list.innerHTML = '<li>game over</li>';
  $('position').value = a.position;
  $('limit').value = s.limit || '';
  $('counter').value = s.limit ? s.counter || 0 : '';
  $('vela').value = s.vela || '';
  $('back').disabled = at <= 0;
  $('forward').disabled = at + 1 >= visited.length;
  $('best').disabled = !a.best.length;
  $('line').disabled = !!a.uncovered;
  $('line-box').hidden = true;
  history.replaceState(null, '', `?${address(s)}`);
}

// The page's address for state s: the game (its start and moves) where moves were
// played, else the position.
function address(s) {
  return s.moves && s.moves.length ? gameQuery(s) : query(s);
}

// The game that led to state s: its start, the start's counter, the moves.
function gameQuery(s) {
  const q = new URLSearchParams({ start: s.start || s.position, moves: (s.moves || []).join(' ') });
  if (s.limit) {
    q.set('limit', s.limit);
    q.set('counter', s.startCounter || 0);
  }
  if (s.vela) q.set('vela', s.vela);
  return q.toString();
}

async function showGame(s) {
  const r = await fetch(`api/game?${gameQuery(s)}`);
  const g = await r.json();
  if (!r.ok) throw new Error(g.error || r.statusText);
  $('record').textContent = g.record;
  $('analyse').href = `analyse#${encodeURIComponent(g.record)}`;
  $('end').textContent = g.end_text ? `game over: ${g.end_text}` : '';
  if (g.end) {
    // Over by the rules, though the tables would play on: no moves.
    answer = { ...answer, moves: [], best: [] };
    render(answer, s);
    $('moves').innerHTML = `<li>game over: ${g.end_text}</li>`;
  }
}

async function show(s) {
  try {
    try {
      answer = await api('probe', s);
    } catch (e) {
      if (e.status !== 404) throw e;
      // "no table 22v22 for the 9x5 board in DIR", without the how or why after it.
      answer = await rulesOnly(s, e.message.split(': ')[0]);
    }
    $('status').textContent = '';
    render(answer, s);
    await showGame(s);
  } catch (e) {
    $('status').textContent = e.message;
  }
}

// Shows a new position after the current one, dropping any forward history.
function visit(s) {
  visited = visited.slice(0, at + 1);
  visited.push(s);
  at = visited.length - 1;
  return show(s);
}

function rules() {
  const s = visited[at] || {};
  return { limit: s.limit || '', vela: s.vela || '' };
}

// A move continues the game of the position it is played in.
function play(m) {
  const r = rules();
  const s = visited[at] || {};
  return visit({
    position: m.result,
    limit: r.limit,
    vela: r.vela,
    counter: m.counter ?? '',
    start: s.start || s.position,
    startCounter: s.start ? s.startCounter : s.counter,
    moves: [...(s.moves || []), m.move],
  });
}

function go(step) {
  if (at + step < 0 || at + step >= visited.length) return;
  at += step;
  show(visited[at]);
}

async function showLine() {
  const s = visited[at];
  try {
    const l = await api('line', s);
    const list = $('line-moves');
    list.replaceChildren();
    for (const m of l.line) {
      const li = document.createElement('li');
      li.textContent = m.move;
      li.title = m.position;
      li.addEventListener('click', () => visit({ position: m.position, limit: s.limit, counter: m.counter ?? '', vela: s.vela }));
      list.appendChild(li);
    }
    if (!l.line.length) list.innerHTML = '<li>drawn: best play never ends the game</li>';
    $('line-box').hidden = false;
  } catch (e) {
    $('status').textContent = e.message;
  }
}

function chartUrl(t) {
  const q = new URLSearchParams({ board: t.board, signature: t.signature });
  if (t.limit) q.set('limit', t.limit);
  if (t.vela) q.set('vela', 1);
  return `charts/depths.svg?${q}`;
}

async function showTables() {
  const r = await fetch('api/tables');
  const { tables } = await r.json();
  const list = $('table-list');
  list.innerHTML =
    '<tr><th>board</th><th>table</th><th>positions</th><th>wins</th><th>draws</th><th>losses</th><th>longest win</th></tr>';
  for (const t of tables) {
    const tr = document.createElement('tr');
    tr.dataset.chart = chartUrl(t);
    const name = (t.limit ? `n${t.limit}/` : t.vela ? 'vela/' : '') + t.signature;
    for (const v of [t.board, name, t.positions, t.wins, t.draws, t.losses, t.longest_win ?? '-']) {
      const td = document.createElement('td');
      td.textContent = typeof v === 'number' ? v.toLocaleString('en') : v;
      tr.appendChild(td);
    }
    tr.addEventListener('click', () => {
      $('chart-img').src = tr.dataset.chart;
      $('chart-caption').textContent = `${t.board} ${name}: positions by depth (wins and losses)`;
      $('chart').hidden = false;
    });
    list.appendChild(tr);
  }
  const boards = [...new Set(tables.map((t) => t.board))];
  $('shares-box').replaceChildren(...boards.map((b) => {
    const img = document.createElement('img');
    img.src = `charts/shares.svg?board=${b}`;
    img.alt = `win, draw and loss shares by signature on ${b}`;
    return img;
  }));
  return tables;
}

// Replays a shared game (the address's start and moves) from the rules, one state a
// ply, so that Back walks through it.
async function replay(q) {
  const first = { position: q.get('start'), limit: q.get('limit') || '', counter: q.get('counter') || '', vela: q.get('vela') || '' };
  visited = [first];
  at = 0;
  for (const move of (q.get('moves') || '').split(/\s+/).filter(Boolean)) {
    const s = visited[at];
    const a = await rulesOnly(s, '');
    const m = a.moves.find((x) => x.move === move);
    if (!m) throw new Error(`illegal move ${move} in ${a.position}`);
    visited.push({
      position: m.result,
      limit: first.limit,
      vela: first.vela,
      counter: m.counter ?? '',
      start: first.position,
      startCounter: first.counter,
      moves: [...(s.moves || []), move],
    });
    at++;
  }
  return show(visited[at]);
}

async function start() {
  const q = new URLSearchParams(location.search);
  const tables = await showTables().catch(() => []);
  if (q.get('start')) return replay(q).catch((e) => { $('status').textContent = e.message; });
  let position = q.get('position');
  if (!position) {
    // No position asked for: the longest win of the largest plain table.
    const plain = tables.filter((t) => !t.limit && !t.vela && t.longest_win_position);
    position = plain.length ? plain[plain.length - 1].longest_win_position : 'start';
  }
  visit({ position, limit: q.get('limit') || '', counter: q.get('counter') || '', vela: q.get('vela') || '' });
}

$('goto').addEventListener('submit', (e) => {
  e.preventDefault();
  visit({ position: $('position').value, limit: $('limit').value, counter: $('counter').value, vela: $('vela').value });
});
$('back').addEventListener('click', () => go(-1));
$('forward').addEventListener('click', () => go(1));
$('best').addEventListener('click', () => {
  const m = answer && answer.moves.find((x) => x.move === answer.best[0]);
  if (m) play(m);
});
$('line').addEventListener('click', showLine);

// The position editor: a click on a point cycles it empty, White, Black.
let editing = null; // { width, height, stones: Map "x,y" -> white, white: White to move }

function editText(e) {
  const rows = [];
  for (let y = e.height - 1; y >= 0; y--) {
    let row = '';
    let empty = 0;
    for (let x = 0; x < e.width; x++) {
      const white = e.stones.get(`${x},${y}`);
      if (white === undefined) {
        empty++;
        continue;
      }
      if (empty) row += empty;
      empty = 0;
      row += white ? 'W' : 'B';
    }
    rows.push(empty ? row + empty : row);
  }
  return `${rows.join('/')} ${e.white ? 'w' : 'b'}`;
}

function drawEditor() {
  const pos = parsePosition(editText(editing));
  drawBoard($('board'), pos, [], {
    point: (x, y) => {
      const key = `${x},${y}`;
      const white = editing.stones.get(key);
      if (white === undefined) editing.stones.set(key, true);
      else if (white) editing.stones.set(key, false);
      else editing.stones.delete(key);
      drawEditor();
    },
  });
  $('edit-side').textContent = editing.white ? 'White to move' : 'Black to move';
  $('edit-size').value = `${editing.width}x${editing.height}`;
  $('position').value = editText(editing);
}

function editFrom(text) {
  const pos = parsePosition(text);
  const stones = new Map(pos.stones.map((s) => [`${s.x},${s.y}`, s.white]));
  editing = { width: pos.width, height: pos.height, stones, white: pos.white };
  drawEditor();
}

async function editStart() {
  const [width, height] = $('edit-size').value.split('x').map(Number);
  const m = await api('moves', { position: `start:${width}x${height}` });
  editFrom(m.position);
}

$('edit').addEventListener('click', () => {
  $('editor').hidden = false;
  $('edit').disabled = true;
  editFrom(answer ? answer.position : 'start');
});
$('edit-side').addEventListener('click', () => {
  editing.white = !editing.white;
  drawEditor();
});
$('edit-clear').addEventListener('click', () => {
  editing.stones.clear();
  drawEditor();
});
$('edit-size').addEventListener('change', () => editStart().catch((e) => { $('status').textContent = e.message; }));
$('edit-start').addEventListener('click', () => editStart().catch((e) => { $('status').textContent = e.message; }));
$('edit-done').addEventListener('click', () => {
  $('editor').hidden = true;
  $('edit').disabled = false;
  const position = editText(editing);
  editing = null;
  visit({ position, limit: $('limit').value, counter: $('counter').value, vela: $('vela').value });
});
document.addEventListener('keydown', (e) => {
  if (e.target.tagName === 'INPUT') return;
  if (e.key === 'ArrowLeft') go(-1);
  if (e.key === 'ArrowRight') go(1);
});
start();
