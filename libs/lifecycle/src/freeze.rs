//! Freezing a source for a run: reusing an earlier freeze with the same
//! content, a delta over the last one, a copy (a table, or a file in the
//! store), or for `freeze = "hash"` only its content hash.

use std::path::Path;

use strata_engine::{Failure, Origin};

use crate::content::{file_hash, Scanned, SourcePolicy};
use crate::delta::{self, grouped, Plan};
use crate::naming::frozen_input;
use crate::state::frozen::{self, FrozenEarlier, How};
use crate::work::Work;

/// Copy `from` into the store as `to`, checking on the copy that the file
/// still has the content hash the run was planned with. The copy is
/// renamed into place, so the store never holds half a file.
fn store_file(from: &Path, to: &Path, content: &str) -> Result<(), Failure> {
    let io = |e: std::io::Error| {
        Failure::Environment(format!(
            "cannot copy {} into the input store {}: {e}",
            from.display(),
            to.display()
        ))
    };
    if let Some(dir) = to.parent() {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let partial = to.with_extension(format!("partial-{}", std::process::id()));
    std::fs::copy(from, &partial).map_err(io)?;
    if file_hash(&partial)? != content {
        let _ = std::fs::remove_file(&partial);
        return Err(Failure::Environment(format!(
            "{} changed while the run was reading it; nothing was built, run again",
            from.display()
        )));
    }
    std::fs::rename(&partial, to).map_err(io)
}

/// A source to freeze: where it reads, what hashing it found, how
/// strata.toml says to freeze it, and the delta planned for it.
pub struct Freezing<'a> {
    pub source: &'a str,
    /// The columns the source declares (a file is read with their types).
    pub declared: &'a [strata_lang::ir::Column],
    pub origin: &'a Origin,
    /// The relation it is read through.
    pub relation: &'a str,
    pub scanned: &'a Scanned,
    pub policy: &'a SourcePolicy,
    /// For a source with an append column: a delta, or why a full copy.
    pub plan: Option<&'a Plan>,
}

/// How a source was frozen, as a run reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FreezeNote {
    pub source: String,
    /// `reused`, `copy`, `delta` or `hash`.
    pub how: &'static str,
    /// What the run records as its frozen input (`input_<run>_<source>`,
    /// or the earlier one reused): a relation, but for a source read in
    /// place, a name in the frozen inputs only.
    pub relation: String,
    /// The relation (SQL) the run's models read it through.
    pub reads: String,
    pub rows: i64,
    /// A delta: the rows it added, and the segments the input reads.
    pub added: Option<i64>,
    pub segments: usize,
    /// Why a source with an append column was copied in full; what a
    /// source read in place means.
    pub why: Option<String>,
    /// Whether strata.toml says how to freeze it (only those are shown).
    pub declared: bool,
}

impl std::fmt::Display for FreezeNote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (s, rows) = (&self.source, grouped(self.rows));
        match (self.how, self.added) {
            ("delta", Some(added)) => write!(
                f,
                "froze {s}: +{} row{} (delta; {rows} rows in {} segments)",
                grouped(added),
                if added == 1 { "" } else { "s" },
                self.segments
            ),
            ("reused", _) => write!(f, "froze {s}: reused {} (same content)", self.relation),
            ("hash", _) => write!(f, "froze {s}: read in place, {rows} rows (freeze = \"hash\": only its content hash is kept; replay needs {s} unchanged)"),
            _ => match &self.why {
                Some(why) => write!(f, "froze {s}: full copy, {rows} rows ({why})"),
                None => write!(f, "froze {s}: full copy, {rows} rows"),
            },
        }
    }
}

impl Work<'_> {
    /// Freeze a source: reuse an input frozen earlier with the same content
    /// (one of `earlier`, from [`StateReader::frozen_earlier`](crate::state::StateReader::frozen_earlier)); or, for `freeze =
    /// "hash"`, record only its content hash and origin (as
    /// `input_<run_id>_<source>`: no relation) and read it in place; or
    /// add the segment of its new rows to its last freeze ([`Plan::Delta`]);
    /// else freeze it as `input_<run_id>_<source>`, a view of its copy in the
    /// file store ([`Session::stored_copy`](crate::session::Session::stored_copy)) or a table of its rows.
    pub fn freeze(
        &self,
        f: &Freezing,
        run_id: &str,
        earlier: &[FrozenEarlier],
    ) -> Result<FreezeNote, Failure> {
        let work = self;
        let wh = work.wh();
        let Freezing {
            source,
            declared,
            origin,
            relation,
            scanned,
            policy,
            plan,
        } = *f;
        let (content, rows) = (scanned.content.as_str(), scanned.rows);
        let in_place = policy.by_hash
            && (matches!(origin, Origin::Table(_)) || wh.capabilities().file_store.is_some());
        let described = in_place_origin(origin);
        let mut note = FreezeNote {
            source: source.to_string(),
            how: "copy",
            relation: String::new(),
            reads: String::new(),
            rows,
            added: None,
            segments: 1,
            why: None,
            declared: policy.by_hash || policy.append_column.is_some(),
        };
        for e in earlier {
            if e.source != source || e.content_hash != content {
                continue;
            }
            // A source read in place is no copy: reused only by a source read
            // in place from the same origin.
            if e.how == How::Hash && !(in_place && e.origin.as_deref() == Some(described.as_str()))
            {
                continue;
            }
            let file_there = e.file.as_ref().is_none_or(|f| Path::new(f).is_file());
            // A delta, with every segment it reads (a run killed on Spark
            // leaves its freeze recorded, and gc may drop segments no run read).
            let there = || match e.how {
                How::Delta => self.reader().intact(&self.reader().segments()?, &e.table),
                _ => wh.relation_exists(&e.table),
            };
            if e.how == How::Hash || (file_there && there()?) {
                note.how = "reused";
                note.relation = e.table.clone();
                note.reads = match e.how {
                    How::Hash => relation.to_string(),
                    _ => wh.ident(&e.table),
                };
                return Ok(note);
            }
        }
        let table = frozen_input(run_id, source);
        note.relation = table.clone();
        let quoted = wh.ident(&table);
        note.reads = quoted.clone();
        let append = policy.append_column.as_deref();
        let mut record = frozen::Record {
            source,
            content_hash: content,
            rows,
            table: &table,
            file: None,
            how: How::Copy,
            append_column: append,
            watermark: scanned.max.as_deref(),
            origin: None,
        };
        if in_place {
            // No relation of its own (a view would stop the table it reads
            // from being dropped and loaded again, on PostgreSQL): the run
            // reads the source, replay reads its origin again.
            note.reads = relation.to_string();
            record.how = How::Hash;
            record.origin = Some(&described);
            self.state().record_frozen(&record)?;
            note.how = "hash";
            return Ok(note);
        }
        if policy.by_hash {
            note.why = Some(format!(
                "freeze = \"hash\" reads tables in place, and {} is loaded into the warehouse",
                origin.describe()
            ));
        }
        if let Some(Plan::Delta(delta)) = plan {
            let segments = delta::segments_of(delta, &table);
            let new = segments.last().map(|s| s.table.clone()).unwrap_or_default();
            work.replace_table(
                &wh.ident(&new),
                &format!(
                    "SELECT * FROM (SELECT * FROM {relation}) AS t WHERE {}",
                    delta.filter()
                ),
            )?;
            // The segment holds exactly the rows counted before the run (none
            // arrived in between).
            let check = wh.rows(&self.content_query(&wh.ident(&new), None, None))?;
            let cell = |i: usize| {
                check
                    .first()
                    .and_then(|r| r.get(i).cloned().flatten())
                    .unwrap_or_default()
            };
            if cell(0).parse::<i64>().ok() != Some(delta.added)
                || delta::parse_sum(&cell(1)) != Some(delta.added_sum)
            {
                return Err(Failure::Environment(format!(
                    "{} changed while the run was reading it (rows above {} arrived or changed); nothing was built, run again",
                    origin.describe(),
                    delta.base.watermark.as_deref().unwrap_or("")
                )));
            }
            work.replace_view(&quoted, &self.reader().segments_union(&segments))?;
            self.state().record_segments(&table, &segments)?;
            record.how = How::Delta;
            self.state().record_frozen(&record)?;
            note.how = "delta";
            note.added = Some(delta.added);
            note.segments = segments.len();
            return Ok(note);
        }
        if let Some(Plan::Full(why)) = plan {
            note.why = Some(why.clone());
        }
        let copy = self.stored_copy(origin, content);
        match (&copy, origin) {
            (Some(copy), Origin::File(path)) => {
                if !copy.is_file() {
                    store_file(path, copy, content)?;
                }
                let read =
                    self.state()
                        .source_relation(source, declared, &Origin::File(copy.clone()))?;
                wh.replace_view(&quoted, &read)?;
            }
            _ => {
                work.replace_table(&quoted, &format!("SELECT * FROM {relation}"))?;
            }
        }
        if append.is_some() {
            // (A killed run may have recorded this freeze as a delta.)
            self.state().own_segments(&table, rows)?;
        }
        record.file = copy.as_deref();
        self.state().record_frozen(&record)?;
        Ok(note)
    }
}

/// The origin a source read in place recorded ([`in_place_origin`]).
pub fn recorded_origin(text: &str) -> Option<Origin> {
    Origin::from_description(text)
}

/// What a source read in place reads, as its freeze records it (a file by
/// its absolute path).
fn in_place_origin(origin: &Origin) -> String {
    match origin {
        Origin::File(path) => {
            Origin::File(std::path::absolute(path).unwrap_or_else(|_| path.clone())).describe()
        }
        Origin::Table(_) => origin.describe(),
    }
}
