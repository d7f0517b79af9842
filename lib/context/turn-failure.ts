import type { TurnError } from "../store/records";

/** Ends a turn as failed with a code the API reports in `turn.error` (DESIGN §8). */
export class TurnFailure extends Error {
  constructor(readonly error: TurnError) {
    super(error.message);
  }
}
