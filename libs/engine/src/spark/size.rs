//! What a table takes on Spark: the size its catalog statistics record
//! (`DESCRIBE TABLE EXTENDED`'s `Statistics`), gathered from the file
//! listing (`ANALYZE TABLE ... COMPUTE STATISTICS NOSCAN`, no scan of the
//! rows) for a table that has none yet. A view takes none.

use super::Spark;
use crate::{Connection, Failure, Rows};

impl Spark {
    pub(super) fn table_bytes(&self, tables: &[String]) -> Result<Vec<Option<i64>>, Failure> {
        let describe = |names: &[&String]| -> Result<Vec<Rows>, Failure> {
            let queries: Vec<String> = names
                .iter()
                .map(|t| format!("DESCRIBE TABLE EXTENDED {}", self.ident(t)))
                .collect();
            self.rows_each(&queries)
        };
        let all: Vec<&String> = tables.iter().collect();
        let mut out: Vec<Option<i64>> = describe(&all)?.iter().map(statistics).collect();
        let missing: Vec<usize> = (0..tables.len()).filter(|&i| out[i].is_none()).collect();
        if missing.is_empty() {
            return Ok(out);
        }
        let analyze: Vec<String> = missing
            .iter()
            .map(|&i| {
                format!(
                    "ANALYZE TABLE {} COMPUTE STATISTICS NOSCAN",
                    self.ident(&tables[i])
                )
            })
            .collect();
        // A view cannot be analyzed: it takes nothing.
        let analyzed = self
            .session
            .sql_all(&analyze.iter().map(String::as_str).collect::<Vec<_>>());
        let again: Vec<&String> = missing.iter().map(|&i| &tables[i]).collect();
        let described = describe(&again)?;
        for ((&i, rows), done) in missing.iter().zip(&described).zip(analyzed) {
            out[i] = match done {
                Ok(_) => statistics(rows).or(Some(0)),
                Err(_) => Some(0),
            };
        }
        Ok(out)
    }
}

/// The bytes of a `DESCRIBE TABLE EXTENDED`'s `Statistics` row
/// (`12345 bytes` or `12345 bytes, 10 rows`).
fn statistics(rows: &Rows) -> Option<i64> {
    rows.iter()
        .find(|r| r.first().and_then(|c| c.as_deref()) == Some("Statistics"))
        .and_then(|r| r.get(1).cloned().flatten())
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statistics_rows_give_bytes() {
        let row = |k: &str, v: &str| vec![Some(k.to_string()), Some(v.to_string()), None];
        assert_eq!(
            statistics(&vec![
                row("Location", "file:/w"),
                row("Statistics", "1234 bytes, 10 rows")
            ]),
            Some(1234)
        );
        assert_eq!(statistics(&vec![row("Statistics", "99 bytes")]), Some(99));
        assert_eq!(statistics(&vec![row("Location", "file:/w")]), None);
    }
}
