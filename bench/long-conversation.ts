import { chromium, type Page } from "@playwright/test";
import { runFigureIfMain, type Measure } from "./support/figure";
import { writeLongConversation } from "./support/long-conversation-fixture";
import { BENCH_TOKEN, freePort, startBenchServer } from "./support/server-process";
import { formatMs, median } from "./support/stats";
import { withTempDirectory } from "./support/temp-directory";

/**
 * Figure 10 (issue 15, part 3): a 10,000-item conversation in Chromium. The fixture writer puts
 * one conversation of 10,000 messages in a fresh home, the real server (production build:
 * `npm run build` first) indexes it at start, and headless Chromium opens its page OPENS times
 * after one warm-up. Open time is the page's own clock from navigation start to the first frame
 * with the last message inside the viewport. Then the reader scrolls up SCREENS screens, a
 * step each frame (older pages load on the way); the longest frame and the frames dropped
 * (each gap counted in 60 Hz frames past the first) are measured with requestAnimationFrame.
 */
const ITEMS = 10_000;
const OPENS = 5;
const SCREENS = 20;
const STEPS_PER_SCREEN = 8;
const OPEN_GOAL_MS = 1000;
const FRAME_GOAL_MS = 50;
const LAST = `Reply ${ITEMS - 1}:`;

interface Open {
  visibleMs: number;
  /** The navigation's own marks: first byte, last byte, first contentful paint. */
  firstByteMs: number;
  lastByteMs: number;
  paintMs: number;
}

/** Navigation start → the first animation frame in which the last message lies inside the history's box. */
async function open(page: Page, url: string): Promise<Open> {
  await page.goto(url, { waitUntil: "commit" });
  const handle = await page.waitForFunction(
    (text) => {
      const history = document.querySelector('[role="log"][aria-label="Conversation history"]');
      const last = [...document.querySelectorAll("[data-item-kind]")].find((element) => element.textContent?.includes(text));
      if (!history || !last) return false;
      const box = last.getBoundingClientRect();
      const view = history.getBoundingClientRect();
      return box.height > 0 && box.top >= view.top - 1 && box.bottom <= view.bottom + 1 ? performance.now() : false;
    },
    LAST,
    { polling: "raf", timeout: 30_000 },
  );
  const visibleMs = (await handle.jsonValue()) as number;
  const marks = await page.evaluate(() => {
    const [navigation] = performance.getEntriesByType("navigation") as PerformanceNavigationTiming[];
    const paint = performance.getEntriesByName("first-contentful-paint")[0];
    return { firstByteMs: navigation.responseStart, lastByteMs: navigation.responseEnd, paintMs: paint?.startTime ?? Number.NaN };
  });
  return { visibleMs, ...marks };
}

interface Scroll {
  frames: number;
  longestMs: number;
  dropped: number;
  over50: number;
  rowsAtMost: number;
  distanceScreens: number;
}

/** Scrolls the history up `screens` screens, one step per frame, timing every frame. */
async function scrollUp(page: Page, screens: number): Promise<Scroll> {
  // tsx compiles with esbuild's keepNames: the functions handed to the page call its __name helper.
  await page.evaluate("globalThis.__name = (target) => target");
  return page.evaluate(
    ({ screens, steps }) =>
      new Promise<Scroll>((resolve) => {
        const history = document.querySelector<HTMLElement>('[role="log"][aria-label="Conversation history"]')!;
        const step = history.clientHeight / steps;
        const gaps: number[] = [];
        let travelled = 0;
        let rowsAtMost = 0;
        let last = 0;
        const frame = (now: number) => {
          if (last > 0) gaps.push(now - last);
          last = now;
          rowsAtMost = Math.max(rowsAtMost, history.querySelectorAll("[data-index]").length);
          const before = history.scrollTop;
          history.scrollTop = before - step;
          travelled += Math.max(0, before - history.scrollTop);
          // At the very top with nothing more to load (or a page still on its way): wait for frames to tell.
          if (gaps.length < screens * steps * 4 && travelled < screens * history.clientHeight) requestAnimationFrame(frame);
          else {
            const budget = 1000 / 60;
            resolve({
              frames: gaps.length,
              longestMs: Math.max(...gaps),
              dropped: gaps.reduce((sum, gap) => sum + Math.max(0, Math.round(gap / budget) - 1), 0),
              over50: gaps.filter((gap) => gap > 50).length,
              rowsAtMost,
              distanceScreens: travelled / history.clientHeight,
            });
          }
        };
        requestAnimationFrame(frame);
      }),
    { screens, steps: STEPS_PER_SCREEN },
  );
}

const measure: Measure = () =>
  withTempDirectory("atrium-bench-long-", async (home) => {
    const { conversationId } = writeLongConversation(home, ITEMS);
    const server = await startBenchServer(home, await freePort());
    const browser = await chromium.launch({
      executablePath: process.env.BENCH_CHROMIUM ?? "/usr/bin/chromium",
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
    });
    try {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      await page.goto(`${server.url}/signin?token=${BENCH_TOKEN}`);
      await page.waitForURL((url) => !url.pathname.startsWith("/signin"));
      const url = `${server.url}/c/${conversationId}`;
      const warmUp = (await open(page, url)).visibleMs;
      const samples: Open[] = [];
      for (let index = 0; index < OPENS; index += 1) samples.push(await open(page, url));
      const opens = samples.map((sample) => sample.visibleMs);
      await page.locator('[role="log"][data-live="true"]').waitFor();
      const rowsOpen = await page.locator("[data-index]").count();
      const scroll = await scrollUp(page, SCREENS);
      const openMedian = median(opens);
      const mark = (key: keyof Open) => formatMs(median(samples.map((sample) => sample[key])));
      return {
        figure: 10,
        title: `a ${ITEMS.toLocaleString("en")}-item conversation in Chromium`,
        checks: [
          { metric: "open: navigation → last message visible (median)", value: formatMs(openMedian), goal: `≤ ${OPEN_GOAL_MS} ms`, pass: openMedian <= OPEN_GOAL_MS },
          {
            metric: `scroll up ${SCREENS} screens: longest frame`,
            value: formatMs(scroll.longestMs),
            goal: `≤ ${FRAME_GOAL_MS} ms`,
            pass: scroll.longestMs <= FRAME_GOAL_MS,
          },
        ],
        details: [
          `opens ${opens.map((value) => formatMs(value)).join(", ")} (warm-up ${formatMs(warmUp)}); ${rowsOpen} rows in the DOM once live`,
          `medians: first byte ${mark("firstByteMs")}, last byte ${mark("lastByteMs")}, first contentful paint ${mark("paintMs")}`,
          `scroll: ${scroll.frames} frames over ${scroll.distanceScreens.toFixed(1)} screens, ${scroll.dropped} dropped (60 Hz), ${scroll.over50} over ${FRAME_GOAL_MS} ms, at most ${scroll.rowsAtMost} rows in the DOM`,
        ],
        evidence: [],
      };
    } finally {
      await browser.close();
      await server.stop();
    }
  });

runFigureIfMain(import.meta.url, measure);
