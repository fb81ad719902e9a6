// evalchart.js: the Evals view's charts, SVG drawn from an eval's cells
// with no library: pass rate, and prompt tokens, against the number of
// tools offered (the suite's own plus a cell's distractors), one line
// with tool retrieval and one without when the matrix has both. Cells
// that differ on other axes (call formats, models) are pooled.

const svgNS = 'http://www.w3.org/2000/svg';

/** Each chart's size, in the SVG's units; it scales to its box. */
const size = { width: 480, height: 230, left: 52, right: 16, top: 44, bottom: 40 };

/**
 * A Point is the cells of one line at one number of tools, pooled.
 * @typedef {{tools: number, passed: number, graded: number, tokens: number}} Point
 */

/**
 * series groups the cells by retrieval, each line's points by tools
 * offered, in order.
 * @param {import('./evals.js').EvalStatus} st
 * @returns {Map<string, Point[]>}
 */
export function series(st) {
  /** @type {Map<string, Map<number, Point>>} */
  const lines = new Map();
  for (const c of st.cells) {
    const k = c.settings.tools_top_k;
    const name = k === undefined ? 'pass rate' : String(k) === '0' ? 'without retrieval' : `with retrieval (${k})`;
    const tools = st.tools + c.distractors;
    const line = entry(lines, name, () => new Map());
    const p = entry(line, tools, () => ({ tools, passed: 0, graded: 0, tokens: 0 }));
    p.passed += c.passed;
    p.graded += c.graded;
    p.tokens += c.prompt_tokens * c.graded;
  }
  return new Map([...lines].map(([name, points]) => [name, [...points.values()].filter((p) => p.graded > 0).sort((a, b) => a.tools - b.tools)]));
}

/**
 * entry is map's value of key, made and set when it has none.
 * @template K, V
 * @param {Map<K, V>} map
 * @param {K} key
 * @param {() => V} make
 * @returns {V}
 */
function entry(map, key, make) {
  let v = map.get(key);
  if (v === undefined) map.set(key, (v = make()));
  return v;
}

/**
 * drawChart returns the two charts of st, or none when its cells do not
 * vary the tools offered.
 * @param {import('./evals.js').EvalStatus} st
 * @returns {SVGSVGElement[]}
 */
export function drawChart(st) {
  const lines = series(st);
  const xs = new Set([...lines.values()].flat().map((p) => p.tools));
  if (xs.size < 2) return [];
  const maxTokens = Math.max(...[...lines.values()].flat().map((p) => p.tokens / p.graded));
  return [
    chart('Pass rate against tools offered', lines, (p) => p.passed / p.graded, 1, (v) => `${Math.round(v * 100)}%`),
    chart('Prompt tokens against tools offered', lines, (p) => p.tokens / p.graded, niceCeiling(maxTokens), (v) => compact(v)),
  ];
}

/** niceCeiling rounds n up to 1, 2 or 5 times a power of ten. */
function niceCeiling(n) {
  if (n <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(n));
  return [1, 2, 5, 10].map((m) => m * power).find((v) => v >= n) ?? n;
}

/** compact writes a token count short: 1.2k. */
const compact = (v) => new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 }).format(v);

/**
 * chart draws one chart: x the tools offered, on a log scale (3 to 1,193
 * tools), y value(p) from 0 to top.
 * @param {string} title
 * @param {Map<string, Point[]>} lines
 * @param {(p: Point) => number} value
 * @param {number} top
 * @param {(v: number) => string} label
 */
function chart(title, lines, value, top, label) {
  const points = [...lines.values()].flat();
  const lo = Math.log10(Math.max(Math.min(...points.map((p) => p.tools)), 1));
  const hi = Math.log10(Math.max(...points.map((p) => p.tools), 1));
  const plotW = size.width - size.left - size.right;
  const plotH = size.height - size.top - size.bottom;
  const x = (tools) => size.left + (hi === lo ? plotW / 2 : ((Math.log10(Math.max(tools, 1)) - lo) / (hi - lo)) * plotW);
  const y = (v) => size.top + plotH - (Math.min(v, top) / top) * plotH;

  const svg = node('svg', { viewBox: `0 0 ${size.width} ${size.height}`, class: 'eval-chart', role: 'img' });
  svg.append(node('title', {}, title), node('text', { x: size.left, y: 16, class: 'chart-title' }, title));
  for (const frac of [0, 0.5, 1]) {
    svg.append(
      node('line', { x1: size.left, x2: size.width - size.right, y1: y(frac * top), y2: y(frac * top), class: 'chart-grid' }),
      node('text', { x: size.left - 6, y: y(frac * top) + 4, class: 'chart-tick chart-tick-y' }, label(frac * top)),
    );
  }
  for (const tools of new Set(points.map((p) => p.tools))) {
    svg.append(node('text', { x: x(tools), y: size.height - size.bottom + 16, class: 'chart-tick chart-tick-x' }, compact(tools)));
  }
  svg.append(node('text', { x: size.left + plotW / 2, y: size.height - 6, class: 'chart-axis' }, 'tools offered'));
  [...lines].forEach(([name, line], i) => {
    const cls = `chart-line chart-series-${i % 3}`;
    svg.append(node('polyline', { points: line.map((p) => `${x(p.tools)},${y(value(p))}`).join(' '), class: cls }));
    for (const p of line) {
      svg.append(node('circle', { cx: x(p.tools), cy: y(value(p)), r: 3.5, class: cls }, `${name}: ${label(value(p))} with ${p.tools} tools`));
    }
    if (lines.size > 1) {
      const lx = size.left + i * 170;
      svg.append(
        node('line', { x1: lx, x2: lx + 22, y1: 30, y2: 30, class: cls }),
        node('text', { x: lx + 26, y: 34, class: 'chart-legend' }, name),
      );
    }
  });
  return svg;
}

/**
 * node makes an SVG element with attributes and, for text and title, its
 * text; a circle's text is its tooltip.
 * @param {string} tag
 * @param {Record<string, string | number>} attrs
 * @param {string} [text]
 * @returns {any}
 */
function node(tag, attrs, text) {
  const n = document.createElementNS(svgNS, tag);
  for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, String(v));
  if (text !== undefined) {
    if (tag === 'circle') n.append(node('title', {}, text));
    else n.textContent = text;
  }
  return n;
}
