//! Helper threads that start at once.
//!
//! Linux queues a new thread on the core of the thread that creates it and
//! moves it to an idle core only at the next load-balancing tick. While the
//! creating thread keeps its core busy (it goes on checking, or loading), the
//! new thread waits: 0.2-4.4 ms, 3.8 ms typically, measured on the 2-core
//! machines here, which is a fifth of a whole `strata check` of 2,000 models.
//! [`make_room`] avoids the wait: when the new threads have not started
//! after a moment, the creating thread steps over to another core and leaves
//! its own to them (the new thread then starts in about 0.2 ms).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How long new threads get to start on another core by themselves.
const GRACE: Duration = Duration::from_micros(30);

/// Called by a thread right after it started threads that set their flag in
/// `started` as their first action: when one of them has not started within
/// a moment, it is waiting behind the calling thread, which then moves to
/// another core it may run on (and may run on any of them again after).
/// Does nothing elsewhere than on Linux.
pub fn make_room(started: &[AtomicBool]) {
    let all_started = || started.iter().all(|s| s.load(Ordering::Relaxed));
    let since = Instant::now();
    while !all_started() && since.elapsed() < GRACE {
        std::hint::spin_loop();
    }
    if !all_started() {
        step_aside();
    }
}

#[cfg(target_os = "linux")]
fn step_aside() {
    use rustix::thread::{sched_getaffinity, sched_setaffinity, CpuSet};
    let Some(here) = current_cpu() else {
        return;
    };
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
fn step_aside() {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

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
        let started = [AtomicBool::new(false)];
        std::thread::scope(|s| {
            s.spawn(|| {
                started[0].store(true, Ordering::Relaxed);
                let us = u64::try_from(created.elapsed().as_micros()).unwrap_or(u64::MAX);
                started_after.store(us, Ordering::Relaxed);
            });
            make_room(&started);
            // Busy, as a checking thread is.
            while !started[0].load(Ordering::Relaxed) && created.elapsed() < Duration::from_secs(5)
            {
                std::hint::spin_loop();
            }
        });
        assert!(started[0].load(Ordering::Relaxed));
        assert!(started_after.load(Ordering::Relaxed) < 5_000_000);
        #[cfg(target_os = "linux")]
        assert_eq!(rustix::thread::sched_getaffinity(None).ok(), before);
    }
}
