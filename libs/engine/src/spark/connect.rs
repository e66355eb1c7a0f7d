//! A small Spark Connect client: one gRPC call, `ExecutePlan` with a SQL
//! relation, whose answer is a stream of Arrow IPC batches. The few
//! messages it sends and reads are declared here with prost's derive
//! (field numbers from Spark's `spark/connect/base.proto` and
//! `relations.proto`); every field strata does not read is skipped by the
//! decoder, so newer servers that add fields still answer.

use std::time::Duration;

use arrow_array::RecordBatch;
use tonic::codegen::http::uri::PathAndQuery;
use tonic::metadata::MetadataValue;
use tonic::transport::{Channel, ClientTlsConfig, Endpoint};
use tonic::{Code, Request, Status};

use super::url::SparkTarget;
use crate::Failure;

#[derive(Clone, PartialEq, prost::Message)]
struct ExecutePlanRequest {
    #[prost(string, tag = "1")]
    session_id: String,
    #[prost(message, optional, tag = "2")]
    user_context: Option<UserContext>,
    #[prost(message, optional, tag = "3")]
    plan: Option<Plan>,
    #[prost(string, optional, tag = "4")]
    client_type: Option<String>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct UserContext {
    #[prost(string, tag = "1")]
    user_id: String,
}

/// `Plan { oneof op_type { Relation root = 1; ... } }`.
#[derive(Clone, PartialEq, prost::Message)]
struct Plan {
    #[prost(message, optional, tag = "1")]
    root: Option<Relation>,
}

/// `Relation { oneof rel_type { ...; SQL sql = 10; ... } }`.
#[derive(Clone, PartialEq, prost::Message)]
struct Relation {
    #[prost(message, optional, tag = "10")]
    sql: Option<Sql>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct Sql {
    #[prost(string, tag = "1")]
    query: String,
}

/// The part of `ExecutePlanResponse` strata reads (`arrow_batch = 2` of
/// its `response_type` oneof).
#[derive(Clone, PartialEq, prost::Message)]
struct ExecutePlanResponse {
    #[prost(message, optional, tag = "2")]
    arrow_batch: Option<ArrowBatch>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct ArrowBatch {
    #[prost(int64, tag = "1")]
    row_count: i64,
    #[prost(bytes = "vec", tag = "2")]
    data: Vec<u8>,
}

const EXECUTE_PLAN: &str = "/spark.connect.SparkConnectService/ExecutePlan";

/// Arrow batches can be large: Spark cuts them at 4 MiB by default, which
/// is also tonic's default limit, so leave room above it.
const MAX_MESSAGE: usize = 256 << 20;

/// One Spark Connect session: a channel, a session id and the user.
pub struct Session {
    runtime: tokio::runtime::Runtime,
    channel: Channel,
    session_id: String,
    user_id: String,
    /// `Bearer <token>`, sent with every call; never shown.
    authorization: Option<MetadataValue<tonic::metadata::Ascii>>,
    /// `host:port`, for messages.
    address: String,
}

impl Session {
    /// Connect to the server `target` names (no query is sent yet).
    pub fn connect(target: &SparkTarget) -> Result<Session, Failure> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| Failure::Environment(format!("cannot start the gRPC runtime: {e}")))?;
        let address = format!("{}:{}", target.host, target.port);
        let scheme = if target.tls { "https" } else { "http" };
        let mut endpoint = Endpoint::from_shared(format!("{scheme}://{address}"))
            .map_err(|e| Failure::Usage(format!("{}: {e}", target.shown)))?
            .connect_timeout(Duration::from_secs(10))
            .http2_keep_alive_interval(Duration::from_secs(30))
            .keep_alive_while_idle(true);
        if target.tls {
            endpoint = endpoint
                .tls_config(
                    ClientTlsConfig::new()
                        .domain_name(target.host.clone())
                        .with_native_roots(),
                )
                .map_err(|e| Failure::Environment(format!("{}: TLS: {e}", target.shown)))?;
        }
        let channel = runtime.block_on(endpoint.connect()).map_err(|e| {
            let why = chain(&e);
            let hint = if why.contains("invalid peer certificate") {
                "; its TLS certificate is not trusted: strata trusts the system's certificate store, or the PEM file $SSL_CERT_FILE names"
            } else {
                ""
            };
            Failure::Environment(format!("cannot connect to {}: {why}{hint}", target.shown))
        })?;
        let authorization = match &target.token {
            Some(token) => Some(MetadataValue::try_from(format!("Bearer {token}")).map_err(
                |_| {
                    Failure::Usage(format!(
                        "{}: the token has characters a gRPC header cannot carry",
                        target.shown
                    ))
                },
            )?),
            None => None,
        };
        Ok(Session {
            runtime,
            channel,
            session_id: target.session_id.clone(),
            user_id: target.user_id.clone(),
            authorization,
            address,
        })
    }

    /// Run one SQL statement or query; the record batches of its result.
    pub fn sql(&self, query: &str) -> Result<Vec<RecordBatch>, String> {
        self.runtime.block_on(self.execute(query))
    }

    /// Run independent queries at once (each is a round trip and a job of
    /// its own on the server); their results in the same order.
    pub fn sql_all(&self, queries: &[&str]) -> Vec<Result<Vec<RecordBatch>, String>> {
        let all = queries.iter().map(|q| self.execute(q));
        self.runtime.block_on(futures_util::future::join_all(all))
    }

    async fn execute(&self, query: &str) -> Result<Vec<RecordBatch>, String> {
        let message = ExecutePlanRequest {
            session_id: self.session_id.clone(),
            user_context: Some(UserContext {
                user_id: self.user_id.clone(),
            }),
            plan: Some(Plan {
                root: Some(Relation {
                    sql: Some(Sql {
                        query: query.to_string(),
                    }),
                }),
            }),
            client_type: Some(format!("strata/{}", env!("CARGO_PKG_VERSION"))),
        };
        let mut request = Request::new(message);
        if let Some(auth) = &self.authorization {
            request.metadata_mut().insert("authorization", auth.clone());
        }
        let mut grpc = tonic::client::Grpc::new(self.channel.clone())
            .max_decoding_message_size(MAX_MESSAGE)
            .max_encoding_message_size(MAX_MESSAGE);
        grpc.ready().await.map_err(|e| {
            format!(
                "the server at {} is not reachable: {}",
                self.address,
                chain(&e)
            )
        })?;
        let codec = tonic_prost::ProstCodec::<ExecutePlanRequest, ExecutePlanResponse>::default();
        let mut stream = grpc
            .server_streaming(request, PathAndQuery::from_static(EXECUTE_PLAN), codec)
            .await
            .map_err(|s| status_text(&s))?
            .into_inner();
        // The stream ends with the call's status: OK, or the error (a
        // connection lost mid-answer is an error too).
        let mut batches = Vec::new();
        while let Some(response) = stream.message().await.map_err(|s| status_text(&s))? {
            if let Some(batch) = response.arrow_batch {
                read_ipc(&batch.data, &mut batches)?;
            }
        }
        Ok(batches)
    }
}

/// The record batches of one Arrow IPC stream.
fn read_ipc(data: &[u8], into: &mut Vec<RecordBatch>) -> Result<(), String> {
    let reader = arrow_ipc::reader::StreamReader::try_new(std::io::Cursor::new(data), None)
        .map_err(|e| format!("the server sent Arrow data strata cannot read: {e}"))?;
    for batch in reader {
        into.push(
            batch.map_err(|e| format!("the server sent Arrow data strata cannot read: {e}"))?,
        );
    }
    Ok(())
}

/// What a gRPC status says, in one line: Spark puts its error class first
/// (`[TABLE_OR_VIEW_NOT_FOUND] The table or view ...`); a lost connection
/// says so, with the transport's reason.
fn status_text(s: &Status) -> String {
    let message = s.message().trim();
    let message = message.lines().next().unwrap_or(message);
    let lost = message.starts_with("transport error") || message.starts_with("h2 protocol error");
    match s.code() {
        Code::Unauthenticated | Code::PermissionDenied => {
            format!("the server refused the credentials: {message}")
        }
        Code::Unavailable | Code::Cancelled => {
            format!("the server is not available: {}", with_sources(message, s))
        }
        _ if lost => {
            let why = with_sources(message, s);
            // A TLS server's first answer, read as HTTP/2.
            if why.contains("frame with invalid size") {
                format!("the server does not answer in plain HTTP/2 (if it speaks TLS, add ;use_ssl=true to the URL): {why}")
            } else {
                format!("the server stopped answering: {why}")
            }
        }
        Code::Internal | Code::Unknown | Code::InvalidArgument => message.to_string(),
        code => format!("{code:?}: {message}"),
    }
}

/// A status's message and the errors beneath it (the transport's reason).
fn with_sources(message: &str, s: &Status) -> String {
    match std::error::Error::source(s) {
        Some(source) => {
            let below = chain(source);
            if below.starts_with(message) {
                below
            } else {
                format!("{message}: {below}")
            }
        }
        None => message.to_string(),
    }
}

/// An error and its sources, joined.
fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut s = e.to_string();
    let mut source = e.source();
    while let Some(inner) = source {
        let text = inner.to_string();
        if !s.contains(&text) {
            s.push_str(&format!(": {text}"));
        }
        source = inner.source();
    }
    s
}
