//! Helper threads that start at once.
//!
//! Linux queues a new thread on the core of the thread that creates it and
//! moves it to an idle core only at the next load-balancing tick. While the
//! creating thread keeps its core busy (it goes on checking, or loading), the
//! new thread waits: 0.2-4.4 ms, 3.8 ms typically, measured on the 2-core
//! machines here, which is a fifth of a whole `strata check` of 2,000 models.
//! Or the new thread runs first and the creating thread waits as long.
//! [`spawn_scoped`] avoids both: a new thread that finds itself on its
//! creator's core steps over to another core as its first action, and when
//! it has not started after a moment, the creator yields its core to it once
//! so that it can. The new thread, not the creator, waits for the other core
//! to be ready (on a virtual machine, an idle core can take milliseconds to
//! wake up). [`spawn_background`] is for work whose result is wanted only
//! later: its creator does not yield.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::thread::{Builder, JoinHandle, Scope, ScopedJoinHandle};
use std::time::{Duration, Instant};

/// How long a new thread gets to start on another core by itself.
const GRACE: Duration = Duration::from_micros(30);

/// How long a thread whose share of some work is done spins for its helper
/// to finish (at most one item's work in [`in_turn`]), before it sleeps
/// until it has.
pub(crate) const FINISH: Duration = Duration::from_millis(2);

/// [`Builder::spawn`] for work wanted only later (a scan of `PATH` while
/// the module is checked): the creator goes on at once, and the new thread
/// leaves its creator's core if it runs there (yielding to it cost the
/// creator 0.6 ms, median, of a 20 ms check).
pub fn spawn_background<T, F>(builder: Builder, f: F) -> std::io::Result<JoinHandle<T>>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    let (_, f) = flagged(current_cpu(), f);
    builder.spawn(f)
}

/// [`Builder::spawn_scoped`], then room made for the new thread to start at
/// once.
pub fn spawn_scoped<'scope, T, F>(
    scope: &'scope Scope<'scope, '_>,
    builder: Builder,
    f: F,
) -> std::io::Result<ScopedJoinHandle<'scope, T>>
where
    F: FnOnce() -> T + Send + 'scope,
    T: Send + 'scope,
{
    spawn_flagged(scope, builder, f).map(|(handle, _)| handle)
}

/// [`spawn_scoped`], and the flag the new thread sets when it starts.
fn spawn_flagged<'scope, T, F>(
    scope: &'scope Scope<'scope, '_>,
    builder: Builder,
    f: F,
) -> std::io::Result<(ScopedJoinHandle<'scope, T>, Arc<AtomicBool>)>
where
    F: FnOnce() -> T + Send + 'scope,
    T: Send + 'scope,
{
    let (started, f) = flagged(current_cpu(), f);
    let handle = builder.spawn_scoped(scope, f)?;
    make_room(&started);
    Ok((handle, started))
}

/// A thread started by [`spawn_into`].
pub struct Helper<'scope> {
    handle: ScopedJoinHandle<'scope, ()>,
    started: Arc<AtomicBool>,
}

impl Helper<'_> {
    /// Wait for the thread to finish, spinning for at most `limit`, when it
    /// has started: for a thread whose work is about to end (its scope would
    /// otherwise put this thread to sleep until it ends, see [`spin_while`]).
    pub fn finish(&self, limit: Duration) {
        if self.started.load(Ordering::Relaxed) {
            spin_while(limit, || !self.handle.is_finished());
        }
    }
}

/// Spin while `waiting()` holds, for at most `limit`; whether it stopped
/// holding. For waits of a fraction of a millisecond: a thread that sleeps
/// instead is woken 0.1-0.5 ms after the event on the virtual machines here
/// (its core, idle, must be woken first), a fiftieth of a whole `strata
/// check` of 2,000 models. Every few turns the spinning thread yields its
/// core, so that the thread it waits for runs even when they share one
/// (a single core, or a crowded machine).
pub fn spin_while(limit: Duration, mut waiting: impl FnMut() -> bool) -> bool {
    let since = Instant::now();
    let mut turns = 0u32;
    while waiting() {
        if since.elapsed() >= limit {
            return false;
        }
        turns = turns.wrapping_add(1);
        if turns.is_multiple_of(64) {
            std::thread::yield_now();
        } else {
            std::hint::spin_loop();
        }
    }
    true
}

/// [`spawn_scoped`] for a thread whose result is wanted only when its scope
/// ends: the thread leaves it in `slot`; `None` when the thread could not
/// start. The scope's end waits for `f` alone, where a join also waits
/// for the thread to exit: its thread-local destructors (the allocator
/// hands its heap over) and the release of its stack. A panic in `f` makes
/// the scope panic (its message was printed where it happened).
pub fn spawn_into<'scope, T, F>(
    scope: &'scope Scope<'scope, '_>,
    builder: Builder,
    slot: &'scope OnceLock<T>,
    f: F,
) -> Option<Helper<'scope>>
where
    F: FnOnce() -> T + Send + 'scope,
    T: Send + Sync + 'scope,
{
    let (handle, started) = spawn_flagged(scope, builder, move || {
        // The slot is this thread's alone: it cannot be set already.
        let _ = slot.set(f());
    })
    .ok()?;
    Some(Helper { handle, started })
}

/// `f(0)`, ..., `f(n - 1)`, their results in that order, computed by this
/// thread and a helper (started with `builder`) that take the next number in
/// turn: a helper that starts late, or not at all, leaves more of them here.
pub fn in_turn<R: Send + Sync>(
    builder: Builder,
    n: usize,
    f: impl Fn(usize) -> R + Sync,
) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= n {
                return done;
            }
            done.push((i, f(i)));
        }
    };
    let theirs = OnceLock::new();
    let mut all = std::thread::scope(|s| {
        let helper = if n > 1 {
            spawn_into(s, builder, &theirs, work)
        } else {
            None
        };
        let mine = work();
        // The helper is on its last item, if any.
        if let Some(helper) = helper {
            helper.finish(FINISH);
        }
        mine
    });
    all.extend(theirs.into_inner().unwrap_or_default());
    all.sort_by_key(|(i, _)| *i);
    all.into_iter().map(|(_, r)| r).collect()
}

/// `f` over the two halves of `items`, at once when there are at least
/// `min` of them ([`in_turn`]); below `min`, over all of them here and then
/// over none.
pub fn in_halves<T: Sync, R: Send + Sync>(
    items: &[T],
    min: usize,
    f: impl Fn(&[T]) -> R + Sync,
) -> [R; 2] {
    if items.len() < min {
        return [f(items), f(&[])];
    }
    let halves = items.split_at(items.len() / 2);
    let done = in_turn(Builder::new(), 2, |i| {
        f(if i == 0 { halves.0 } else { halves.1 })
    });
    // One result per number, always.
    <[R; 2]>::try_from(done).unwrap_or_else(|_| [f(halves.0), f(halves.1)])
}

/// `f`, first setting the returned flag and leaving the creator's core
/// `creator` (when known) if it runs there.
fn flagged<T>(
    creator: Option<usize>,
    f: impl FnOnce() -> T,
) -> (Arc<AtomicBool>, impl FnOnce() -> T) {
    let started = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&started);
    let f = move || {
        flag.store(true, Ordering::Relaxed);
        if let Some(creator) = creator {
            if current_cpu() == Some(creator) {
                step_aside(creator);
            }
        }
        f()
    };
    (started, f)
}

/// Called right after starting a thread that sets `started` as its first
/// action: when it has not started within a moment, it may be waiting
/// behind the calling thread, which then yields its core once (the new
/// thread, running, steps over to another core and the caller goes on).
fn make_room(started: &AtomicBool) {
    let since = Instant::now();
    while !started.load(Ordering::Relaxed) && since.elapsed() < GRACE {
        std::hint::spin_loop();
    }
    if !started.load(Ordering::Relaxed) {
        std::thread::yield_now();
    }
}

/// Move the calling thread, which runs on core `here`, to another core it
/// may run on (after which it may run on any of them again).
#[cfg(target_os = "linux")]
fn step_aside(here: usize) {
    use rustix::thread::{sched_getaffinity, sched_setaffinity, CpuSet};
    let Ok(allowed) = sched_getaffinity(None) else {
        return;
    };
    let Some(other) = (0..CpuSet::MAX_CPU).find(|&c| c != here && allowed.is_set(c)) else {
        return;
    };
    let mut only = CpuSet::new();
    only.set(other);
    // Pinned to the other core, the thread moves there now; then it is free
    // again (it stays where it is until the scheduler has a reason to move
    // it).
    if sched_setaffinity(None, &only).is_ok() {
        let _ = sched_setaffinity(None, &allowed);
    }
}

/// The core the calling thread runs on, from `/proc` (`sched_getcpu` in
/// rustix reads the vDSO, which some environments, valgrind for one, do not
/// map).
#[cfg(target_os = "linux")]
fn current_cpu() -> Option<usize> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    // Fields after the command name, which is in parentheses and may hold
    // spaces: the state is field 3, the last core field 39.
    let after_name = stat.get(stat.rfind(')')? + 1..)?;
    after_name.split_whitespace().nth(39 - 3)?.parse().ok()
}

#[cfg(not(target_os = "linux"))]
fn step_aside(_here: usize) {}

#[cfg(not(target_os = "linux"))]
fn current_cpu() -> Option<usize> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

    /// From `min` items the halves are split in order; below, all of them
    /// go to the first.
    #[test]
    fn in_halves_splits_in_order_from_min() {
        let items: Vec<u32> = (0..9).collect();
        let [a, b] = in_halves(&items, 4, <[u32]>::to_vec);
        assert_eq!((a, b), (vec![0, 1, 2, 3], vec![4, 5, 6, 7, 8]));
        let [a, b] = in_halves(&items, 10, <[u32]>::to_vec);
        assert_eq!((a, b), (items.clone(), vec![]));
        // Results come back in number order, whichever thread made them.
        assert_eq!(
            in_turn(Builder::new(), 50, |i| i * 2),
            (0..50).map(|i| i * 2).collect::<Vec<_>>()
        );
        assert!(in_turn(Builder::new(), 0, |i| i).is_empty());
    }

    /// A helper's result is in its slot once the scope has ended.
    #[test]
    fn spawn_into_leaves_the_result_in_the_slot() {
        let slot = OnceLock::new();
        let mine = std::thread::scope(|s| {
            let helper = spawn_into(s, Builder::new(), &slot, || (0..1000u64).sum::<u64>());
            assert!(helper.is_some());
            7
        });
        assert_eq!((mine, slot.into_inner()), (7, Some(499_500)));
    }

    /// A spin ends when its condition stops holding, or at its limit; a
    /// finished helper is seen as such at once.
    #[test]
    fn spins_end_on_the_event_or_at_the_limit() {
        let set = AtomicBool::new(false);
        let since = Instant::now();
        std::thread::scope(|s| {
            s.spawn(|| set.store(true, Ordering::Relaxed));
            assert!(spin_while(Duration::from_secs(10), || !set.load(Ordering::Relaxed)));
        });
        assert!(since.elapsed() < Duration::from_secs(10));
        let since = Instant::now();
        assert!(!spin_while(Duration::from_millis(5), || true));
        assert!(since.elapsed() >= Duration::from_millis(5));
        let slot = OnceLock::new();
        std::thread::scope(|s| {
            let helper = spawn_into(s, Builder::new(), &slot, || 7).expect("a helper");
            // Started or not, finish returns; a helper that had started
            // before it was called is done when it returns.
            let started = helper.started.load(Ordering::Relaxed);
            helper.finish(Duration::from_secs(10));
            if started {
                assert!(helper.handle.is_finished());
            }
        });
        assert_eq!(slot.into_inner(), Some(7));
    }

    /// The core read from /proc is one the thread may run on.
    #[cfg(target_os = "linux")]
    #[test]
    fn current_cpu_is_an_allowed_core() {
        let cpu = current_cpu().expect("a core from /proc/thread-self/stat");
        let allowed = rustix::thread::sched_getaffinity(None).expect("the affinity mask");
        assert!(allowed.is_set(cpu), "{cpu}");
    }

    /// A thread started while its creator stays busy starts within a few
    /// milliseconds (without `make_room`, it could wait for a scheduler
    /// tick), and the creator can still run on every core it could before.
    #[test]
    fn new_threads_start_while_the_creator_works() {
        #[cfg(target_os = "linux")]
        let before = rustix::thread::sched_getaffinity(None).ok();
        let created = Instant::now();
        let started_after = AtomicU64::new(0);
        std::thread::scope(|s| {
            let helper = spawn_scoped(s, Builder::new(), || {
                let us = u64::try_from(created.elapsed().as_micros()).unwrap_or(u64::MAX);
                started_after.store(us, Ordering::Relaxed);
            });
            assert!(helper.is_ok());
            // Busy, as a checking thread is.
            while started_after.load(Ordering::Relaxed) == 0
                && created.elapsed() < Duration::from_secs(5)
            {
                std::hint::spin_loop();
            }
        });
        let after = started_after.load(Ordering::Relaxed);
        assert!(after > 0 && after < 5_000_000, "{after}");
        #[cfg(target_os = "linux")]
        assert_eq!(rustix::thread::sched_getaffinity(None).ok(), before);
    }
}
