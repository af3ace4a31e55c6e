// Times the sample explorer of a large evaluation report (vakra eval --html) in headless
// Chromium: loading the page (parse, embedded data, first rows), each filter, a search, opening
// a story and the next page of rows. Each action runs REPEATS times; medians are printed, in
// milliseconds, as JSON. Used by scripts/bench-eval.sh for docs/benchmarks.md.
//
// usage: node report_timing.mjs REPORT_HTML [REPEATS]
import { launch } from "./launch.mjs";
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [report, repeats = "5"] = process.argv.slice(2);
if (!report) {
  console.error("usage: node report_timing.mjs REPORT_HTML [REPEATS]");
  process.exit(2);
}
const n = Math.min(Math.max(Number(repeats) || 5, 1), 50);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const { context, close } = await launch({ width: 1300, height: 1000 });
try {
  const page = context.pages()[0] || (await context.newPage());
  const loads = [];
  for (let i = 0; i < n; i++) {
    await page.goto(pathToFileURL(resolve(report)).href, { waitUntil: "load" });
    loads.push(await page.evaluate(() => performance.getEntriesByType("navigation")[0].loadEventEnd));
  }
  const samples = await page.evaluate(() => JSON.parse(document.getElementById("sample-data").textContent).length);
  // One synchronous action in the page: its duration, rendering of the rows included.
  const timed = (action) =>
    page.evaluate((body) => {
      const run = new Function(body);
      const start = performance.now();
      run();
      document.body.offsetHeight; // layout
      return performance.now() - start;
    }, action);
  const select = (id, value) =>
    `const s = document.getElementById("${id}"); s.value = ${JSON.stringify(value)}; s.dispatchEvent(new Event("change"));`;
  const times = { verdict: [], capability: [], domain: [], search: [], story: [], more: [], all: [] };
  const domain = await page.$eval("#f-domain option:nth-child(2)", (o) => o.value);
  for (let i = 0; i < n; i++) {
    times.verdict.push(await timed(select("f-verdict", "fail")));
    times.capability.push(await timed(select("f-capability", "3")));
    times.domain.push(await timed(select("f-domain", domain)));
    times.all.push(
      await timed(
        ["f-verdict", "f-capability", "f-domain"].map((id) => `document.getElementById("${id}").value = "";`).join("") +
          select("f-stage", ""),
      ),
    );
    times.search.push(
      await timed(`document.getElementById("f-search").value = "weather"; ${select("f-verdict", "")}`),
    );
    await page.evaluate(() => {
      document.getElementById("f-search").value = "";
    });
    times.more.push(await timed(`document.getElementById("sample-more").click();`));
    times.story.push(await timed(`document.querySelector("#sample-rows tr.sample-row").click();`));
    await page.evaluate(() => document.querySelector("#sample-rows tr.sample-row").click()); // close it
  }
  const out = { samples, bytes: statSync(report).size, load: median(loads) };
  for (const [k, v] of Object.entries(times)) out[k] = Number(median(v).toFixed(1));
  out.load = Number(out.load.toFixed(1));
  console.log(JSON.stringify(out));
} finally {
  await close();
}
