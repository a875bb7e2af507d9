/**
 * A spawned program's stdio as a transport, and the program's whole lifetime. Layer: transport.
 *
 * A client starts its agent with `spawnTransport` (through `spawnAgent`). The program never
 * outlives the parent's interest in it:
 * - On POSIX it runs in a process group (and session) of its own, so a Ctrl-C in the terminal
 *   reaches this process only. Closing the transport ends the whole group: stdin is closed, the
 *   program gets `exitGrace` ms to exit on that, then the group gets SIGTERM, then SIGKILL.
 *   Grandchildren are signalled even when the program exits cleanly (an npm wrapper's native
 *   agent that ignores the end of its input would otherwise live on). This process exiting kills
 *   the group too, as does a SIGINT, SIGTERM or SIGHUP that would end this process (one that no
 *   other listener handles: the host's own handler is left to close its connections).
 * - The program is watched, not only its stdout: once it exits, stdout is read for a short grace
 *   and then ended, even if a grandchild still holds the pipe, so pending callers fail at once.
 * - A program that cannot be started closes the connection with one line saying why.
 */

import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import { once } from "node:events";
import { readFileSync, readdirSync } from "node:fs";
import { NDJSON, type Framing } from "./framing.js";
import { StreamTransport } from "./transport.js";
import { TRACE_ENVIRONMENT } from "./wire_trace.js";

export interface SpawnedOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** How long the program may take to exit once its stdin is closed (ms, default 2000). */
  exitGrace?: number;
  /** How messages are delimited on its stdio: `NDJSON` (default) or `CONTENT_LENGTH` (LSP). */
  framing?: Framing;
}

/** The program runs in a process group of its own (not on Windows, which has none). */
const OWN_GROUP = process.platform !== "win32";
/** After the program exits, how long its stdout is still read (its last output), in ms. */
const EXIT_READ_GRACE = 200;
const GROUP_POLL = 20;

/** What the usual reasons a program cannot be started mean (node's own message repeats the path). */
const SPAWN_ERRORS: Readonly<Record<string, string>> = {
  ENOENT: "no such program",
  EACCES: "permission denied",
  ENOTDIR: "a part of the path is not a directory",
};

/** A program not found whose name holds a space is most often a whole command line given as the
 * program (`spawnAgent(client, "node agent.js")`): say where its arguments go. */
function argumentsHint(program: string, code: string | undefined): string {
  if (code !== "ENOENT" || !/\s/.test(program.trim())) return "";
  const [first, ...rest] = program.trim().split(/\s+/);
  return `; give the arguments as a list: spawnAgent(client, ${JSON.stringify(first)}, ${JSON.stringify(rest)})`;
}

/** A spawned program's stdio as a transport; `child` is the program. */
export class ProcessTransport extends StreamTransport {
  constructor(
    readonly child: ChildProcess,
    exitGrace: number,
    framing: Framing = NDJSON,
  ) {
    if (child.stdin === null || child.stdout === null) throw new Error("the program has no stdio pipes");
    watch(child); // this process ending ends the program too
    super(child.stdout, child.stdin, async () => {
      await endGroup(child, exitGrace);
      child.stdout?.destroy(); // a grandchild killed or not, nothing more is read
      unwatch(child);
    }, framing);
    // Node reports a failed spawn (no such program, not executable) as an "error" event on the
    // child, on a later tick; unheard, that event would end this process with a stack trace.
    // (Later "error"s, a failed kill say, are heard too: unheard, each would end this process.)
    child.on("error", (error: NodeJS.ErrnoException) => {
      if (child.pid !== undefined) {
        this.endStream(`${child.spawnfile}: ${error.message}`);
        return;
      }
      const why = SPAWN_ERRORS[error.code ?? ""];
      this.endStream(`could not start ${child.spawnfile}: ${why === undefined ? error.message : `${why} (${error.code})`}${argumentsHint(child.spawnfile, error.code)}`);
    });
    child.once("exit", (code, signal) => {
      // Its last output is in the pipe already: read it, then end, even if a grandchild keeps
      // the pipe open (the end of stdout would never come).
      const how = signal === null ? `with code ${code}` : `on ${signal}`;
      setTimeout(() => {
        child.stdout?.destroy();
        this.endStream(`the program exited ${how}`);
      }, EXIT_READ_GRACE).unref();
    });
  }
}

/** The programs this process runs. When this process exits, or gets a signal that would end it
 * and that nothing else listens for, their groups are killed: in a group of their own, they no
 * longer get the terminal's Ctrl-C. One set of listeners serves them all. */
const watched = new Set<ChildProcess>();
const ENDING_SIGNALS: readonly NodeJS.Signals[] = OWN_GROUP ? ["SIGINT", "SIGTERM", "SIGHUP"] : [];

function killWatched(): void {
  for (const child of watched) signalGroup(child, "SIGKILL");
}

function onEndingSignal(signal: NodeJS.Signals): void {
  if (process.listenerCount(signal) > 1) return; // the host handles it (and closes its connections)
  killWatched();
  watched.clear();
  listen(false);
  process.kill(process.pid, signal); // what the signal would have done without us
}

function listen(on: boolean): void {
  if (on) {
    process.on("exit", killWatched);
    for (const signal of ENDING_SIGNALS) process.on(signal, onEndingSignal);
  } else {
    process.off("exit", killWatched);
    for (const signal of ENDING_SIGNALS) process.off(signal, onEndingSignal);
  }
}

function watch(child: ChildProcess): void {
  if (watched.size === 0) listen(true);
  watched.add(child);
}

function unwatch(child: ChildProcess): void {
  if (watched.delete(child) && watched.size === 0) listen(false);
}

/** Starts `program` and talks NDJSON over its stdin and stdout (its stderr is passed through). */
export function spawnTransport(program: string, args: readonly string[], options: SpawnedOptions = {}): ProcessTransport {
  const spawnOptions: SpawnOptions = { stdio: ["pipe", "pipe", "inherit"], detached: OWN_GROUP };
  if (options.env !== undefined) spawnOptions.env = options.env;
  else if (process.env[TRACE_ENVIRONMENT] !== undefined) {
    // The program does not inherit ACP_TRACE (our own recording of the connection,
    // wire_trace.ts): two recordings of one conversation in one file would garble it. Name it
    // in `env` to record the program too.
    const { [TRACE_ENVIRONMENT]: _recorded, ...inherited } = process.env;
    spawnOptions.env = inherited;
  }
  if (options.cwd !== undefined) spawnOptions.cwd = options.cwd;
  return new ProcessTransport(spawn(program, [...args], spawnOptions), options.exitGrace ?? 2000, options.framing);
}

/** Ends a program whose stdin is closed, and its group: `grace` ms to exit, then SIGTERM, then
 * SIGKILL; then whatever is left of its group (grandchildren) the same way. */
async function endGroup(child: ChildProcess, grace: number): Promise<void> {
  const pid = child.pid;
  if (pid === undefined) return; // it never started (its "error" said why): no "exit" will come
  const gone = child.exitCode !== null || child.signalCode !== null;
  const exited = gone ? Promise.resolve() : once(child, "exit").then(
    () => undefined,
    () => undefined, // an "error" instead: signalled or not, the group is still checked below
  );
  if (!(await within(exited, grace))) {
    signalGroup(child, "SIGTERM");
    if (!(await within(exited, grace))) {
      signalGroup(child, "SIGKILL");
      await exited;
    }
  }
  if (OWN_GROUP && groupAlive(pid)) {
    signalGroup(child, "SIGTERM");
    if (!(await groupGone(pid, grace))) {
      signalGroup(child, "SIGKILL");
      await groupGone(pid, grace);
    }
  }
}

function within(promise: Promise<void>, ms: number): Promise<boolean> {
  const timer = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms).unref());
  return Promise.race([promise.then(() => true), timer]);
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (OWN_GROUP && child.pid !== undefined) process.kill(-child.pid, signal);
    else child.kill(signal);
  } catch {
    // the group is gone already
  }
}

async function groupGone(pgid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (groupAlive(pgid)) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, GROUP_POLL));
  }
  return true;
}

/** Whether a process of group `pgid` still runs. A zombie does not count: a killed grandchild may
 * wait for a reaper that never comes (a container without an init). */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch {
    return false;
  }
  const members = livingGroupMembers(pgid);
  return members === null || members > 0;
}

/** How many processes of group `pgid` run, from /proc; null where there is no /proc. */
function livingGroupMembers(pgid: number): number | null {
  let entries: string[];
  try {
    entries = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return null;
  }
  let living = 0;
  for (const pid of entries) {
    try {
      // pid (comm) state ppid pgrp …: comm may hold spaces and parentheses, so read after the last ")".
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(")").pop()?.trim().split(" ") ?? [];
      if (Number(fields[2]) === pgid && fields[0] !== "Z" && fields[0] !== "X") living += 1;
    } catch {
      // it ended while we looked
    }
  }
  return living;
}
