//! The PostgreSQL writer lock: a session advisory lock per schema, held
//! for as long as the connection lives.

use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use super::Postgres;
use crate::{Connection, Failure};

/// The first key of strata's advisory locks (the second is the schema's).
const LOCK_CLASS: i32 = 0x5354_5241; // "STRA"

impl Postgres {
    /// Take the schema's writer lock, waiting up to `timeout`; who holds
    /// it after the wait is named in the failure.
    pub(super) fn lock(&self, schema: &str, timeout: Duration) -> Result<(), Failure> {
        let key = {
            let d = Sha256::digest(schema.as_bytes());
            i32::from_le_bytes([d[0], d[1], d[2], d[3]])
        };
        let start = Instant::now();
        loop {
            let got = self.rows(&format!("SELECT pg_try_advisory_lock({LOCK_CLASS}, {key})"))?;
            if got
                .first()
                .and_then(|r| r.first())
                .cloned()
                .flatten()
                .as_deref()
                == Some("t")
            {
                return Ok(());
            }
            if start.elapsed() >= timeout {
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        // objid is the second key as an unsigned oid.
        let holder = self.rows(&format!(
            "SELECT a.application_name, CAST(a.pid AS TEXT), a.usename FROM pg_catalog.pg_locks l \
             JOIN pg_catalog.pg_stat_activity a ON a.pid = l.pid \
             WHERE l.locktype = 'advisory' AND l.granted AND l.classid = {} AND l.objid = {} AND l.objsubid = 2",
            LOCK_CLASS as u32, key as u32
        ))?;
        let holder = match holder.first() {
            Some(r) => {
                let cell = |i: usize| r.get(i).cloned().flatten().unwrap_or_default();
                format!("held by {} (pid {}, user {})", cell(0), cell(1), cell(2))
            }
            None => "held by another session".into(),
        };
        Err(Failure::Environment(format!(
            "schema '{schema}' of {} is locked by another writer after waiting {:.0} s ({holder}); try again, or raise --lock-timeout",
            self.shown,
            timeout.as_secs_f64()
        )))
    }
}
