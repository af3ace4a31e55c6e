// Renders an evaluation report (vakra eval --html) in headless Chromium, takes a screenshot and
// prints what the page shows, as JSON.
//
// usage: node report_check.mjs REPORT_HTML SCREENSHOT_PNG
// Output: {"title", "leaderboard", "sections": [ids], "bars": [{"label", "width"}],
//          "tables", "screenshotBytes", "consoleErrors"}
import { launch } from "./launch.mjs";
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [report, screenshot] = process.argv.slice(2);
if (!report || !screenshot) {
  console.error("usage: node report_check.mjs REPORT_HTML SCREENSHOT_PNG");
  process.exit(2);
}
const { context, close } = await launch({ width: 1200, height: 900 });
const consoleErrors = [];
try {
  const page = context.pages()[0] || (await context.newPage());
  page.on("console", (m) => m.type() === "error" && consoleErrors.push(m.text()));
  page.on("pageerror", (e) => consoleErrors.push(String(e)));
  await page.goto(pathToFileURL(resolve(report)).href);
  const shown = await page.evaluate(() => ({
    title: document.title,
    leaderboard: document.querySelector("#leaderboard")?.textContent ?? null,
    sections: [...document.querySelectorAll("section")].map((s) => s.id),
    bars: [...document.querySelectorAll("svg.chart")].flatMap((svg) =>
      [...svg.querySelectorAll("rect.bar")].map((bar) => ({
        label: bar.previousElementSibling?.previousElementSibling?.textContent ?? "",
        width: bar.getBoundingClientRect().width,
      })),
    ),
    tables: document.querySelectorAll("table").length,
  }));
  await page.screenshot({ path: screenshot, fullPage: true });
  console.log(JSON.stringify({ ...shown, screenshotBytes: statSync(screenshot).size, consoleErrors }));
} finally {
  await close();
}
