//! Hash maps and sets with a fast hasher. The checker looks names up all the
//! time; `std`'s default SipHash is built to resist flooding by untrusted
//! keys, which a compiler of local files does not need, and costs several
//! times more per lookup.

use std::collections::{HashMap, HashSet};

/// `rustc-hash`'s Fx hasher (the one rustc uses for its own tables): a
/// multiply per word. Nothing stored or compared across runs may depend on
/// it; model fingerprints are SHA-256 ([`crate::fingerprint`]).
pub type FastHash = rustc_hash::FxBuildHasher;

pub type FastMap<K, V> = HashMap<K, V, FastHash>;

pub type FastSet<T> = HashSet<T, FastHash>;
