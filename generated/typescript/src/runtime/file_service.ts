// Copied by acp-codegen from templates/typescript/runtime/file_service.ts: edit it there, then run:
//   make generate
/**
 * The client side of `fs/read_text_file` and `fs/write_text_file`, safe against the agent.
 * Layer: typed layer (a helper a client's handlers call).
 *
 * An agent is a program the user did not write; what it asks to read or write is checked here
 * before any byte moves:
 * - paths must be absolute (ACP: "All file paths in the protocol MUST be absolute"); each is
 *   resolved, symlinks included, and refused unless it lies under one of the allowed roots, with
 *   an error naming the roots (-32602), or -32002 ("Resource not found") for a missing file;
 * - only regular files: a FIFO, a device or a directory is refused before it is read, and a reply
 *   over `maxBytes` is refused, not built;
 * - writes are atomic: a temporary file in the target's folder, then a rename.
 */

import { randomUUID } from "node:crypto";
import { constants } from "node:fs";
import { open, realpath, rename, rm, stat, writeFile } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, sep } from "node:path";
import { INVALID_PARAMS, RequestError } from "./errors.js";

/** ACP `ErrorCode`: "A given resource, such as a session or file, was not found". */
export const RESOURCE_NOT_FOUND = -32002;
const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;

export class FileService {
  private readonly roots: string[] = [];

  constructor(
    roots: readonly string[] = [],
    readonly maxBytes = DEFAULT_MAX_BYTES,
  ) {
    this.roots.push(...roots);
  }

  /** Allows reads and writes under `root` too. */
  allow(root: string): void {
    this.roots.push(root);
  }

  /** The file's text, or only `limit` lines from line `line` (1-based). */
  async readTextFile(path: string, line?: number | null, limit?: number | null): Promise<string> {
    const real = await this.resolve(path, false);
    if ((line != null && line < 1) || (limit != null && limit < 0)) {
      throw this.refuse(path, "`line` must be 1 or more and `limit` 0 or more");
    }
    // Non-blocking: a FIFO swapped in after the check cannot block the open.
    const handle = await open(real, constants.O_RDONLY | constants.O_NONBLOCK).catch((error: NodeJS.ErrnoException) => {
      throw this.refuse(path, `cannot open the file (${error.code ?? error.message})`);
    });
    try {
      const info = await handle.stat();
      if (!info.isFile()) throw this.refuse(path, "not a regular file");
      if (info.size > this.maxBytes && line == null && limit == null) {
        throw this.refuse(path, `the content exceeds ${this.maxBytes} bytes`);
      }
      const text = (await handle.readFile({ encoding: "utf8" })).toString();
      if (line == null && limit == null) return text;
      const lines = text.split(/(?<=\n)/);
      const start = (line ?? 1) - 1;
      return lines.slice(start, limit == null ? undefined : start + limit).join("");
    } finally {
      await handle.close();
    }
  }

  /** Writes `content` atomically (a temporary file, then a rename). */
  async writeTextFile(path: string, content: string): Promise<void> {
    const real = await this.resolve(path, true);
    const existing = await stat(real).catch(() => null);
    if (existing !== null && !existing.isFile()) throw this.refuse(path, "not a regular file");
    if (Buffer.byteLength(content) > this.maxBytes) throw this.refuse(path, `the content exceeds ${this.maxBytes} bytes`);
    const temporary = join(dirname(real), `.${basename(real)}.${randomUUID()}.tmp`);
    try {
      await writeFile(temporary, content, { encoding: "utf8", flag: "wx" });
      await rename(temporary, real);
    } catch (error) {
      await rm(temporary, { force: true });
      throw this.refuse(path, `cannot write the file (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
    }
  }

  /** The real path of `path`, refused unless it lies under an allowed root. */
  private async resolve(path: string, forWriting: boolean): Promise<string> {
    if (!isAbsolute(path)) throw this.refuse(path, "the path is not absolute");
    let real: string;
    try {
      // A file to be written may not exist yet: resolve its folder instead.
      real = forWriting ? join(await realpath(dirname(path)), basename(path)) : await realpath(path);
      if (forWriting) real = await realpath(real).catch(() => real);
    } catch {
      throw this.refuse(path, forWriting ? "the folder does not exist" : "no such file", RESOURCE_NOT_FOUND);
    }
    const roots = await Promise.all(this.roots.map((root) => realpath(root).catch(() => null)));
    const inside = roots.some((root) => root !== null && (real === root || real.startsWith(root.endsWith(sep) ? root : root + sep)));
    if (!inside) throw this.refuse(path, "the path is outside the allowed roots");
    return real;
  }

  private refuse(path: string, reason: string, code = INVALID_PARAMS): RequestError {
    // -32002's message begins with the code's title in the schema, "Resource not found", as the
    // official SDKs' `resourceNotFound` errors do: agents match those words (gemini-cli).
    const title = code === RESOURCE_NOT_FOUND ? "Resource not found" : "File access refused";
    return new RequestError(code, `${title}: ${reason}`, { path, reason, roots: [...this.roots] });
  }
}
