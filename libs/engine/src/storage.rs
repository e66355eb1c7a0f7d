//! What a warehouse takes on disk, and giving back the space dropped
//! tables left where dropping does not (DuckDB's file).

use crate::{Connection, Failure};

/// What the warehouse takes on disk ([`Storage::size`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Size {
    /// What was measured (`DuckDB file`, `schema marts`).
    pub what: String,
    /// Bytes on disk.
    pub bytes: i64,
    /// Of which free inside it (DuckDB's free blocks), given back only by
    /// [`Storage::compact`]; `None` where dropping frees at once.
    pub free: Option<i64>,
}

/// What [`Storage::compact`] did: the bytes on disk before and after.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Compaction {
    pub before: i64,
    pub after: i64,
}

/// The space a warehouse's relations take (all of it optional: an engine
/// that cannot tell says nothing).
pub trait Storage: Connection {
    /// The bytes a table takes on disk, when the engine tells (PostgreSQL
    /// does; an embedded DuckDB file does not say per table).
    fn relation_bytes(&self, _table: &str) -> Result<Option<i64>, Failure> {
        Ok(None)
    }
    /// [`Storage::relation_bytes`] of each table, in the same order: asked
    /// at once where the engine can. A view takes none (`Some(0)` or
    /// `None`). DuckDB shares a block between small tables: each is given
    /// its share, so the bytes of all tables add up to the blocks they use.
    fn relation_bytes_each(&self, tables: &[String]) -> Result<Vec<Option<i64>>, Failure> {
        tables.iter().map(|t| self.relation_bytes(t)).collect()
    }
    /// What the whole warehouse takes on disk, when the engine tells.
    fn size(&self) -> Result<Option<Size>, Failure> {
        Ok(None)
    }
    /// Give back the space that dropped tables left free inside the
    /// warehouse, where dropping does not
    /// ([`crate::Capabilities::drop_frees_space`]): DuckDB rewrites its
    /// file without the free blocks and swaps it in atomically (a
    /// compaction killed midway leaves the old file whole). `at` is called
    /// with `before compact copy` and `before compact swap` (the
    /// lifecycle's failpoints). `None`: nothing to do on this engine.
    fn compact(&self, _at: &dyn Fn(&str)) -> Result<Option<Compaction>, Failure> {
        Ok(None)
    }
}
