import fs from "node:fs";
import path from "node:path";
import { setImmediate as nextTick } from "node:timers/promises";
import { JsonlAppender } from "../lib/store/jsonl-appender";
import { runFigureIfMain, type Measure } from "./support/figure";
import { formatMs, formatNumber, formatRatio, median, percentile } from "./support/stats";
import { withTempDirectory } from "./support/temp-directory";

/**
 * Figure 1: durable append rate. JsonlAppender (group commit: one write + fdatasync per
 * tick's worth of lines) against a raw loop writing the same lines with writeSync +
 * fdatasyncSync per batch of the same size, in the same directory.
 */
const RECORDS = 20_000;
const BURST = 100;
/** The open loop needs room to pile bursts up, so it takes turns with the raw loop in larger slices. */
const OPEN_LOOP_SLICE = 1_000;
const ROUNDS = 3;
/** Group commit should never do worse than a raw loop flushing each burst; the issue sets no figure. */
const OPEN_LOOP_GOAL = 1.0;
/** The per-line fsync floor is only context: bounded by lines and by time. */
const SINGLE_LINE_RECORDS = 500;
const SINGLE_LINE_BUDGET_MS = 1_500;

interface Body {
  type: "item.progress";
  itemId: string;
  text: string;
}

const ITEM_ID = "01JBENCHAPPEND0000000000AA";
const body = (index: number): Body => ({
  type: "item.progress",
  itemId: ITEM_ID,
  text: `progress ${index}: the quick brown fox jumps over the lazy dog, again and again`,
});

/** The appender's own line format, so the raw loop writes byte-for-byte what the appender writes. */
const lineOf = (index: number) => `${JSON.stringify({ v: 1, seq: index + 1, at: new Date().toISOString(), ...body(index) })}\n`;

interface Side {
  /** Appends records [from, from + count) durably; returns the milliseconds it took. */
  slice(from: number, count: number): Promise<number>;
  close(): Promise<void>;
}

async function openAppender(filePath: string, awaitEachBurst: boolean): Promise<Side> {
  const appender = await JsonlAppender.open<Body, Body & { seq: number }>(filePath);
  return {
    async slice(from, count) {
      const started = performance.now();
      const all: Array<Promise<unknown>> = [];
      for (let sent = from; sent < from + count; sent += BURST) {
        const burst: Array<Promise<unknown>> = [];
        for (let index = sent; index < sent + BURST; index += 1) burst.push(appender.append(body(index)));
        // Closed loop: the next burst waits until this one is durable. Open loop (server-like):
        // a burst arrives every tick regardless, and the appender batches whatever piled up.
        if (awaitEachBurst) await Promise.all(burst);
        else {
          all.push(...burst);
          await nextTick();
        }
      }
      await Promise.all(all);
      return performance.now() - started;
    },
    close: () => appender.close(),
  };
}

function openRaw(filePath: string, batch: number): Side {
  const fd = fs.openSync(filePath, "a");
  return {
    async slice(from, count) {
      const started = performance.now();
      for (let sent = from; sent < from + count; sent += batch) {
        let chunk = "";
        for (let index = sent; index < sent + batch; index += 1) chunk += lineOf(index);
        const buffer = Buffer.from(chunk, "utf8");
        let offset = 0;
        while (offset < buffer.length) offset += fs.writeSync(fd, buffer, offset, buffer.length - offset);
        fs.fdatasyncSync(fd);
      }
      return performance.now() - started;
    },
    close: async () => fs.closeSync(fd),
  };
}

async function perLineFloor(filePath: string): Promise<number> {
  const raw = openRaw(filePath, 1);
  let written = 0;
  let elapsed = 0;
  while (written < SINGLE_LINE_RECORDS && elapsed < SINGLE_LINE_BUDGET_MS) {
    elapsed += await raw.slice(written, 10);
    written += 10;
  }
  await raw.close();
  return (written / elapsed) * 1000;
}

/**
 * Runs the sides in turns of `slice` records each (rotating who goes first), a fresh file per side,
 * and returns each side's milliseconds per turn.
 */
async function alternate(sides: Side[], slice: number): Promise<number[][]> {
  const milliseconds = sides.map(() => [] as number[]);
  for (let from = 0, turn = 0; from < RECORDS; from += slice, turn += 1) {
    for (let index = 0; index < sides.length; index += 1) {
      const side = (index + turn) % sides.length;
      milliseconds[side].push(await sides[side].slice(from, slice));
    }
  }
  for (const side of sides) await side.close();
  return milliseconds;
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
const rateOf = (records: number, milliseconds: number[]) => (records / sum(milliseconds)) * 1000;

export const measure: Measure = () =>
  withTempDirectory("atrium-bench-append-", async (directory) => {
    let files = 0;
    const file = (name: string) => path.join(directory, `${(files += 1)}-${name}.jsonl`);
    const raw: number[] = [];
    const closed: number[] = [];
    const openRawSide: number[] = [];
    const open: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      // The disk's fdatasync latency swings several-fold within a second: pair the sides batch by batch.
      const [rawTurns, closedTurns] = await alternate([openRaw(file("raw"), BURST), await openAppender(file("appender"), true)], BURST);
      raw.push(...rawTurns);
      closed.push(...closedTurns);
      const [rawSlices, openSlices] = await alternate(
        [openRaw(file("raw"), BURST), await openAppender(file("appender-open"), false)],
        OPEN_LOOP_SLICE,
      );
      openRawSide.push(...rawSlices);
      open.push(...openSlices);
    }
    const floor = await perLineFloor(file("per-line"));

    const total = RECORDS * ROUNDS;
    const openRatio = rateOf(total, open) / rateOf(total, openRawSide);
    const closedRatio = rateOf(total, closed) / rateOf(total, raw);
    const pairRatios = raw.map((rawMs, index) => rawMs / closed[index]);
    const batchMs = (values: number[]) =>
      `per batch p50 ${formatMs(percentile(values, 0.5))}, p90 ${formatMs(percentile(values, 0.9))}`;
    return {
      figure: 1,
      title: `durable append rate, ${formatNumber(RECORDS)} records × ${ROUNDS} rounds, bursts of ${BURST} per tick`,
      checks: [
        {
          metric: "JsonlAppender, server-like bursts / raw loop",
          value: formatRatio(openRatio),
          goal: `≥ ${OPEN_LOOP_GOAL.toFixed(1)}× (provisional: issue 2 sets none)`,
          pass: openRatio >= OPEN_LOOP_GOAL,
        },
        {
          metric: "JsonlAppender, one burst at a time / raw loop",
          value: formatRatio(closedRatio),
          goal: "none (same batches: the appender's own overhead)",
          pass: null,
        },
      ],
      details: [
        `server-like: a burst of ${BURST} appends every tick, flushed or not; raw loop in turns of ${formatNumber(OPEN_LOOP_SLICE)} records`,
        `  JsonlAppender ${formatNumber(rateOf(total, open))} rec/s, raw ${formatNumber(rateOf(total, openRawSide))} rec/s (group commit batches what piles up during a flush)`,
        `one burst at a time: the next burst waits until the last is durable; sides alternate batch by batch`,
        `  raw loop, writeSync + fdatasyncSync per ${BURST} lines: ${formatNumber(rateOf(total, raw))} rec/s (${batchMs(raw)})`,
        `  JsonlAppender:                                  ${formatNumber(rateOf(total, closed))} rec/s (${batchMs(closed)})`,
        `  batch-by-batch ratio: median ${formatRatio(median(pairRatios))}, p10 ${formatRatio(percentile(pairRatios, 0.1))}, p90 ${formatRatio(percentile(pairRatios, 0.9))}`,
        `per-line fdatasync floor (raw, batch of 1): ${formatNumber(floor)} rec/s`,
        `all files in one directory under ${path.dirname(directory)}`,
      ],
      evidence: [],
    };
  });

runFigureIfMain(import.meta.url, measure);
