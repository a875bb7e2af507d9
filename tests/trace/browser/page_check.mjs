// Loads recordings' pages (`trace view FILE --html OUT`) in Debian's headless Chromium, driven by
// playwright-core (no browser download), and prints what a person would see, as JSON, for
// tests/trace/test_view_page.py to judge: the console errors, the counts the page shows, the
// frames listed, the links to frames that lead nowhere, and the frames a search leaves shown.
// Usage: node page_check.mjs '[{"page": "/abs/page.html", "term": "word"}, …]' (one browser).
import { chromium } from "playwright-core";

const pages = JSON.parse(process.argv[2]);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium" });
const seen = [];
try {
  for (const { page: file, term } of pages) {
    const page = await browser.newPage();
    const errors = [];
    page.on("console", (message) => { if (message.type() === "error") errors.push(message.text()); });
    page.on("pageerror", (error) => errors.push(String(error)));
    page.on("request", (request) => { if (!request.url().startsWith("file:")) errors.push(`fetched ${request.url()}`); });
    await page.goto("file://" + file);
    const counts = await page.$$eval("[id^=count-]", (spans) =>
      Object.fromEntries(spans.map((s) => [s.id.slice(6), Number(s.textContent)])));
    const frames = await page.locator("#frames .frame").count();
    const broken = await page.$$eval("a.f", (links) =>
      links.filter((a) => !document.getElementById(a.getAttribute("href").slice(1))).length);
    const links = await page.locator("a.f").count();
    await page.fill("#search", term);
    const shown = await page.locator("#frames .frame:visible").count();
    const label = await page.textContent("#search-count");
    await page.fill("#search", "");
    const cleared = await page.locator("#frames .frame:visible").count();
    seen.push({ page: file, errors, counts, frames, links, broken, shown, label, cleared });
    await page.close();
  }
} finally {
  await browser.close();
}
console.log(JSON.stringify(seen));
