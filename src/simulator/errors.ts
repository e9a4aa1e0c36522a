/**
 * A refusal by the simulator: bad control input, an unknown app or review. `status` is what the HTTP
 * layer answers with, so in-process callers and the `/__sim` routes see the same error.
 */
export class SimulatorError extends Error {
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.name = 'SimulatorError';
    this.status = status;
  }
}

export function badRequest(message: string): SimulatorError {
  return new SimulatorError(400, message);
}

export function notFound(message: string): SimulatorError {
  return new SimulatorError(404, message);
}
