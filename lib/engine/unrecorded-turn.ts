/** A write for a turn whose `turn.started` the disk refused: the turn never was, and nothing of it is written. */
export class UnrecordedTurnError extends Error {
  constructor(readonly turnId: string) {
    super(`turn ${turnId} was never recorded (the disk refused its start): nothing of it is written`);
    this.name = "UnrecordedTurnError";
  }
}
