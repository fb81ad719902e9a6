// diff.js: a line diff by longest common subsequence, enough to show what
// changed between two LLM inputs. Prompts of one conversation share long
// heads and tails, which are cut off first so that the quadratic table
// only covers what differs.

// Past this many table cells, the middle is shown as removed then added:
// a diff nobody could read anyway, at a cost the page should not pay.
const MAX_CELLS = 4_000_000;

/**
 * lineDiff compares two texts line by line. It returns the lines of both
 * in order, each {op, text}: op '=' in both, '-' only in a, '+' only in b.
 */
export function lineDiff(a, b) {
  const x = a.split('\n');
  const y = b.split('\n');
  let head = 0;
  while (head < x.length && head < y.length && x[head] === y[head]) head++;
  let tail = 0;
  while (tail < x.length - head && tail < y.length - head && x[x.length - 1 - tail] === y[y.length - 1 - tail]) tail++;
  const same = (lines) => lines.map((text) => ({ op: '=', text }));
  return [
    ...same(x.slice(0, head)),
    ...middle(x.slice(head, x.length - tail), y.slice(head, y.length - tail)),
    ...same(x.slice(x.length - tail)),
  ];
}

function middle(x, y) {
  const removed = x.map((text) => ({ op: '-', text }));
  const added = y.map((text) => ({ op: '+', text }));
  if (!x.length || !y.length || x.length * y.length > MAX_CELLS) return [...removed, ...added];
  // lcs[i][j] is the length of the longest common subsequence of x[i:] and y[j:].
  const lcs = Array.from({ length: x.length + 1 }, () => new Uint32Array(y.length + 1));
  for (let i = x.length - 1; i >= 0; i--) {
    for (let j = y.length - 1; j >= 0; j--) {
      lcs[i][j] = x[i] === y[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const out = [];
  let i = 0;
  let j = 0;
  while (i < x.length && j < y.length) {
    if (x[i] === y[j]) {
      out.push({ op: '=', text: x[i++] });
      j++;
    } else if (lcs[i + 1][j] >= lcs[i][j + 1]) {
      out.push(removed[i++]);
    } else {
      out.push(added[j++]);
    }
  }
  return [...out, ...removed.slice(i), ...added.slice(j)];
}

/**
 * hunks folds the unchanged stretches of a diff longer than 2 × context
 * lines into one {op: '…', count} entry, keeping context lines around
 * each change.
 */
export function hunks(diff, context = 3) {
  const out = [];
  let run = [];
  const flush = (atStart, atEnd) => {
    const keepHead = atStart ? 0 : context;
    const keepTail = atEnd ? 0 : context;
    if (run.length <= keepHead + keepTail + 1) {
      out.push(...run);
    } else {
      out.push(...run.slice(0, keepHead), { op: '…', count: run.length - keepHead - keepTail });
      out.push(...run.slice(run.length - keepTail));
    }
    run = [];
  };
  let first = true;
  for (const line of diff) {
    if (line.op === '=') {
      run.push(line);
      continue;
    }
    flush(first, false);
    first = false;
    out.push(line);
  }
  flush(first, true);
  return out;
}
