/**
 * The hand-written runtime every edition's generated modules are built on: transports (stdio, a
 * spawned program, in memory, ACP's Streamable HTTP and WebSocket as client and server; NDJSON or LSP Content-Length framing), the JSON-RPC dispatcher with cancellation in both directions (the
 * ACP, LSP and MCP dialects), decoders, errors, `session_info_update` semantics, session stores behind `session/list`, and the typed layer's behaviour rules (version
 * negotiation, v1's turn rules, the v2 foreground lifecycle, session views: one behaviour engine),
 * the client-held state, one connection for several versions.
 */

export { Connection, CANCEL_REQUEST, type ConnectionOptions, type IncomingRequest, type RequestOptions, type Router } from "./connection.js";
export { DecodeError, type Decoder, type UnknownTag } from "./decoding.js";
export { ACP, LSP, MCP, type CancelDialect } from "./cancellation.js";
export {
  ConnectionClosed,
  INTERNAL_ERROR,
  INVALID_PARAMS,
  INVALID_REQUEST,
  METHOD_NOT_FOUND,
  PARSE_ERROR,
  REQUEST_CANCELLED,
  RequestError,
  isAbortShaped,
  type ErrorObject,
  type RequestId,
} from "./errors.js";
export {
  PeerLink,
  RoleConnection,
  type HandlerContext,
  type Provided,
  type RoleWiring,
  type WorkContext,
} from "./roles.js";
export { BehaviourEngine, TurnCancelled } from "./behaviour_engine.js";
export {
  initializeAnswer,
  negotiate,
  negotiatedAnswer,
  namingVersions,
  turnRuleFor,
  UNSUPPORTED_VERSION,
  type Behaviour,
  type CancelOutcome,
  type Capability,
  type MetaRule,
  type Negotiation,
  type PromptLifecycle,
  type StateUpdates,
  type TargetCancel,
  type TurnRule,
} from "./behaviour.js";
export { WorkCancelled } from "./foreground.js";
export { TRACE_KEYS, carryTraceContext, traceContextOf, withTraceContext, type TraceContext } from "./trace_context.js";
export { SessionView, type Idle } from "./session_view.js";
export {
  ClientState,
  type Applied,
  type ClientSnapshot,
  type StateEntry,
  type StateListener,
  type StateMessage,
  type StateTable,
} from "./client_state.js";
export { SessionState, type Snapshot, type StateChange, type StateEffect, type StateProblem } from "./session_state.js";
export { Switchboard } from "./switchboard.js";
export { VersionedConnection, type Chosen } from "./versions.js";
export {
  EMPTY_SESSION_INFO,
  applySessionInfoUpdate,
  mergeMeta,
  patchMeta,
  type JsonObject,
  type MetaPolicy,
  type SessionInfo,
} from "./session_info.js";
export {
  DEFAULT_FRAME_LIMIT,
  LineSplitter,
  StreamTransport,
  memoryPair,
  stdioTransport,
  type OversizedFrame,
  type Transport,
} from "./transports/transport.js";
export {
  CONTENT_LENGTH,
  ContentLengthSplitter,
  NDJSON,
  type Framing,
  type Splitter,
  type SplitterSinks,
} from "./transports/framing.js";
export { ProcessTransport, spawnTransport, type SpawnedOptions } from "./transports/process.js";
export { type HttpServerOptions } from "./transports/http_policy.js";
export {
  AcpHttpServer,
  type AcpHttpServerOptions,
  type Served,
  type ServerWebSocket,
  type WebSocketUpgrader,
} from "./transports/http_server.js";
export { listenHttp, webSocketUpgrader, type ListenOptions, type Listening } from "./transports/http_listen.js";
export { StreamableHttpTransport } from "./transports/http_client.js";
export { WebSocketTransport, openWebSocket, type ClientWebSocket } from "./transports/ws_client.js";
export { openRemote, type RemoteOptions } from "./transports/remote.js";
export { FileService, RESOURCE_NOT_FOUND } from "./file_service.js";
export {
  MemorySessionStore,
  utcNow,
  type ListedSession,
  type SessionChange,
  type SessionPage,
  type SessionRecord,
  type SessionStore,
  type SessionStoreOptions,
  type StoreSnapshot,
} from "./session_store.js";
export { FileSessionStore, SESSION_FILE_FORMAT } from "./session_file.js";
export { DEFAULT_HISTORY_LIMIT, type Replay } from "./session_history.js";
export { REPLAY_META, recordTimeout } from "./session_replay.js";
