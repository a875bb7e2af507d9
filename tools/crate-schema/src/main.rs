//! Writes one edition of ACP's JSON schema to stdout, built from the types of the crate
//! `agent-client-protocol-schema` with the settings of upstream's schema generator: draft
//! 2020-12, titles on untagged enum variants, `$ref` siblings moved into `allOf`, `true`/`false`
//! schemas replaced by objects (except `additionalProperties`), and, in the unstable editions,
//! protocol documentation links pointed at the draft pages.
//!
//! The edition is chosen with cargo features: none (v1 stable), `unstable` (v1 unstable), `v2`
//! (v2 stable), `unstable,v2` (v2 unstable). The output is `serde_json`'s pretty form; acp-codegen
//! lays it out as upstream publishes it (prettier's JSON style).

#[cfg(not(feature = "v2"))]
use agent_client_protocol_schema::v1 as acp;
#[cfg(feature = "v2")]
use agent_client_protocol_schema::v2 as acp;

use acp::{
    AgentNotification, AgentRequest, AgentResponse, ClientNotification, ClientRequest,
    ClientResponse, JsonRpcMessage, Notification, ProtocolLevelNotification, Request, Response,
};
#[cfg(feature = "unstable")]
use acp::{ProxyNotification, ProxyRequest, ProxyResponse};
use schemars::{
    JsonSchema,
    generate::SchemaSettings,
    transform::{RemoveRefSiblings, ReplaceBoolSchemas},
};
use serde_json::Value;
use std::io::Write;

/// Where the protocol's documentation lives; the unstable editions link to its draft pages.
const PROTOCOL_DOCS: &str = "https://agentclientprotocol.com/protocol/";
#[cfg(not(feature = "v2"))]
const PROTOCOL: &str = "v1";
#[cfg(feature = "v2")]
const PROTOCOL: &str = "v2";

/// All messages that an agent can send to a client.
#[derive(JsonSchema)]
#[serde(untagged)]
#[schemars(inline)]
#[expect(dead_code, reason = "only its schema is used")]
enum AgentOutgoingMessage {
    Request(Request<AgentRequest>),
    Response(Response<AgentResponse>),
    Notification(Notification<AgentNotification>),
}

/// All messages that a client can send to an agent.
#[derive(JsonSchema)]
#[serde(untagged)]
#[schemars(inline)]
#[expect(dead_code, reason = "only its schema is used")]
enum ClientOutgoingMessage {
    Request(Request<ClientRequest>),
    Response(Response<ClientResponse>),
    Notification(Notification<ClientNotification>),
}

/// All messages that a conductor and its proxies exchange.
#[cfg(feature = "unstable")]
#[derive(JsonSchema)]
#[serde(untagged)]
#[schemars(inline)]
#[expect(dead_code, reason = "only its schema is used")]
enum ProxyOutgoingMessage {
    Request(Request<ProxyRequest>),
    Response(Response<ProxyResponse>),
    Notification(Notification<ProxyNotification>),
}

#[derive(JsonSchema)]
#[serde(untagged)]
#[schemars(title = "Agent Client Protocol")]
#[expect(dead_code, reason = "only its schema is used")]
enum AcpTypes {
    Agent(JsonRpcMessage<AgentOutgoingMessage>),
    Client(JsonRpcMessage<ClientOutgoingMessage>),
    ProtocolLevel(JsonRpcMessage<Notification<ProtocolLevelNotification>>),
    #[cfg(feature = "unstable")]
    Proxy(JsonRpcMessage<ProxyOutgoingMessage>),
}

fn main() {
    let mut settings = SchemaSettings::draft2020_12();
    settings.untagged_enum_variant_titles = true;
    let mut bool_schemas = ReplaceBoolSchemas::default();
    bool_schemas.skip_additional_properties = true;
    let generator = settings
        .with_transform(RemoveRefSiblings::default())
        .with_transform(bool_schemas)
        .into_generator();
    let mut schema = match serde_json::to_value(generator.into_root_schema_for::<AcpTypes>()) {
        Ok(value) => value,
        Err(error) => fail(&format!("the schema is not JSON: {error}")),
    };
    if cfg!(feature = "unstable") {
        let stable = format!("{PROTOCOL_DOCS}{PROTOCOL}/");
        let draft = format!("{PROTOCOL_DOCS}{PROTOCOL}/draft/");
        replace_in_strings(&mut schema, &stable, &draft);
    }
    let text = match serde_json::to_string_pretty(&schema) {
        Ok(text) => text,
        Err(error) => fail(&format!("cannot write the schema: {error}")),
    };
    let mut stdout = std::io::stdout().lock();
    if let Err(error) = writeln!(stdout, "{text}").and_then(|()| stdout.flush()) {
        fail(&format!("cannot write the schema: {error}"));
    }
}

/// Replaces `from` by `to` in every string of `value`.
fn replace_in_strings(value: &mut Value, from: &str, to: &str) {
    match value {
        Value::String(string) => {
            if string.contains(from) {
                *string = string.replace(from, to);
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|item| replace_in_strings(item, from, to)),
        Value::Object(members) => members
            .values_mut()
            .for_each(|member| replace_in_strings(member, from, to)),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

fn fail(message: &str) -> ! {
    eprintln!("acp-crate-schema: {message}");
    std::process::exit(1);
}
