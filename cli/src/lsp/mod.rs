//! `strata lsp`: a language server on stdin/stdout (JSON-RPC with
//! `Content-Length` framing). Each open document is checked as the root of
//! its module, with the editor's unsaved text of every open document in
//! place of the files on disk; the analysis (diagnostics, the typed IR, the
//! index of names, every query) is [`strata_analysis::ide`]'s, the server
//! translates positions and protocol types ([`convert`]).
//!
//! Here: the loop, the server's state and the dispatch of each message to
//! its handler, one file per family of requests. A malformed message gets
//! a JSON-RPC error and the server goes on; a panic in a handler (a bug) is
//! answered as an internal error.

mod actions;
mod capabilities;
mod completion;
mod convert;
mod hover;
mod navigation;
mod position;
mod rename;
mod sql;
mod symbols;
mod sync;
mod transport;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use lsp_server::{ErrorCode, Message, Notification, Request, RequestId, Response, ResponseError};
use lsp_types::notification::{self as notify, Notification as _};
use lsp_types::request::{self as req, Request as _};
use lsp_types::{LogMessageParams, MessageType, PublishDiagnosticsParams, Url};
use serde_json::Value;

pub use position::{Encoding, LineIndex};
pub use strata_analysis::ide::Analysis;

use crate::exit;

/// Run the language server over stdio (an editor starts it).
#[derive(Debug, clap::Args)]
pub struct LspArgs {}

pub fn run(_args: LspArgs) -> i32 {
    let incoming = transport::read_stdin();
    let mut server = Server::new(Box::new(std::io::stdout()));
    // Handle everything that has arrived, then check what changed: a burst
    // of edits is checked once.
    while let Ok(first) = incoming.recv() {
        let mut next = Some(first);
        while let Some(msg) = next {
            if let Some(code) = server.receive(msg) {
                return code;
            }
            next = incoming.try_recv().ok();
        }
        server.check_dirty();
    }
    // The client went away without `exit`.
    if server.shutdown {
        exit::OK
    } else {
        exit::MODULE_ERRORS
    }
}

/// An open document.
pub struct Doc {
    pub path: PathBuf,
    pub text: String,
    pub version: i32,
    /// Its last analysis (`None` until the first check).
    pub analysis: Option<Analysis>,
    /// The text or a file it reads changed since that analysis.
    pub dirty: bool,
}

pub struct Server {
    out: Box<dyn Write>,
    pub docs: BTreeMap<Url, Doc>,
    pub encoding: Encoding,
    initialized: bool,
    shutdown: bool,
    /// Documents whose diagnostics were published (to clear on close).
    published: BTreeMap<Url, usize>,
}

/// A handler's failure: a JSON-RPC error.
pub struct Failure {
    pub code: ErrorCode,
    pub message: String,
}

impl Failure {
    pub fn invalid(message: impl Into<String>) -> Failure {
        Failure {
            code: ErrorCode::InvalidParams,
            message: message.into(),
        }
    }

    /// A request the server understood and cannot answer (the message says
    /// why).
    pub fn failed(message: impl Into<String>) -> Failure {
        Failure {
            code: ErrorCode::RequestFailed,
            message: message.into(),
        }
    }
}

/// A response to a message that could not be read: `Message` has no room
/// for the null id JSON-RPC answers one without an id with.
#[derive(serde::Serialize)]
struct Unreadable {
    jsonrpc: &'static str,
    id: Option<RequestId>,
    error: ResponseError,
}

impl Server {
    pub fn new(out: Box<dyn Write>) -> Server {
        Server {
            out,
            docs: BTreeMap::new(),
            encoding: Encoding::Utf16,
            initialized: false,
            shutdown: false,
            published: BTreeMap::new(),
        }
    }

    fn send(&mut self, msg: Message) {
        // A closed stdout: the client is gone; nothing to tell anyone.
        let _ = transport::write(&mut self.out, &msg);
    }

    fn reply(&mut self, id: RequestId, result: Result<Value, Failure>) {
        let response = match result {
            Ok(v) => Response::new_ok(id, v),
            Err(f) => Response::new_err(id, f.code as i32, f.message),
        };
        self.send(Message::Response(response));
    }

    /// Send the notification `N`.
    pub fn notify<N: notify::Notification>(&mut self, params: &N::Params) {
        // Written straight from `params` (no JSON tree in between: a publish
        // can carry thousands of diagnostics).
        let _ = transport::write_notification(&mut self.out, N::METHOD, params);
    }

    /// Tell the client's log about a bug (the server goes on).
    fn log_bug(&mut self, message: String) {
        self.notify::<notify::LogMessage>(&LogMessageParams {
            typ: MessageType::ERROR,
            message,
        });
    }

    /// Handle one message as if it had arrived alone on stdin, then check
    /// what it changed (tests and fuzzing drive the server in process).
    pub fn handle_message(&mut self, msg: Message) -> Option<i32> {
        let code = self.receive(transport::Incoming::Message(msg));
        self.check_dirty();
        code
    }

    /// Handle one incoming message; `Some(exit code)` when the server must
    /// stop (`exit`).
    pub fn receive(&mut self, msg: transport::Incoming) -> Option<i32> {
        match msg {
            transport::Incoming::Malformed { id, message } => {
                let response = Unreadable {
                    jsonrpc: "2.0",
                    id,
                    error: ResponseError {
                        code: ErrorCode::ParseError as i32,
                        message,
                        data: None,
                    },
                };
                if let Ok(json) = serde_json::to_value(&response) {
                    let _ = transport::write_json(&mut self.out, &json);
                }
                None
            }
            transport::Incoming::Message(Message::Request(req)) => {
                self.request(req);
                None
            }
            transport::Incoming::Message(Message::Notification(n)) => self.notification(n),
            // Responses to requests we never send: ignored.
            transport::Incoming::Message(Message::Response(_)) => None,
        }
    }

    fn request(&mut self, request: Request) {
        let id = request.id.clone();
        let result = if request.method == req::Initialize::METHOD {
            self.initialize(request.params)
        } else if !self.initialized {
            Err(Failure {
                code: ErrorCode::ServerNotInitialized,
                message: "the first request must be `initialize`".into(),
            })
        } else if self.shutdown {
            Err(Failure {
                code: ErrorCode::InvalidRequest,
                message: "the server is shutting down".into(),
            })
        } else if request.method == req::Shutdown::METHOD {
            self.shutdown = true;
            Ok(Value::Null)
        } else {
            // A bug in a handler must not take the editor's server down.
            let method = request.method.clone();
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                self.dispatch(&method, request.params)
            }));
            outcome.unwrap_or_else(|_| {
                Err(Failure {
                    code: ErrorCode::InternalError,
                    message: format!("strata lsp failed on {method} (a bug: please report it)"),
                })
            })
        };
        self.reply(id, result);
    }

    /// Answer a request (after checking what changed): its parameters read
    /// as lsp-types' (with the members the server lets a client leave out
    /// filled in, [`convert::params`]), its result written from lsp-types'.
    fn dispatch(&mut self, method: &str, p: Value) -> Result<Value, Failure> {
        use convert::defaults::{AT, CODE_ACTION, FORMATTING, REFERENCES, RENAME, SQL, SYMBOLS};
        self.check_dirty();
        // `on!(R, fills, handler)`: a request `R` is answered by `handler`.
        macro_rules! on {
            ($r:ty, $fills:expr, $handler:expr) => {
                if method == <$r>::METHOD {
                    return convert::answer::<$r>(self, p, $fills, $handler);
                }
            };
        }
        on!(req::HoverRequest, AT, hover::hover);
        on!(req::GotoDefinition, AT, navigation::definition);
        on!(req::References, REFERENCES, navigation::references);
        on!(req::Completion, AT, completion::completion);
        on!(req::CodeActionRequest, CODE_ACTION, actions::code_actions);
        on!(req::Formatting, FORMATTING, actions::formatting);
        on!(req::DocumentSymbolRequest, &[], symbols::document_symbols);
        on!(
            req::WorkspaceSymbolRequest,
            SYMBOLS,
            symbols::workspace_symbols
        );
        on!(req::PrepareRenameRequest, AT, rename::prepare);
        on!(req::Rename, RENAME, rename::rename);
        on!(sql::CompiledSql, SQL, sql::compiled);
        Err(Failure {
            code: ErrorCode::MethodNotFound,
            message: format!("unknown method {method}"),
        })
    }

    fn notification(&mut self, n: Notification) -> Option<i32> {
        match n.method.as_str() {
            notify::Exit::METHOD => {
                return Some(if self.shutdown {
                    exit::OK
                } else {
                    exit::MODULE_ERRORS
                })
            }
            notify::Initialized::METHOD => {}
            _ if !self.initialized || self.shutdown => {}
            method => {
                let method = method.to_string();
                let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    sync::notification(self, &method, n.params)
                }));
                if outcome.is_err() {
                    self.log_bug(format!(
                        "strata lsp failed on {method} (a bug: please report it)"
                    ));
                }
            }
        }
        None
    }

    fn initialize(&mut self, params: Value) -> Result<Value, Failure> {
        if self.initialized {
            return Err(Failure {
                code: ErrorCode::InvalidRequest,
                message: "initialize was already called".into(),
            });
        }
        let params: lsp_types::InitializeParams =
            convert::params(params, convert::defaults::INITIALIZE)?;
        let (encoding, result) = capabilities::initialize(&params);
        self.encoding = encoding;
        self.initialized = true;
        convert::to_json(result)
    }

    /// Check every open document that needs it and publish the diagnostics
    /// of those that changed.
    pub fn check_dirty(&mut self) {
        let dirty: Vec<Url> = self
            .docs
            .iter()
            .filter(|(_, d)| d.dirty)
            .map(|(u, _)| u.clone())
            .collect();
        if dirty.is_empty() {
            return;
        }
        let overlay: BTreeMap<PathBuf, String> = self
            .docs
            .values()
            .map(|d| (d.path.clone(), d.text.clone()))
            .collect();
        for uri in dirty {
            let Some(doc) = self.docs.get_mut(&uri) else {
                continue;
            };
            // A bug in the checker must not take the editor's server down.
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let analysis = Analysis::new(&doc.path, overlay.clone());
                // A strata.toml that cannot be read is reported on stderr
                // (the server's log); the module's own diagnostics are
                // published anyway.
                if let Some(e) = &analysis.lint_error {
                    eprintln!("error: {e}");
                }
                let params =
                    convert::publish(&analysis, &uri, doc.version, &doc.text, self.encoding);
                (analysis, params)
            }));
            let Ok((analysis, params)) = outcome else {
                doc.dirty = false;
                self.log_bug(format!(
                    "strata lsp failed to check {uri} (a bug: please report it)"
                ));
                continue;
            };
            let previous = doc.analysis.replace(analysis);
            doc.dirty = false;
            self.published.insert(uri.clone(), params.diagnostics.len());
            self.notify::<notify::PublishDiagnostics>(&params);
            // Once the client has the verdict: free the old analysis, build
            // the index of names that hover and definition read.
            drop(previous);
            if let Some(a) = self.docs.get(&uri).and_then(|d| d.analysis.as_ref()) {
                // A panic here is a bug the next request that needs the
                // index reports (it builds it again, under its own guard).
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| a.index()));
            }
        }
    }

    /// Forget a closed document (and clear its diagnostics).
    pub fn close(&mut self, uri: &Url) {
        self.docs.remove(uri);
        if self.published.remove(uri).is_some() {
            let cleared = PublishDiagnosticsParams::new(uri.clone(), Vec::new(), None);
            self.notify::<notify::PublishDiagnostics>(&cleared);
        }
        self.invalidate_importers(uri);
    }

    /// Mark for a new check every open document whose module reads `uri`'s
    /// file (itself included).
    pub fn invalidate_importers(&mut self, uri: &Url) {
        let Ok(path) = uri.to_file_path() else {
            return;
        };
        for doc in self.docs.values_mut() {
            let reads = doc
                .analysis
                .as_ref()
                .is_none_or(|a| a.checked.sources.find(&path).is_some());
            doc.dirty |= reads;
        }
    }
}
