/**
 * A connection whose router is chosen after it starts: the peer's `initialize` says which edition
 * serves the rest of it (an agent for v1 and v2 clients; a client that falls back to the version
 * the agent answers). Layer: dispatcher (it only forwards `Router` calls to the router in use).
 */

import { Connection, type ConnectionOptions, type IncomingRequest, type Router } from "./connection.js";
import type { Transport } from "./transports/transport.js";

export class Switchboard implements Router {
  readonly connection: Connection;
  private current: Router;

  /** `first` is the router until `use` names another (it gets this board, to switch it). */
  constructor(transport: Transport, first: (board: Switchboard) => Router, options: ConnectionOptions = {}) {
    this.current = first(this);
    this.connection = new Connection(transport, () => this, options);
  }

  /** From now on `router` gets every request and notification (a frame being handled keeps the
   * router it started with). */
  use(router: Router): void {
    this.current = router;
  }

  request(request: IncomingRequest): Promise<unknown> {
    return this.current.request(request);
  }

  received(method: string, params: unknown): void {
    this.current.received(method, params);
  }

  notification(method: string, params: unknown): Promise<void> {
    return this.current.notification(method, params);
  }

  cancelledResult(reason: unknown, request: IncomingRequest): unknown {
    return this.current.cancelledResult(reason, request);
  }
}
