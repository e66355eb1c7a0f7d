//! Model fingerprints: 16 hex digits of a stable 64-bit hash over the model's
//! name, its contract, its syntax tree (structurally: no spans, layout or
//! comments) and its upstream fingerprints, so
//! a change to a model or to anything upstream changes it, and reformatting
//! (or editing comments) does not.

use crate::ast::ModelDecl;
use crate::ir;

/// A stable, fast 64-bit hasher (multiply-rotate per word, murmur3's
/// finaliser at the end): fingerprints must be identical across runs,
/// platforms and Rust versions, which `std`'s hashers do not promise, and
/// hashing every model must stay cheap.
pub struct StableHasher(u64);

const K: u64 = 0x9E37_79B9_7F4A_7C15;

impl StableHasher {
    pub fn new() -> StableHasher {
        StableHasher(0x243F_6A88_85A3_08D3)
    }

    fn mix(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(23) ^ word).wrapping_mul(K);
    }
}

impl Default for StableHasher {
    fn default() -> Self {
        StableHasher::new()
    }
}

impl std::hash::Hasher for StableHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.mix(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.mix(u64::from_le_bytes(w) ^ ((rest.len() as u64) << 56));
        }
    }

    fn write_u8(&mut self, v: u8) {
        self.mix(u64::from(v));
    }

    fn write_u32(&mut self, v: u32) {
        self.mix(u64::from(v));
    }

    fn write_u64(&mut self, v: u64) {
        self.mix(v);
    }

    fn write_usize(&mut self, v: usize) {
        self.mix(v as u64);
    }

    fn finish(&self) -> u64 {
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }
}

/// Fingerprint of a checked model; `upstream` gives the fingerprint of each
/// model it reads (checked before it).
pub fn model_fingerprint<'u>(
    m: &ModelDecl,
    model: &ir::Model,
    upstream: impl Fn(&str) -> Option<&'u str>,
) -> String {
    use std::hash::{Hash, Hasher};
    let mut h = StableHasher::new();
    model.name.hash(&mut h);
    model.contract.hash(&mut h);
    m.items.hash(&mut h);
    for input in model
        .inputs
        .iter()
        .filter(|i| i.kind == ir::InputKind::Model)
    {
        if let Some(fp) = upstream(&input.name) {
            fp.hash(&mut h);
        }
    }
    format!("{:016x}", h.finish())
}
