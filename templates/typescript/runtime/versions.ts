/**
 * One program for several protocol versions: an agent that serves v1 and v2 clients on one
 * transport, and a client that asks for the newest version and continues in the one the agent
 * answers. Layer: typed layer (the generated `versions.ts` binds each edition's role module in).
 *
 * Agent side, as the official SDK's `AgentProtocolRouter`: messages are read until a valid
 * `initialize`; before it, notifications and responses are ignored and other requests answered
 * -32600; the chosen edition is the highest offered at or below the version asked (-32022 when
 * none: v2 InitializeResponse.protocolVersion "If no such version exists, initialization fails
 * with error code -32022"); an `initialize` that fails leaves the connection open for another.
 * The chosen edition's agent then serves the connection, that `initialize` included.
 */

import { negotiate, type Negotiation } from "./behaviour.js";
import type { ConnectionOptions, IncomingRequest, Router } from "./connection.js";
import { any, type Decoder } from "./decoding.js";
import { INVALID_REQUEST, RequestError } from "./errors.js";
import { Switchboard } from "./switchboard.js";
import type { Transport } from "./transports/transport.js";

/** One edition a versioned endpoint offers: its negotiation rule, and how it takes over a
 * connection (the generated `connectAgent(agent, board)` / `connectClient(client, board)`). */
export interface EditionEndpoint<C> {
  readonly key: string;
  readonly negotiation: Negotiation;
  attach(board: Switchboard): C;
}

/** The edition that took the connection, and its typed connection. */
export interface Chosen<C> {
  readonly key: string;
  readonly connection: C;
}

/** The router of a connection that no edition serves yet. */
class Undecided implements Router {
  constructor(private readonly decide: ((request: IncomingRequest) => Promise<unknown>) | null) {}

  async request(request: IncomingRequest): Promise<unknown> {
    if (this.decide !== null) return this.decide(request);
    throw new RequestError(INVALID_REQUEST, "Invalid Request", { details: "no protocol version is agreed yet" });
  }

  received(): void {}

  async notification(): Promise<void> {} // "ignores notifications … before it"

  cancelledResult(): unknown {
    return undefined;
  }
}

/** A versioned agent connection: `chosen` resolves once an `initialize` picks an edition. */
export class VersionedConnection<C> {
  readonly chosen: Promise<Chosen<C>>;

  constructor(
    readonly board: Switchboard,
    chosen: Promise<Chosen<C>>,
  ) {
    this.chosen = chosen;
  }

  get closed(): Promise<string> {
    return this.board.connection.closed;
  }

  close(): Promise<void> {
    return this.board.connection.close();
  }
}

/** Serves `editions` (at least one) on `transport`, choosing one per the client's `initialize`. */
export function serveVersions<C>(
  editions: readonly EditionEndpoint<C>[],
  transport: Transport,
  options: ConnectionOptions = {},
): VersionedConnection<C> {
  const first = editions[0];
  if (first === undefined) throw new Error("serveVersions needs at least one edition");
  const method = first.negotiation.method;
  let choose!: (chosen: Chosen<C>) => void;
  const chosen = new Promise<Chosen<C>>((resolve) => (choose = resolve));
  const board = new Switchboard(
    transport,
    (board) =>
      new Undecided(async (request) => {
        if (request.method !== method) {
          throw new RequestError(INVALID_REQUEST, "Invalid Request", { details: `the first request must be ${method}` });
        }
        const asked = (request.params as { [key: string]: unknown } | null)?.[first.negotiation.field];
        const negotiation = negotiate(asked, editions.map((e) => e.negotiation)); // throws: answered, keep reading
        const edition = editions.find((e) => e.negotiation === negotiation) ?? first;
        const connection = edition.attach(board); // the board now routes to this edition
        choose({ key: edition.key, connection });
        return board.request(request);
      }),
    options,
  );
  return new VersionedConnection(board, chosen);
}

/** A client endpoint also decodes the agent's `initialize` answer in its edition's shape. */
export interface ClientEndpoint<C> extends EditionEndpoint<C> {
  readonly initializeResult: Decoder;
}

/**
 * Connects as a client offering `editions`: one `initialize` asking for the newest, whose params
 * are every edition's params in one object (the newest's win where two share a key; each edition
 * ignores the fields it does not know), then continues in the edition whose version the agent
 * answers (InitializeResponse.protocolVersion: "The client must check that it supports this
 * version and should disconnect if it does not": an unknown one closes the connection and
 * rejects).
 */
export async function connectVersions<C>(
  editions: readonly ClientEndpoint<C>[],
  transport: Transport,
  params: ReadonlyArray<{ readonly key: string; readonly params: object }>,
  options: ConnectionOptions = {},
): Promise<Chosen<C> & { readonly initialize: unknown }> {
  const sorted = [...editions].sort((a, b) => a.negotiation.version - b.negotiation.version);
  const newest = sorted.at(-1);
  if (newest === undefined) throw new Error("connectVersions needs at least one edition");
  const board = new Switchboard(transport, () => new Undecided(null), options);
  const merged: { [key: string]: unknown } = {};
  for (const edition of sorted) Object.assign(merged, params.find((p) => p.key === edition.key)?.params ?? {});
  merged[newest.negotiation.field] = newest.negotiation.version;
  try {
    const answer = await board.connection.request(newest.negotiation.method, merged, any);
    const version = (answer as { [key: string]: unknown } | null)?.[newest.negotiation.field];
    const edition = sorted.find((e) => e.negotiation.version === version);
    if (edition === undefined) {
      throw new RequestError(INVALID_REQUEST, "The agent answered a protocol version this client does not offer", {
        answered: version ?? null,
        offered: sorted.map((e) => e.negotiation.version),
      });
    }
    const initialize = edition.initializeResult(answer);
    return { key: edition.key, connection: edition.attach(board), initialize };
  } catch (error) {
    await board.connection.close();
    throw error;
  }
}
