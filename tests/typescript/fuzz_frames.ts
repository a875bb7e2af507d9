// The envelope rule book's seeded frames (tests/wire/envelope_corpus.json's `fuzz`): its pieces put
// together by the one algorithm both runtimes use (the Python runtime's tests/runtime/envelope_rules.py
// draws the same frames from the same seed), and their digest, equal in both runtimes.
import { createHash } from "node:crypto";
import type { Fuzz } from "./envelope.js";

// -- the frames -------------------------------------------------------------------------------

/** mulberry32: unsigned 32-bit draws, the generator both runtimes use. */
function mulberry32(seed: number): () => number {
  let state = seed | 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (t ^ (t >>> 14)) >>> 0;
  };
}

/** The book's fuzz: its pieces put together by one algorithm (the corpus's `fuzz.algorithm`). */
export class Frames {
  private readonly draw: () => number;

  constructor(private readonly fuzz: Fuzz) {
    this.draw = mulberry32(fuzz.seed);
  }

  private pick<T = string>(name: string): T {
    const options = this.fuzz.pieces[name] as T[];
    return options[this.draw() % options.length] as T;
  }

  private chance(percent: number): boolean {
    return this.draw() % 100 < percent;
  }

  static fill(template: string, n: number): string {
    const big = 9007199254800001n + 4n * BigInt(n);
    return template
      .replaceAll("{n5}", String(n).padStart(5, "0"))
      .replaceAll("{big-1}", String(big - 1n))
      .replaceAll("{big}", String(big))
      .replaceAll("{n}", String(n));
  }

  private members(parts: Array<[key: string, percent: number, pieces: string]>): string {
    const members: string[] = [];
    for (const [key, percent, pieces] of parts) {
      if (!this.chance(percent)) continue;
      const value = this.pick(pieces);
      members.push(key === "" ? value : `"${key}"${this.pick("colons")}${value}`);
    }
    for (let k = members.length - 1; k > 0; k--) {
      const j = this.draw() % (k + 1);
      [members[k], members[j]] = [members[j] as string, members[k] as string];
    }
    return "{" + members.join(this.pick("separators")) + "}";
  }

  private soup(n: number): Buffer {
    const text = this.members([
      ["jsonrpc", 90, "jsonrpc"],
      ["method", 85, "methods"],
      ["id", 70, "ids"],
      ["params", 70, "params"],
      ["", 5, "response_members"],
    ]);
    return Buffer.from(Frames.fill(text, n), "utf8");
  }

  all(): Buffer[] {
    const count = this.fuzz.frames;
    const kinds = this.fuzz.kinds.flatMap(([kind, weight]) => Array.from({ length: weight }, () => kind));
    const frames: Buffer[] = [];
    const holds: Array<[due: number, cancel: Buffer]> = [];
    const text = (line: string): Buffer => Buffer.from(line, "utf8");
    while (frames.length < count || holds.length > 0) {
      const due = holds.findIndex(([at]) => at <= frames.length || frames.length >= count);
      if (due !== -1) {
        frames.push((holds.splice(due, 1)[0] as [number, Buffer])[1]);
        continue;
      }
      const n = 1000 + frames.length;
      const kind = kinds[this.draw() % kinds.length];
      if (kind === "soup") {
        const frame = this.soup(n);
        frames.push(this.chance(5) ? Buffer.concat([frame, text("\r")]) : frame);
      } else if (kind === "truncated") {
        const whole = this.soup(n);
        frames.push(whole.subarray(0, 1 + (this.draw() % (whole.length - 1))));
      } else if (kind === "not_utf8") {
        const whole = this.soup(n);
        const cut = 1 + (this.draw() % (whole.length - 1));
        frames.push(Buffer.concat([whole.subarray(0, cut), Buffer.from([0xff]), whole.subarray(cut)]));
      } else if (kind === "batch") {
        const shape = this.draw() % 3;
        const inner = Array.from({ length: shape }, () => this.soup(n));
        const joined = inner.flatMap((soup, k) => (k === 0 ? [soup] : [text(","), soup]));
        frames.push(Buffer.concat([text("["), ...joined, text("]")]));
      } else if (kind === "value" || kind === "blank") {
        frames.push(text(this.pick(kind + "s")));
      } else if (kind === "hold") {
        const [held, cancelAs, neighbour] = this.pick<[string, string, string]>("holds").map((t) => Frames.fill(t, n));
        frames.push(text(`{"jsonrpc":"2.0","id":${held},"method":"hold"}`));
        const cancel = `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":${cancelAs}}}`;
        holds.push([frames.length + (this.draw() % 50), text(cancel)]);
        if (neighbour !== "" && neighbour !== undefined) frames.push(text(`{"jsonrpc":"2.0","id":${neighbour},"method":"echo"}`));
      } else if (kind === "stray_cancel") {
        frames.push(text(`{"jsonrpc":"2.0","method":"$/cancel_request","params":${this.pick("stray_cancel_params")}}`));
      } else if (kind === "response") {
        const members = this.members([
          ["jsonrpc", 90, "jsonrpc"],
          ["id", 80, "ids"],
          ["", 100, "response_members"],
        ]);
        frames.push(text(Frames.fill(members, n)));
      } else {
        throw new Error(`the book names a frame kind this generator does not know: ${String(kind)}`);
      }
    }
    return frames;
  }
}

/** The sha256 of the frames as sent (each followed by a newline): equal in both runtimes. */
export function digest(frames: Buffer[]): string {
  const hash = createHash("sha256");
  for (const frame of frames) hash.update(frame).update("\n");
  return hash.digest("hex");
}
