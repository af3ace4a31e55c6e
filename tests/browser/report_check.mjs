// Renders an evaluation report (vakra eval --html) in headless Chromium, takes a screenshot and
// prints what the page shows, as JSON, including what the screenshot's pixels hold.
//
// usage: node report_check.mjs REPORT_HTML SCREENSHOT_PNG
// Output: {"title", "leaderboard", "sections": [ids], "bars": [{"label", "width", "height"}],
//          "tables", "domainTables": [{"section", "rows": [domain]}], "barColour",
//          "picture": {"width", "height", "background", "nonBackgroundShare",
//                      "barColourPixels"}, "consoleErrors"}
import { launch } from "./launch.mjs";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { inflateSync } from "node:zlib";

const [report, screenshot] = process.argv.slice(2);
if (!report || !screenshot) {
  console.error("usage: node report_check.mjs REPORT_HTML SCREENSHOT_PNG");
  process.exit(2);
}

// Decodes an 8-bit, non-interlaced RGB or RGBA PNG (what Chromium writes) into RGB triples.
function decodePng(bytes) {
  const signature = [137, 80, 78, 71, 13, 10, 26, 10];
  if (!signature.every((b, i) => bytes[i] === b)) throw new Error("not a PNG");
  let offset = 8;
  let header;
  const data = [];
  while (offset < bytes.length) {
    const length = bytes.readUInt32BE(offset);
    const type = bytes.toString("latin1", offset + 4, offset + 8);
    const body = bytes.subarray(offset + 8, offset + 8 + length);
    if (type === "IHDR") {
      header = {
        width: body.readUInt32BE(0),
        height: body.readUInt32BE(4),
        depth: body[8],
        colour: body[9],
        interlace: body[12],
      };
    } else if (type === "IDAT") {
      data.push(body);
    } else if (type === "IEND") {
      break;
    }
    offset += 12 + length;
  }
  const { width, height, depth, colour, interlace } = header;
  const channels = { 2: 3, 6: 4 }[colour];
  if (depth !== 8 || !channels || interlace !== 0) {
    throw new Error(`unsupported PNG: depth ${depth}, colour type ${colour}, interlace ${interlace}`);
  }
  const raw = inflateSync(Buffer.concat(data));
  const stride = width * channels;
  const pixels = Buffer.alloc(width * height * 3);
  let previous = Buffer.alloc(stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = Buffer.from(raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1)));
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? line[i - channels] : 0;
      const b = previous[i];
      const c = i >= channels ? previous[i - channels] : 0;
      let add;
      switch (filter) {
        case 0: add = 0; break;
        case 1: add = a; break;
        case 2: add = b; break;
        case 3: add = (a + b) >> 1; break;
        case 4: {
          const p = a + b - c;
          const [pa, pb, pc] = [Math.abs(p - a), Math.abs(p - b), Math.abs(p - c)];
          add = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
          break;
        }
        default: throw new Error(`bad PNG filter ${filter} on row ${y}`);
      }
      line[i] = (line[i] + add) & 0xff;
    }
    for (let x = 0; x < width; x++) {
      line.copy(pixels, (y * width + x) * 3, x * channels, x * channels + 3);
    }
    previous = line;
  }
  return { width, height, pixels };
}

// "rgb(47, 122, 229)" → [47, 122, 229]
const rgb = (css) => css.match(/\d+/g).slice(0, 3).map(Number);

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
        height: bar.getBoundingClientRect().height,
      })),
    ),
    tables: document.querySelectorAll("table").length,
    domainTables: [...document.querySelectorAll("section")].flatMap((section) =>
      [...section.querySelectorAll("table")]
        .filter((t) => t.querySelector("thead th")?.textContent === "domain")
        .map((t) => ({
          section: section.id,
          rows: [...t.querySelectorAll("tbody tr")].map((r) => r.cells[0].textContent),
        })),
    ),
    barColour: getComputedStyle(document.querySelector("rect.bar")).fill,
    background: getComputedStyle(document.body).backgroundColor,
  }));
  await page.screenshot({ path: screenshot, fullPage: true });
  const { width, height, pixels } = decodePng(readFileSync(screenshot));
  // The page's background is the body's, or white when the body has none.
  const background = shown.background === "rgba(0, 0, 0, 0)" ? [255, 255, 255] : rgb(shown.background);
  const bar = rgb(shown.barColour);
  const near = (i, [r, g, b], tolerance) =>
    Math.abs(pixels[i] - r) <= tolerance &&
    Math.abs(pixels[i + 1] - g) <= tolerance &&
    Math.abs(pixels[i + 2] - b) <= tolerance;
  let nonBackground = 0;
  let barColourPixels = 0;
  for (let i = 0; i < pixels.length; i += 3) {
    if (!near(i, background, 8)) nonBackground++;
    if (near(i, bar, 2)) barColourPixels++;
  }
  const { background: _, ...page_ } = shown;
  console.log(
    JSON.stringify({
      ...page_,
      picture: {
        width,
        height,
        background,
        nonBackgroundShare: nonBackground / (width * height),
        barColourPixels,
      },
      consoleErrors,
    }),
  );
} finally {
  await close();
}
