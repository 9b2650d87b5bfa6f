// The strategy explorer: one strategy tree, embedded as compact arrays, explored in the
// browser (mastermind.explorer writes the page).  Only the current guess, its answers and
// the line of play are ever drawn; the tree is decoded once into typed arrays.
"use strict";
(function () {
  const D = JSON.parse(document.getElementById("mm-data").textContent);
  const t0 = performance.now();

  // ------------------------------------------------------------ the tree
  // Nodes in preorder: D.g the guess, D.c = 2 * (number of answers that continue) + (1 if
  // the guess may be the secret), D.s the slot of the answer leading to the node.
  const N = D.g.length;
  const nk = (i) => D.c[i] >> 1;
  const kidStart = new Int32Array(N + 1);
  for (let i = 0; i < N; i++) kidStart[i + 1] = kidStart[i] + nk(i);
  const kids = new Int32Array(Math.max(1, N - 1));
  const filled = new Int32Array(N);
  const parent = new Int32Array(N);
  const depth = new Int32Array(N);
  const size = new Int32Array(N);   // candidates left before the node's guess
  const span = new Int32Array(N);   // nodes in the subtree (preorder: [i, i + span))
  parent[0] = -1;
  depth[0] = 1;
  const stack = [0], left = [nk(0)];
  for (let i = 1; i < N; i++) {
    while (left[left.length - 1] === 0) { stack.pop(); left.pop(); }
    const p = stack[stack.length - 1];
    left[left.length - 1]--;
    parent[i] = p;
    depth[i] = depth[p] + 1;
    kids[kidStart[p] + filled[p]++] = i;
    if (nk(i) > 0) { stack.push(i); left.push(nk(i)); }
  }
  for (let i = N - 1; i >= 0; i--) {
    size[i] += D.c[i] & 1;
    span[i] += 1;
    if (i > 0) { size[parent[i]] += size[i]; span[parent[i]] += span[i]; }
  }
  const winAt = new Map();  // secret (code index) -> the node whose guess wins it
  for (let i = 0; i < N; i++) if (D.c[i] & 1) winAt.set(D.g[i], i);

  // ------------------------------------------------------------ codes and scores
  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  };
  function colours(code) {
    const out = new Array(D.n);
    for (let p = D.n - 1; p >= 0; p--) { out[p] = (code % D.k) + 1; code = Math.floor(code / D.k); }
    return out;
  }
  function codeText(code) {
    if (D.codes) return D.codes[code];
    return colours(code).join(D.k <= 9 ? "" : " ");
  }
  function pegs(code, small) {
    const b = el("span", small ? "board small" : "board");
    if (D.codes) return b;  // a custom game: no pegs
    for (const c of colours(code)) {
      const p = el("span", "peg");
      p.style.background = D.palette[c - 1];
      p.title = String(c);
      b.appendChild(p);
    }
    return b;
  }
  function codeWithPegs(code, small) {
    const s = el("span", "codepegs");
    s.appendChild(el("span", "code", codeText(code)));
    if (!D.codes) { s.appendChild(document.createTextNode(" ")); s.appendChild(pegs(code, small)); }
    return s;
  }
  function keys(slot) {
    const k = el("span", "keys");
    if (!D.keys) return k;
    const [b, w] = D.keys[slot];
    for (let i = 0; i < D.n; i++) k.appendChild(el("span", i < b ? "key b" : i < b + w ? "key w" : "key"));
    k.title = D.slots[slot];
    return k;
  }
  const plural = (n, word) => `${n.toLocaleString("en")} ${word}${n === 1 ? "" : (word.endsWith("ss") ? "es" : "s")}`;

  // ------------------------------------------------------------ drawing one node
  const $ = (id) => document.getElementById(id);
  let current = -1;

  function pathTo(i) {
    const path = [];
    for (let j = i; j >= 0; j = parent[j]) path.push(j);
    return path.reverse();
  }

  function drawCrumbs(i) {
    const nav = $("crumbs");
    nav.replaceChildren();
    const path = pathTo(i);
    path.forEach((j, at) => {
      if (at > 0) {
        nav.appendChild(el("span", "sep", "\u203a"));
        nav.appendChild(keys(D.s[j]));
        nav.appendChild(el("span", "sep", D.slots[D.s[j]]));
        nav.appendChild(el("span", "sep", "\u203a"));
      }
      const b = el("button", "crumb");
      b.type = "button";
      b.dataset.node = String(j);
      b.appendChild(el("span", "code", codeText(D.g[j])));
      if (j === i) b.setAttribute("aria-current", "step");
      b.addEventListener("click", () => go(j));
      nav.appendChild(b);
    });
  }

  function drawCurrent(i) {
    const box = $("current");
    box.replaceChildren();
    box.dataset.node = String(i);
    box.dataset.guess = codeText(D.g[i]);
    box.appendChild(el("span", "", `Guess ${depth[i]}:`));
    box.appendChild(codeWithPegs(D.g[i], false));
    if (size[i] === 1 && nk(i) === 0) {
      box.appendChild(el("span", "won", `This is the secret: found in ${plural(depth[i], "guess")}.`));
    } else {
      box.appendChild(el("span", "left", `${plural(size[i], "secret")} still possible` +
        ((D.c[i] & 1) ? ", this guess among them." : "; this guess is not one of them.")));
    }
  }

  function drawAnswers(i) {
    const box = $("answers");
    box.replaceChildren();
    for (let q = kidStart[i]; q < kidStart[i + 1]; q++) {
      const j = kids[q];
      const b = el("button", "answer");
      b.type = "button";
      b.dataset.score = D.slots[D.s[j]];
      b.dataset.node = String(j);
      b.appendChild(keys(D.s[j]));
      b.appendChild(el("span", "score", D.slots[D.s[j]]));
      const next = el("span", "next");
      const line = el("span", "");
      line.appendChild(document.createTextNode("then "));
      line.appendChild(codeWithPegs(D.g[j], true));
      next.appendChild(line);
      next.appendChild(el("span", "n", size[j] === 1 ? "the secret" : `${size[j].toLocaleString("en")} left`));
      b.appendChild(next);
      b.addEventListener("click", () => go(j));
      box.appendChild(b);
    }
    if (D.c[i] & 1) {
      const b = el("div", "answer win");
      b.dataset.score = D.slots[D.win];
      b.appendChild(keys(D.win));
      b.appendChild(el("span", "score", D.slots[D.win]));
      b.appendChild(el("span", "n", `solved in ${plural(depth[i], "guess")}`));
      box.appendChild(b);
    }
    $("answers-title").textContent = nk(i) ? "Answers: pick the one you got" : "Answer";
  }

  function drawCandidates(i) {
    const box = $("candidates");
    box.replaceChildren();
    if (size[i] > D.list || size[i] < 2) return;
    box.appendChild(el("span", "", "Possible secrets: "));
    const secrets = [];
    for (let j = i; j < i + span[i]; j++) if (D.c[j] & 1) secrets.push(D.g[j]);
    secrets.sort((a, b) => a - b);
    for (const code of secrets) box.appendChild(el("span", "code", codeText(code)));
  }

  function drawDistribution(i) {
    const here = new Map();
    for (let j = i; j < i + span[i]; j++) if (D.c[j] & 1) here.set(depth[j], (here.get(depth[j]) || 0) + 1);
    const table = $("dist-table");
    table.replaceChildren();
    const head = el("tr");
    head.appendChild(el("th", "", "guesses"));
    const all = el("th", "legend-all", "all");
    head.appendChild(all);
    head.appendChild(el("th", "legend-here", "here"));
    head.appendChild(el("th", ""));
    table.appendChild(head);
    const top = Math.max(...Object.values(D.dist));
    const topHere = Math.max(1, ...here.values());  // the two series, each on its own scale
    for (const [d, count] of Object.entries(D.dist)) {
      const tr = el("tr");
      tr.dataset.guesses = d;
      tr.appendChild(el("td", "", d));
      tr.appendChild(el("td", "all", count.toLocaleString("en")));
      const h = here.get(Number(d)) || 0;
      tr.appendChild(el("td", "here", h ? h.toLocaleString("en") : ""));
      const bar = el("td", "bar");
      const b = el("div", "b");
      b.style.width = `${(100 * count) / top}%`;
      const hb = el("div", "h");
      hb.style.width = `${(100 * h) / topHere}%`;
      bar.appendChild(b);
      bar.appendChild(hb);
      tr.appendChild(bar);
      table.appendChild(tr);
    }
  }

  function draw(i) {
    current = i;
    drawCrumbs(i);
    drawCurrent(i);
    drawAnswers(i);
    drawCandidates(i);
    drawDistribution(i);
  }

  function go(i) {
    if (String(i) !== location.hash.slice(1)) location.hash = String(i);
    else draw(i);
  }
  window.addEventListener("hashchange", () => {
    const i = Number(location.hash.slice(1) || "0");
    if (Number.isInteger(i) && i >= 0 && i < N && i !== current) draw(i);
  });

  // ------------------------------------------------------------ finding a secret
  function parseSecret(text) {
    const s = text.trim();
    if (!s) throw new Error("type a secret first");
    if (D.codes) {
      const norm = s.replace(/\s+/g, " ");
      const k = D.codeIndex[norm];
      if (k === undefined) throw new Error(`${s} is not a code of this game`);
      return k;
    }
    let parts = s.split(/[\s,;-]+/).filter((p) => p);
    if (parts.length === 1 && parts[0].length === D.n && D.n > 1) parts = parts[0].split("");
    if (!parts.every((p) => /^\d+$/.test(p))) throw new Error(`${s} is not a code: use colours 1..${D.k}`);
    if (parts.length === 1 && D.k <= 9) throw new Error(`${s} has ${s.length} digit${s.length === 1 ? "" : "s"}, a code has ${D.n}`);
    if (parts.length !== D.n) throw new Error(`a code has ${D.n} colours, got ${parts.length}`);
    let code = 0;
    for (const p of parts) {
      const c = Number(p);
      if (c < 1 || c > D.k) throw new Error(`colours are 1..${D.k}, got ${c}`);
      code = code * D.k + c - 1;
    }
    return code;
  }

  let timer = null;
  function find(text) {
    const msg = $("find-message"), steps = $("steps");
    if (timer) { clearTimeout(timer); timer = null; }
    steps.replaceChildren();
    delete steps.dataset.done;
    msg.className = "";
    let code;
    try { code = parseSecret(text); } catch (e) {
      msg.textContent = e.message;
      msg.className = "error";
      return;
    }
    const target = winAt.get(code);
    if (target === undefined) {
      msg.textContent = `${codeText(code)} cannot be the secret in this game`;
      msg.className = "error";
      return;
    }
    const path = pathTo(target);
    msg.textContent = `Playing against ${codeText(code)}\u2026`;
    let at = 0;
    const step = () => {
      const j = path[at];
      const li = el("li");
      li.dataset.guess = codeText(D.g[j]);
      li.appendChild(codeWithPegs(D.g[j], true));
      li.appendChild(el("span", "arrow", "\u2192"));
      const slot = at + 1 < path.length ? D.s[path[at + 1]] : D.win;
      li.appendChild(keys(slot));
      li.appendChild(document.createTextNode(` ${D.slots[slot]}`));
      li.dataset.score = D.slots[slot];
      li.dataset.left = String(at + 1 < path.length ? size[path[at + 1]] : 1);
      if (at + 1 < path.length) li.appendChild(el("span", "arrow", `${size[path[at + 1]].toLocaleString("en")} left`));
      steps.appendChild(li);
      go(j);
      at++;
      if (at < path.length) timer = setTimeout(step, D.delay);
      else {
        timer = null;
        msg.textContent = `Found ${codeText(code)} in ${plural(path.length, "guess")}.`;
        steps.dataset.done = String(path.length);
      }
    };
    step();
  }
  $("find-form").addEventListener("submit", (e) => { e.preventDefault(); find($("secret").value); });

  // ------------------------------------------------------------ start
  const start = Number(location.hash.slice(1) || "0");
  draw(Number.isInteger(start) && start >= 0 && start < N ? start : 0);
  document.body.dataset.nodes = String(N);
  document.body.dataset.loadMs = (performance.now() - t0).toFixed(1);
  document.body.dataset.ready = "1";
})();
