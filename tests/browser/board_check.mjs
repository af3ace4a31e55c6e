// Renders a board of runs (vakra eval board --html) in headless Chromium and prints what the page
// shows, as JSON: the runs' rows, the plot's points (centre on the page, and whether the point
// is what the page paints there), its interval bars, the domain rows and console errors.
//
// usage: node board_check.mjs BOARD_HTML SCREENSHOT_PNG
import { launch } from "./launch.mjs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [board, screenshot] = process.argv.slice(2);
if (!board || !screenshot) {
  console.error("usage: node board_check.mjs BOARD_HTML SCREENSHOT_PNG");
  process.exit(2);
}
const { context, close } = await launch({ width: 1200, height: 900 });
try {
  const page = await context.newPage();
  const consoleErrors = [];
  page.on("console", (m) => m.type() === "error" && consoleErrors.push(m.text()));
  page.on("pageerror", (e) => consoleErrors.push(String(e)));
  await page.goto(pathToFileURL(resolve(board)).href);
  const shown = await page.evaluate(() => {
    const plot = document.querySelector("svg#cost-score");
    return {
      title: document.title,
      headers: [...document.querySelectorAll("#runs thead th")].map((th) => th.textContent),
      runs: [...document.querySelectorAll("#runs tbody tr")].map((tr) =>
        [...tr.cells].map((td) => td.textContent),
      ),
      plot: plot && { width: plot.getBoundingClientRect().width, height: plot.getBoundingClientRect().height },
      points: [...document.querySelectorAll("svg#cost-score circle.run")].map((c) => {
        const box = c.getBoundingClientRect();
        const x = box.left + box.width / 2;
        const y = box.top + box.height / 2;
        return {
          run: c.dataset.run,
          x,
          y,
          width: box.width,
          painted: document.elementFromPoint(x, y) === c,
          fill: getComputedStyle(c).fill,
        };
      }),
      intervals: [...document.querySelectorAll("svg#cost-score line.ci")].map((l) => l.getBoundingClientRect().height),
      domainRows: [...document.querySelectorAll("#domains tbody tr")].map((tr) =>
        [...tr.cells].map((td) => td.textContent),
      ),
    };
  });
  await page.screenshot({ path: screenshot, fullPage: true });
  console.log(JSON.stringify({ ...shown, consoleErrors }));
} finally {
  await close();
}
