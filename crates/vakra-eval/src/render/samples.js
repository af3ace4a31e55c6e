// The sample explorer of `vakra eval --html` (render/samples.rs embeds it): filters the
// embedded samples, renders them a page of rows at a time, and a sample's story when its row
// is opened. No network, no libraries.
(() => {
  "use strict";
  const PAGE = 100;
  const $ = (id) => document.getElementById(id);
  const data = JSON.parse($("sample-data").textContent);
  const esc = (text) =>
    String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  const short = (text, n) => (text.length > n ? text.slice(0, n) + "…" : text);
  const verdict = (s) => (s.score === 1 ? "pass" : "fail");
  const decided = (s) => (s.decided_by ? `${s.decided_by.judge} (${s.decided_by.method})` : "");
  // JSON with sorted keys, so that equal arguments compare equal.
  const canonical = (v) =>
    Array.isArray(v)
      ? `[${v.map(canonical).join(",")}]`
      : v && typeof v === "object"
        ? `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(",")}}`
        : JSON.stringify(v);
  const shown = (v) => (v === null || v === undefined ? "(none)" : typeof v === "string" ? v : JSON.stringify(v, null, 2));

  function fill(select, values) {
    const distinct = [...new Set(values)].filter((v) => v !== "").sort();
    select.insertAdjacentHTML("beforeend", distinct.map((v) => `<option>${esc(v)}</option>`).join(""));
  }
  fill($("f-capability"), data.map((s) => s.capability));
  fill($("f-domain"), data.map((s) => s.domain));
  fill($("f-stage"), data.map((s) => s.error_stage || ""));

  let haystacks = null; // built at the first search
  const haystack = (s) =>
    [
      s.uuid,
      s.domain,
      s.query,
      s.pred_answer,
      s.gt_answer,
      s.error_stage || "",
      ...(s.calls ? [...s.calls.prediction, ...s.calls.ground_truth].map((c) => c.name) : []),
    ]
      .join("\n")
      .toLowerCase();

  let matching = [];
  let limit = PAGE;
  function apply() {
    const capability = $("f-capability").value;
    const domain = $("f-domain").value;
    const wanted = $("f-verdict").value;
    const stage = $("f-stage").value;
    const search = $("f-search").value.trim().toLowerCase();
    if (search && !haystacks) haystacks = data.map(haystack);
    matching = [];
    for (let i = 0; i < data.length; i++) {
      const s = data[i];
      if (capability && s.capability !== capability) continue;
      if (domain && s.domain !== domain) continue;
      if (wanted && verdict(s) !== wanted) continue;
      if (stage && s.error_stage !== stage) continue;
      if (search && !haystacks[i].includes(search)) continue;
      matching.push(i);
    }
    limit = PAGE;
    render();
  }

  function row(i) {
    const s = data[i];
    return (
      `<tr class="sample-row ${verdict(s)}" data-index="${i}" data-uuid="${esc(s.uuid)}" tabindex="0">` +
      `<td>${esc(s.capability)}</td><td>${esc(s.domain)}</td><td><code>${esc(s.uuid)}</code></td>` +
      `<td class=verdict>${verdict(s)}</td><td>${esc(s.error_stage || "")}</td><td>${esc(decided(s))}</td>` +
      `<td>${esc(short(s.pred_answer, 80))}</td><td>${esc(short(s.gt_answer, 80))}</td></tr>`
    );
  }

  function render() {
    $("sample-rows").innerHTML = matching.slice(0, limit).map(row).join("");
    const more = matching.length > limit;
    $("sample-count").textContent =
      `${matching.length} of ${data.length} samples` + (more ? `; the first ${limit} shown` : "");
    $("sample-more").hidden = !more;
  }

  function judges(s) {
    const rows = ["policy", "exact_match", "answer", "groundedness"]
      .filter((name) => s.judges[name])
      .map((name) => {
        const v = s.judges[name];
        return `<tr data-judge="${name}" class="${v.score === 1 ? "pass" : "fail"}"><td>${name}</td><td class=num>${v.score}</td><td><pre>${esc(v.explanation)}</pre></td></tr>`;
      });
    return rows.length
      ? `<table class=judges><thead><tr><th>judge</th><th>score</th><th>explanation</th></tr></thead><tbody>${rows.join("")}</tbody></table>`
      : "<p>No judge ran.</p>";
  }

  function calls(s) {
    if (!s.calls) return "<p>No calls were replayed.</p>";
    const gt = s.calls.ground_truth;
    const pred = s.calls.prediction;
    const responses = s.responses || { ground_truth: [], prediction: [] };
    const predicted = new Set(responses.prediction.map(canonical));
    const n = Math.max(gt.length, pred.length, responses.ground_truth.length, responses.prediction.length);
    const call = (c) => (c ? `<code class=tool>${esc(c.name)}</code><pre class=args>${esc(JSON.stringify(c.arguments, null, 2))}</pre>` : "");
    const rows = [];
    for (let i = 0; i < n; i++) {
      const [g, p] = [gt[i], pred[i]];
      const differs = !g || !p || g.name !== p.name || canonical(g.arguments) !== canonical(p.arguments);
      const hasGt = i < responses.ground_truth.length;
      const found = hasGt && predicted.has(canonical(responses.ground_truth[i]));
      const mark = hasGt ? (found ? "✓ among the prediction's responses" : "✗ not among the prediction's responses") : "";
      rows.push(
        `<tr data-position="${i}"><td class=num>${i + 1}</td>` +
          `<td class=gt-call>${call(g)}</td>` +
          `<td class="gt-response ${hasGt ? (found ? "found" : "missing") : ""}">${hasGt ? `<pre>${esc(shown(responses.ground_truth[i]))}</pre><span class=mark>${mark}</span>` : ""}</td>` +
          `<td class="pred-call ${differs ? "differs" : "same"}">${p ? `${differs ? "<span class=mark>≠ </span>" : ""}${call(p)}` : ""}</td>` +
          `<td class=pred-response>${i < responses.prediction.length ? `<pre>${esc(shown(responses.prediction[i]))}</pre>` : ""}</td></tr>`,
      );
    }
    return (
      `<table class=calls><thead><tr><th>#</th><th>ground-truth call</th><th>its response</th><th>predicted call</th><th>its response</th></tr></thead>` +
      `<tbody>${rows.join("")}</tbody></table>` +
      (s.responses ? "" : "<p class=meta>Responses are in the report with --include-responses.</p>")
    );
  }

  function story(s) {
    const problems = s.problems.length
      ? `<h4>Problems</h4><ul class=problems>${s.problems.map((p) => `<li>${esc(p)}</li>`).join("")}</ul>`
      : "";
    return (
      `<div class=story-body data-uuid="${esc(s.uuid)}">` +
      `<p><b class="verdict-word ${verdict(s)}" data-field=verdict>${verdict(s)}</b> · decided by <span data-field=decided-by>${esc(decided(s) || "no judge")}</span>` +
      ` · error category <span data-field=error-stage>${esc(s.error_stage || "none")}</span>` +
      ` · capability ${esc(s.capability)}, ${esc(s.domain)}, ${s.hops} hops, ${s.pred_steps} predicted calls</p>` +
      `<p class=question data-field=query>${esc(s.query)}</p>` +
      `<div class=answers><div><h4>Answer</h4><pre data-field=pred-answer>${esc(s.pred_answer)}</pre></div>` +
      `<div><h4>Expected answer</h4><pre data-field=gt-answer>${esc(s.gt_answer)}</pre></div></div>` +
      `<h4>Judges</h4>${judges(s)}<h4>Calls of the scored turn</h4>${calls(s)}${problems}</div>`
    );
  }

  function toggle(tr) {
    const next = tr.nextElementSibling;
    if (next && next.classList.contains("story")) {
      next.remove();
      tr.classList.remove("open");
      return;
    }
    tr.classList.add("open");
    tr.insertAdjacentHTML("afterend", `<tr class=story><td colspan=8>${story(data[Number(tr.dataset.index)])}</td></tr>`);
  }

  $("sample-rows").addEventListener("click", (e) => {
    const tr = e.target.closest("tr.sample-row");
    if (tr) toggle(tr);
  });
  $("sample-rows").addEventListener("keydown", (e) => {
    const tr = e.target.closest("tr.sample-row");
    if (tr && (e.key === "Enter" || e.key === " ")) {
      e.preventDefault();
      toggle(tr);
    }
  });
  $("sample-more").addEventListener("click", () => {
    limit += PAGE;
    render();
  });
  for (const id of ["f-capability", "f-domain", "f-verdict", "f-stage"]) $(id).addEventListener("change", apply);
  let timer;
  $("f-search").addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(apply, 120);
  });
  apply();
})();
