import { connect } from "node:net";

export interface TrickleOutcome {
  /** From connecting until the server ended the connection (or `giveUpMs`). */
  ms: number;
  /** Everything the server sent, as latin1 text. */
  text: string;
}

/**
 * A slow client on a raw socket: writes `first`, then `unit` every `everyMs` until the server ends
 * the connection; after `giveUpMs` the client gives up and closes it itself.
 */
export function trickleRequest(
  port: number,
  first: string,
  unit: string,
  options: { everyMs: number; giveUpMs: number },
): Promise<TrickleOutcome> {
  const started = performance.now();
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let text = "";
    const timer = setInterval(() => {
      if (socket.writable) socket.write(unit);
    }, options.everyMs);
    const giveUp = setTimeout(() => socket.destroy(), options.giveUpMs);
    socket.on("data", (chunk: Buffer) => (text += chunk.toString("latin1")));
    socket.on("error", () => undefined);
    socket.on("close", () => {
      clearInterval(timer);
      clearTimeout(giveUp);
      resolve({ ms: performance.now() - started, text });
    });
    socket.write(first);
  });
}
