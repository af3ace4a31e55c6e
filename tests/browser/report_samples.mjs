// Uses the sample explorer of an evaluation report (vakra eval --html) in headless Chromium as a
// researcher would: counts what each filter shows, searches for one sample, opens its story,
// takes a screenshot, and prints what the page showed, as JSON.
//
// usage: node report_samples.mjs REPORT_HTML SCREENSHOT_PNG UUID
// Output: {"initial": {"count", "rows"}, "byCapability": {"<n>": rows}, "byDomain": {…},
//          "byStage": {…}, "failing": [uuid], "search": [uuid], "story": {"verdict",
//          "decidedBy", "errorStage", "query", "predAnswer", "gtAnswer", "judges": [{"name",
//          "score", "explanation"}], "calls": [{"gtCall", "gtArgs", "gtResponse", "gtFound",
//          "predCall", "predArgs", "predResponse", "predDiffers"}], "problems"},
//          "storyVisible", "consoleErrors", "requests": [URLs other than the file's]}
import { launch } from "./launch.mjs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [report, screenshot, uuid] = process.argv.slice(2);
if (!report || !screenshot || !uuid) {
  console.error("usage: node report_samples.mjs REPORT_HTML SCREENSHOT_PNG UUID");
  process.exit(2);
}

const { context, close } = await launch({ width: 1300, height: 1000 });
const consoleErrors = [];
const requests = [];
try {
  const page = context.pages()[0] || (await context.newPage());
  page.on("request", (r) => r.url().startsWith("file:") || requests.push(r.url()));
  page.on("console", (m) => m.type() === "error" && consoleErrors.push(m.text()));
  page.on("pageerror", (e) => consoleErrors.push(String(e)));
  await page.goto(pathToFileURL(resolve(report)).href);
  const rows = () => page.$$eval("#sample-rows tr.sample-row", (trs) => trs.map((tr) => tr.dataset.uuid));
  const initial = { count: await page.textContent("#sample-count"), rows: (await rows()).length };
  const each = async (select) => {
    const values = await page.$$eval(`${select} option`, (os) => os.map((o) => o.value).filter(Boolean));
    const out = {};
    for (const value of values) {
      await page.selectOption(select, value);
      out[value] = (await rows()).length;
    }
    await page.selectOption(select, "");
    return out;
  };
  const byCapability = await each("#f-capability");
  const byDomain = await each("#f-domain");
  const byStage = await each("#f-stage");
  await page.selectOption("#f-verdict", "fail");
  const failing = await rows();
  await page.fill("#f-search", uuid);
  await page.waitForFunction(
    (n) => document.querySelectorAll("#sample-rows tr.sample-row").length < n,
    failing.length,
    { timeout: 5000 },
  ).catch(() => {});
  const search = await rows();
  await page.click(`#sample-rows tr.sample-row[data-uuid="${uuid}"]`);
  const body = page.locator(".story-body");
  const storyVisible = await body.isVisible();
  const story = await body.evaluate((el) => {
    const text = (sel, root = el) => root.querySelector(sel)?.textContent ?? null;
    return {
      verdict: text("[data-field=verdict]"),
      decidedBy: text("[data-field=decided-by]"),
      errorStage: text("[data-field=error-stage]"),
      query: text("[data-field=query]"),
      predAnswer: text("[data-field=pred-answer]"),
      gtAnswer: text("[data-field=gt-answer]"),
      judges: [...el.querySelectorAll("table.judges tbody tr")].map((tr) => ({
        name: tr.dataset.judge,
        score: Number(tr.cells[1].textContent),
        explanation: tr.cells[2].textContent,
      })),
      calls: [...el.querySelectorAll("table.calls tbody tr")].map((tr) => ({
        gtCall: text(".gt-call code", tr),
        gtArgs: text(".gt-call pre", tr),
        gtResponse: text(".gt-response pre", tr),
        gtFound: tr.querySelector(".gt-response").classList.contains("found"),
        predCall: text(".pred-call code", tr),
        predArgs: text(".pred-call pre", tr),
        predResponse: text(".pred-response pre", tr),
        predDiffers: tr.querySelector(".pred-call").classList.contains("differs"),
      })),
      problems: [...el.querySelectorAll(".problems li")].map((li) => li.textContent),
    };
  });
  await page.locator("tr.story").screenshot({ path: screenshot });
  console.log(
    JSON.stringify({ initial, byCapability, byDomain, byStage, failing, search, story, storyVisible, consoleErrors, requests }),
  );
} finally {
  await close();
}
