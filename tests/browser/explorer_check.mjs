// Drives the tools explorer in headless Chromium and prints what the page showed, as JSON.
//
// usage: node explorer_check.mjs BASE_URL PLAN_JSON SCREENSHOT_DIR
//
// PLAN_JSON: [{"capability": 2, "domain": "library", "screenshot": "name.png",
//              "calls": [{"tool": "...", "fields": {"arg": "value typed or option chosen"}}]}]
// Output: {"sessions": [{"sessionId", "toolsAtStart", "calls": [{"tool", "arguments", "text",
//          "isError", "flag", "toolsAfter", "description", "schema"}], "screenshot"}],
//          "consoleErrors": [...]}
// ("description" and "schema" are the tool's description and input-schema panes as shown.)
import { launch } from "./launch.mjs";
import { join } from "node:path";

const [base, planText, screenshotDir] = process.argv.slice(2);
if (!base || !planText || !screenshotDir) {
  console.error("usage: node explorer_check.mjs BASE_URL PLAN_JSON SCREENSHOT_DIR");
  process.exit(2);
}
const plan = JSON.parse(planText);
const { context, close } = await launch({ width: 1400, height: 1000 });
const consoleErrors = [];
const out = { sessions: [], consoleErrors };
try {
  const page = context.pages()[0] || (await context.newPage());
  page.setDefaultTimeout(20000);
  page.on("console", (m) => m.type() === "error" && consoleErrors.push(m.text()));
  page.on("pageerror", (e) => consoleErrors.push(String(e)));
  await page.goto(`${base}/explorer/`);
  await page.waitForSelector("body[data-state=idle]");
  const idle = () => page.waitForSelector("body[data-state=idle]");
  const toolNames = () =>
    page.$$eval("#tools button", (buttons) => buttons.map((b) => b.dataset.tool));
  for (const step of plan) {
    await page.selectOption("#capability", String(step.capability));
    await page.selectOption("#domain", step.domain);
    await page.click("#open-session");
    await idle();
    await page.waitForSelector("#tools button");
    const session = {
      capability: step.capability,
      domain: step.domain,
      sessionId: await page.textContent("#session-id"),
      toolsAtStart: await toolNames(),
      calls: [],
    };
    for (const call of step.calls) {
      await page.click(`#tools button[data-tool="${call.tool}"]`);
      await page.waitForSelector(`#tool-name:text-is("${call.tool}")`);
      const description = await page.textContent("#tool-description");
      const schema = JSON.parse(await page.textContent("#tool-schema"));
      for (const [name, value] of Object.entries(call.fields || {})) {
        const input = page.locator(`[name="arg-${name}"]`);
        if ((await input.evaluate((e) => e.tagName)) === "SELECT") {
          await input.selectOption({ label: String(value) });
        } else {
          await input.fill(String(value));
        }
      }
      const argumentsSent = JSON.parse(await page.textContent("#args-preview"));
      const before = await page.$$eval("#history li", (items) => items.length);
      await page.click("#call");
      await page.waitForFunction(
        (n) => document.querySelectorAll("#history li").length > n && document.body.dataset.state === "idle",
        before,
      );
      session.calls.push({
        tool: call.tool,
        arguments: argumentsSent,
        text: await page.textContent("#result-text"),
        isError: (await page.getAttribute("#result-flag", "data-is-error")) === "true",
        flag: await page.textContent("#result-flag"),
        status: await page.textContent("#status"),
        toolsAfter: await toolNames(),
        description,
        schema,
      });
    }
    if (step.screenshot) {
      session.screenshot = join(screenshotDir, step.screenshot);
      await page.screenshot({ path: session.screenshot, fullPage: true });
    }
    out.sessions.push(session);
  }
} finally {
  await close();
}
console.log(JSON.stringify(out));
