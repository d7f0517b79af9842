import type { CpuProfile } from "../support/cpu-profile";

/**
 * The part of a `node --cpu-prof` profile between two moments, in monotonic microseconds
 * (V8 stamps samples on CLOCK_MONOTONIC, the clock of process.hrtime): the server profiles
 * its whole life, the figure wants only its concurrent-turns window. Answers null when the
 * window holds no sample (the clocks then do not agree).
 */
export function profileWindow(profile: CpuProfile, fromMicros: number, toMicros: number): CpuProfile | null {
  const samples: number[] = [];
  const timeDeltas: number[] = [];
  let time = profile.startTime;
  let previousKept = fromMicros;
  profile.samples.forEach((sample, index) => {
    time += profile.timeDeltas[index] ?? 0;
    if (time < fromMicros || time > toMicros) return;
    samples.push(sample);
    // Each kept sample weighs the time since the previous kept one (or the window's start).
    timeDeltas.push(time - previousKept);
    previousKept = time;
  });
  if (samples.length === 0) return null;
  return { nodes: profile.nodes, samples, timeDeltas, startTime: fromMicros, endTime: Math.min(toMicros, profile.endTime) };
}
