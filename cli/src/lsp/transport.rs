//! The base protocol: messages framed by a `Content-Length` header, read
//! on a thread of their own. A message that cannot be read (bad header, a
//! body that is not JSON or not a JSON-RPC message) is reported to the
//! server as [`Incoming::Malformed`], which answers it with an error; the
//! stream goes on with the next message.

use std::io::{BufRead, Write};
use std::sync::mpsc;

use lsp_server::{Message, RequestId};

/// The largest body accepted (a bigger one is refused and skipped).
const MAX_BODY: usize = 256 << 20;

pub enum Incoming {
    Message(Message),
    /// A message that could not be read, with its id when it has one.
    Malformed {
        id: Option<RequestId>,
        message: String,
    },
}

/// Read messages from stdin until it closes.
pub fn read_stdin() -> mpsc::Receiver<Incoming> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let stdin = std::io::stdin();
        let mut input = stdin.lock();
        while let Some(msg) = read(&mut input) {
            if tx.send(msg).is_err() {
                break;
            }
        }
    });
    rx
}

/// The next message of `input`; `None` at the end of the stream.
pub fn read(input: &mut dyn BufRead) -> Option<Incoming> {
    let mut length: Option<Result<usize, String>> = None;
    let mut saw_header = false;
    loop {
        let mut line = String::new();
        match input.read_line(&mut line) {
            Ok(0) | Err(_) => return None,
            Ok(_) => {}
        }
        let line = line.trim_end_matches(['\r', '\n']);
        if line.is_empty() {
            if saw_header {
                break;
            }
            continue;
        }
        saw_header = true;
        if let Some((name, value)) = line.split_once(':') {
            if name.trim().eq_ignore_ascii_case("content-length") {
                length = Some(
                    value
                        .trim()
                        .parse::<usize>()
                        .map_err(|_| format!("bad Content-Length: {:?}", value.trim())),
                );
            }
        }
    }
    let length = match length {
        Some(Ok(n)) if n <= MAX_BODY => n,
        Some(Ok(n)) => {
            // Skip the body, so that the next message is read from its start.
            let skipped = std::io::copy(
                &mut std::io::Read::take(&mut *input, n as u64),
                &mut std::io::sink(),
            );
            if skipped.map_or(true, |k| k < n as u64) {
                return None;
            }
            return Some(malformed(
                None,
                format!("message of {n} bytes is too large"),
            ));
        }
        Some(Err(e)) => return Some(malformed(None, e)),
        None => return Some(malformed(None, "a header without Content-Length".into())),
    };
    let mut body = vec![0; length];
    if input.read_exact(&mut body).is_err() {
        return None;
    }
    Some(parse(&body))
}

fn malformed(id: Option<RequestId>, message: String) -> Incoming {
    Incoming::Malformed { id, message }
}

fn parse(body: &[u8]) -> Incoming {
    let value: serde_json::Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => return malformed(None, format!("not JSON: {e}")),
    };
    let id = value
        .get("id")
        .cloned()
        .and_then(|id| serde_json::from_value::<RequestId>(id).ok());
    // Message is untagged: check the shape first (any object with an `id`
    // would otherwise read as a response).
    let method = value.get("method");
    let shaped = match method {
        Some(m) => m.is_string(),
        None => id.is_some() && (value.get("result").is_some() || value.get("error").is_some()),
    };
    if !shaped {
        return malformed(
            id,
            "not a JSON-RPC request, notification or response".into(),
        );
    }
    match serde_json::from_value::<Message>(value) {
        Ok(m) => Incoming::Message(m),
        Err(e) => malformed(id, format!("not a JSON-RPC message: {e}")),
    }
}

/// Write one framed message.
pub fn write(out: &mut dyn Write, msg: &Message) -> std::io::Result<()> {
    write_body(out, &serde_json::to_string(msg)?)
}

/// Write one framed message given as JSON (a shape `Message` cannot
/// express, such as a response with a null id).
pub fn write_json(out: &mut dyn Write, msg: &serde_json::Value) -> std::io::Result<()> {
    write_body(out, &msg.to_string())
}

/// Write one framed notification.
pub fn write_notification(
    out: &mut dyn Write,
    method: &str,
    params: &impl serde::Serialize,
) -> std::io::Result<()> {
    #[derive(serde::Serialize)]
    struct Notification<'a, P> {
        jsonrpc: &'static str,
        method: &'a str,
        params: P,
    }
    let body = serde_json::to_string(&Notification {
        jsonrpc: "2.0",
        method,
        params,
    })?;
    write_body(out, &body)
}

fn write_body(out: &mut dyn Write, body: &str) -> std::io::Result<()> {
    write!(out, "Content-Length: {}\r\n\r\n{body}", body.len())?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    #[test]
    fn bad_messages_are_reported_and_reading_goes_on() {
        let good = r#"{"jsonrpc":"2.0","id":7,"method":"shutdown"}"#;
        let stream = format!(
            "{}X-Other: 1\r\n\r\n{}{}{}",
            frame("{not json"),
            frame(r#"{"jsonrpc":"2.0","id":3}"#),
            "Content-Length: ten\r\n\r\n",
            frame(good)
        );
        let mut input = std::io::Cursor::new(stream.into_bytes());
        let mut kinds = Vec::new();
        while let Some(m) = read(&mut input) {
            kinds.push(match m {
                Incoming::Message(Message::Request(r)) => format!("request {}", r.method),
                Incoming::Message(_) => "other".to_string(),
                Incoming::Malformed { id, message } => format!("malformed {id:?} {message}"),
            });
        }
        assert_eq!(kinds.len(), 5, "{kinds:?}");
        assert!(kinds[0].starts_with("malformed None not JSON"), "{kinds:?}");
        assert!(
            kinds[1].starts_with("malformed None a header without"),
            "{kinds:?}"
        );
        assert!(
            kinds[2].starts_with("malformed Some(RequestId(I32(3)))"),
            "{kinds:?}"
        );
        assert!(
            kinds[3].starts_with("malformed None bad Content-Length"),
            "{kinds:?}"
        );
        assert_eq!(kinds[4], "request shutdown");
    }
}
