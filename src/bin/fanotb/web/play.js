// Play the solved game: the person picks a colour at the tsivy start, fanotb plays
// the other from its proof, its tables and its search (/api/play); after every
// move the page says what is proved about the position, and at the end it links
// the game's analysis. The moves played are kept in the URL (?side=&moves=).
'use strict';

let side = 'white';
let moves = [];

// "notlose" -> "White does not lose", for the side to move.
function proved(p) {
  const turn = p.position.endsWith(' w') ? 'White' : 'Black';
  const other = turn === 'White' ? 'Black' : 'White';
  switch (p.value) {
    case 'notlose': return `${turn} to move does not lose (proved)`;
    case 'notwin': return `${other} does not lose (proved)`;
    case 'unknown': return `${turn} to move: nothing proved`;
    default: return `${turn} to move: ${p.proved}`;
  }
}

async function step(engine) {
  const q = new URLSearchParams({ start: 'start', moves: moves.join(' ') });
  if (engine) q.set('engine', side === 'white' ? 'black' : 'white');
  const r = await fetch(`api/play?${q}`);
  const p = await r.json();
  if (!r.ok) throw new Error(p.error || r.statusText);
  moves = p.moves;
  history.replaceState(null, '', `?${new URLSearchParams({ side, moves: moves.join(' ') })}`);
  const pos = parsePosition(p.position);
  const mine = !p.end && (pos.white === (side === 'white'));
  const choices = mine ? p.legal.map((m) => ({ ...m, value: 'draw' })) : [];
  drawBoard($('board'), pos, choices, { play: (m) => move(m.move), title: (m) => m.move });
  $('value').textContent = p.end ? '' : proved(p);
  $('value').className = p.value;
  $('engine').textContent = p.engine_move ? `fanotb played ${p.engine_move} (${p.engine_source})` : '';
  const list = $('moves');
  list.replaceChildren();
  for (const m of choices) {
    const li = document.createElement('li');
    li.dataset.move = m.move;
    li.textContent = m.move;
    li.addEventListener('click', () => move(m.move));
    li.addEventListener('mouseenter', () => hover(m.move, true));
    li.addEventListener('mouseleave', () => hover(m.move, false));
    list.appendChild(li);
  }
  $('record').textContent = p.record;
  $('end').textContent = p.end_text ? `game over: ${p.end_text}` : '';
  $('analyse').href = `analyse#${encodeURIComponent(p.record)}`;
  $('analyse').hidden = !p.end;
}

async function run(engine) {
  try {
    $('status').textContent = '';
    await step(engine);
  } catch (e) {
    $('status').textContent = e.message;
  }
}

// The person's move, then fanotb's answer.
function move(m) {
  moves.push(m);
  return run(true);
}

function begin(colour) {
  side = colour;
  moves = [];
  return run(true);
}

$('as-white').addEventListener('click', () => begin('white'));
$('as-black').addEventListener('click', () => begin('black'));
const q = new URLSearchParams(location.search);
side = q.get('side') === 'black' ? 'black' : 'white';
moves = (q.get('moves') || '').split(' ').filter(Boolean);
run(true);
