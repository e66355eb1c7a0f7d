//! The writer lock on Spark: a view (`_strata_lock`, named by the
//! lifecycle's `state/` through [`crate::Lock`]). `CREATE VIEW`
//! (without `OR REPLACE`) fails for all but one client, across every
//! client of the catalog, and a view has no files to write or delete (a
//! table's create and drop cost a second here). Its properties name the
//! owner and when the lock expires; the holder renews it from a second
//! session while it lives, so a writer that was killed is taken over
//! [`LOCK_TTL`] after its last renewal.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use strata_lang::sql::Dialect;

use super::connect::Session;
use super::url::{fresh_session_id, SparkTarget};
use super::Spark;
use crate::{Connection, Failure};

/// How long a lock lives without being renewed.
const LOCK_TTL: Duration = Duration::from_secs(45);
/// How long before its expiry a lock this writer took is still taken as
/// surely its own when released (clocks of clients differ a little).
const LOCK_MARGIN: Duration = Duration::from_secs(10);
/// How often the holder renews it.
const LOCK_RENEW: Duration = Duration::from_secs(15);

/// The lock a writer holds: its owner text and the renewing thread.
pub(super) struct Lock {
    owner: String,
    /// The lock view's name (unquoted).
    view: String,
    /// When the lock expires, as last written (seconds since the epoch).
    expires: Arc<AtomicU64>,
    stop: mpsc::Sender<()>,
    renewer: Option<std::thread::JoinHandle<()>>,
}

impl Spark {
    /// Take the lock view, or wait for it; an expired lock (its holder
    /// died) is dropped and taken.
    pub(super) fn lock(&mut self, target: &SparkTarget, lock: crate::Lock) -> Result<(), Failure> {
        let (view, timeout) = (lock.relation, lock.wait);
        let owner = format!(
            "{} (user {}, pid {}, session {})",
            hostname(),
            target.user_id,
            std::process::id(),
            target.session_id
        );
        let table = self.ident(view);
        let start = Instant::now();
        // The expiry of the lock taken, or who holds it after the wait.
        let taken = loop {
            let expires = expiry();
            let create = format!(
                "CREATE VIEW {table} TBLPROPERTIES ('strata.owner' = {}, 'strata.expires' = '{expires}') AS SELECT 1 AS locked",
                self.string(&owner),
            );
            match self.sql(&create) {
                Ok(_) => break Ok(expires),
                Err(e) if e.contains("ALREADY_EXISTS") => {}
                Err(e) => return Err(self.failure(&e, &create)),
            }
            let (holder, expires) = self.lock_properties(view)?;
            if expires.is_some_and(|t| t < now_secs()) {
                // Whoever held it stopped renewing it.
                self.exec(&format!("DROP VIEW IF EXISTS {table}"))?;
                continue;
            }
            if start.elapsed() >= timeout {
                break Err(holder.unwrap_or_else(|| "another writer".into()));
            }
            std::thread::sleep(Duration::from_millis(500));
        };
        let expires = taken.map_err(|holder| {
            Failure::Environment(format!(
                "database '{}' of {} is locked by another writer after waiting {:.0} s (held by {holder}); try again, or raise --lock-timeout",
                target.schema,
                self.shown,
                timeout.as_secs_f64()
            ))
        })?;
        let (stop, stopped) = mpsc::channel::<()>();
        let renewing = (*target).clone();
        let expires = Arc::new(AtomicU64::new(expires));
        let renewed = Arc::clone(&expires);
        let renewed_view = view.to_string();
        let renewer =
            std::thread::spawn(move || renew(&renewing, &renewed_view, &renewed, &stopped));
        self.lock = Some(Lock {
            owner,
            view: view.to_string(),
            expires,
            stop,
            renewer: Some(renewer),
        });
        Ok(())
    }

    /// The lock view's owner and expiry (seconds since the epoch).
    fn lock_properties(&self, view: &str) -> Result<(Option<String>, Option<u64>), Failure> {
        let rows = match self.rows(&format!("SHOW TBLPROPERTIES {}", self.ident(view))) {
            Ok(rows) => rows,
            // Released in between (or unreadable): not expired; the next
            // CREATE VIEW tells.
            Err(_) => return Ok((None, None)),
        };
        let get = |key: &str| {
            rows.iter()
                .find(|r| r.first().and_then(|k| k.as_deref()) == Some(key))
                .and_then(|r| r.get(1).cloned().flatten())
        };
        Ok((
            get("strata.owner"),
            get("strata.expires").and_then(|t| t.parse().ok()),
        ))
    }
}

impl Drop for Spark {
    fn drop(&mut self) {
        let Some(mut lock) = self.lock.take() else {
            return;
        };
        let _ = lock.stop.send(());
        if let Some(t) = lock.renewer.take() {
            let _ = t.join();
        }
        // Only our own lock: a lock that expired and was taken is not ours.
        // One that expires well after now has not expired: no need to ask.
        let ours = lock.expires.load(Ordering::Relaxed) > now_secs() + LOCK_MARGIN.as_secs()
            || matches!(self.lock_properties(&lock.view), Ok((Some(owner), _)) if owner == lock.owner);
        if ours {
            let _ = self.exec(&format!("DROP VIEW IF EXISTS {}", self.ident(&lock.view)));
        }
    }
}

/// Renew the lock's expiry every [`LOCK_RENEW`] until told to stop, from a
/// session of its own (the writer's session is busy with its statements);
/// `expires` keeps the expiry last written.
fn renew(target: &SparkTarget, view: &str, expires: &AtomicU64, stop: &mpsc::Receiver<()>) {
    // Spark Connect session ids are UUIDs: a fresh one.
    let mut own = target.clone();
    own.session_id = fresh_session_id();
    let Ok(session) = Session::connect(&own) else {
        return;
    };
    let table = format!(
        "{}.{}",
        Dialect::Spark.ident(&target.schema),
        Dialect::Spark.ident(view)
    );
    while let Err(mpsc::RecvTimeoutError::Timeout) = stop.recv_timeout(LOCK_RENEW) {
        let next = expiry();
        if session
            .sql(&format!(
                "ALTER VIEW {table} SET TBLPROPERTIES ('strata.expires' = '{next}')"
            ))
            .is_ok()
        {
            expires.store(next, Ordering::Relaxed);
        }
    }
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

fn expiry() -> u64 {
    now_secs() + LOCK_TTL.as_secs()
}

fn hostname() -> String {
    std::fs::read_to_string("/etc/hostname")
        .map(|h| h.trim().to_string())
        .ok()
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".into())
}
