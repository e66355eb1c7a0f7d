//! Hash maps and sets with a fast hasher. The checker looks names up all the
//! time; `std`'s default SipHash is built to resist flooding by untrusted
//! keys, which a compiler of local files does not need, and costs several
//! times more per lookup.

use std::collections::{HashMap, HashSet};
use std::hash::BuildHasherDefault;

use crate::fingerprint::StableHasher;

/// Builds [`StableHasher`]s (a multiply-rotate hash, a few instructions per
/// word).
pub type FastHash = BuildHasherDefault<StableHasher>;

pub type FastMap<K, V> = HashMap<K, V, FastHash>;

pub type FastSet<T> = HashSet<T, FastHash>;
