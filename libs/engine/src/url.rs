//! What the engines' URL forms share (`postgres/url.rs`, `spark/url.rs`):
//! `%XX` escapes, a secret from the environment, a password hidden. Below
//! both and below `target.rs`, which picks the engine by the URL's form.

use crate::Failure;

/// The secret in the environment variable `var` (an environment failure
/// when it is not set).
pub(crate) fn secret_from_env(var: &str, what: &str) -> Result<String, Failure> {
    std::env::var(var).map_err(|_| {
        Failure::Environment(format!(
            "the target's {what} names ${var}, which is not set"
        ))
    })
}

/// A URL with the password of its `user:password@` part replaced.
pub fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    let Some(at) = authority.rfind('@') else {
        return url.to_string();
    };
    let (userinfo, host) = authority.split_at(at);
    let user = userinfo.split_once(':').map_or(userinfo, |(u, _)| u);
    let masked = if user.len() < userinfo.len() {
        ":***"
    } else {
        ""
    };
    format!("{scheme}://{user}{masked}{host}{tail}")
}

/// `%XX` escapes decoded, and `+` as a space (a query string's form
/// encoding; not in a Spark Connect parameter, where a token may hold `+`).
pub(crate) fn percent_decode(text: &str) -> String {
    unescape(text, true)
}

pub(crate) fn unescape(text: &str, plus_is_space: bool) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (bytes[i], bytes.get(i + 1), bytes.get(i + 2)) {
            (b'%', Some(&h), Some(&l)) if hex(h).is_some() && hex(l).is_some() => {
                out.push((hex(h).unwrap_or(0) * 16 + hex(l).unwrap_or(0)) as u8);
                i += 3;
            }
            (b'+', ..) if plus_is_space => {
                out.push(b' ');
                i += 1;
            }
            (b, ..) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}
