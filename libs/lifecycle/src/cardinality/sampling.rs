//! Bounded sampling of the cardinality checks of one run: relations of
//! more than N rows are checked on a salted hash sample of about N rows.

use sha2::{Digest, Sha256};

/// Bounded sampling for one run: relations of more than `rows` rows are
/// checked on a hash sample of about `rows` rows.
///
/// The hash is salted, so a run does not always skip the same keys. `run`
/// derives the salt from its run id (a content hash of the models, the
/// selection and the input data): a rerun of identical content checks the
/// identical sample (reproducible), any change of data or models draws a
/// new one. The salt is recorded with the run, and `replay --execute`
/// checks the recorded sample again. Each check further mixes in the row
/// count of its relation, so `strata test` (which has no run id and takes
/// its salt from the models and overrides) also draws a new sample when the
/// data grows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sampling {
    pub rows: u64,
    pub salt: u64,
}

impl Sampling {
    /// Sampling with a salt derived from `seed` (a run id, or what a test
    /// run is made of).
    pub fn seeded(rows: u64, seed: &str) -> Sampling {
        Sampling {
            rows,
            salt: u64_of(&[b"strata cardinality sample", seed.as_bytes()]),
        }
    }

    /// The salt as 16 hex digits (how runs record and show it).
    pub fn salt_hex(&self) -> String {
        format!("{:016x}", self.salt)
    }

    /// Parse a recorded `salt_hex`.
    pub fn parse_salt(hex: &str) -> Option<u64> {
        u64::from_str_radix(hex, 16).ok()
    }

    /// The salt and threshold of the sample of a relation of `total` rows
    /// (the engine's `RunSql::sample_condition` makes them a condition on
    /// the keys): about `rows` rows, all rows of a selected key. `None`
    /// when the relation is small enough to check exactly.
    pub fn cut(&self, total: u64) -> Option<(u64, u64)> {
        if total <= self.rows {
            return None;
        }
        let salt = u64_of(&[&self.salt.to_le_bytes(), &total.to_le_bytes()]);
        // floor(rows / total * 2^64): rows < total, so it fits in a u64.
        let threshold = ((u128::from(self.rows) << 64) / u128::from(total)) as u64;
        Some((salt, threshold))
    }
}

/// The first 8 bytes of the SHA-256 of `parts`, as a u64.
fn u64_of(parts: &[&[u8]]) -> u64 {
    let mut h = Sha256::new();
    for p in parts {
        h.update(p);
        h.update(b"\x1f");
    }
    let d = h.finalize();
    let mut b = [0u8; 8];
    b.copy_from_slice(&d[..8]);
    u64::from_le_bytes(b)
}
