// api.js: the page's requests to toolscope's JSON API, and the shapes of
// its answers that several modules read. An answer that is not 2xx becomes
// an Error that carries the server's own words.

/**
 * A Run is the server's description of a run: what POST /api/runs answers,
 * and what GET /api/runs/{id} has.
 * @typedef {object} Run
 * @property {string} id
 * @property {string} events the address of its event stream
 * @property {string} [conversation_id]
 * @property {string} [message]
 * @property {boolean} [stored] kept from an earlier start of toolscope
 * @property {string} [started_at]
 * @property {{run: string, round: number}} [forked_from]
 */

/**
 * request sends a JSON body (if any) and returns the JSON answer; it
 * throws the server's "error", or the status when it gave none.
 * @param {string} method
 * @param {string} url
 * @param {object} [body]
 * @returns {Promise<any>}
 */
export async function request(method, url, body) {
  const res = await fetch(url, {
    method,
    headers: body ? { 'Content-Type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(data.error || `${method} ${url} answered ${res.status} ${res.statusText}`);
  return data;
}

/**
 * get reads JSON from the server.
 * @param {string} url
 * @returns {Promise<any>}
 */
export const get = (url) => request('GET', url);
