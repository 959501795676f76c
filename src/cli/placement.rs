//! Where a scan's threads start: each on a core of its own.
//!
//! A scan's threads never sleep, so they stay where the kernel first puts
//! them. On the 2-core VMs we measure on, a new thread was queued behind the
//! busy main thread about one start in four, and moved to the idle core only
//! at a scheduler tick 1 to 4 ms later (a thread spawned by a busy thread
//! started after 40 µs most times, after up to 4.2 ms otherwise); a scan
//! waiting on that took 8% longer on average. So each thread, as it starts,
//! compares its core with those of the threads already placed (the main
//! thread's first), and if it shares one it moves: its affinity is narrowed
//! to the cores no other thread is on, which moves it at once, then set back
//! as it was, so that the kernel stays free to move it later. A thread
//! queued behind the main thread cannot run to do so; the batch the scan
//! runs on ([`toolgate::batch::Batch::run`]) has the main thread yield once
//! after starting the others, which lets it. (Waiting until every thread was
//! placed instead cost the main thread 0.2-0.4 ms, and a scan 2%.)
//!
//! Only on Linux; elsewhere, and whenever a call fails, threads stay where
//! the kernel puts them.

use std::sync::{Mutex, PoisonError};

/// The cores of a scan's placed threads.
pub struct Placement {
    /// The main thread's core first, then one per placed thread
    /// ([`UNKNOWN`] where it could not be read).
    cores: Mutex<Vec<usize>>,
}

/// The core of a thread whose core could not be read: no thread is on it.
const UNKNOWN: usize = usize::MAX;

impl Placement {
    /// Notes the core of the calling (main) thread.
    pub fn new() -> Placement {
        Placement {
            cores: Mutex::new(vec![current_core().unwrap_or(UNKNOWN)]),
        }
    }

    /// Places a thread the main thread started; called first thing on it
    /// (the batch's start hook).
    pub fn arrive(&self) {
        let mut cores = self.cores.lock().unwrap_or_else(PoisonError::into_inner);
        let core = match current_core() {
            Some(core) if cores.contains(&core) => move_off(&cores).unwrap_or(core),
            Some(core) => core,
            None => UNKNOWN,
        };
        cores.push(core);
    }
}

/// The core the calling thread runs on.
#[cfg(target_os = "linux")]
fn current_core() -> Option<usize> {
    nix::sched::sched_getcpu().ok()
}

/// Moves the calling thread to a core not in `taken` that its affinity
/// allows, keeping that affinity; returns the new core. `None` when every
/// allowed core is taken (more threads than cores) or a call failed.
#[cfg(target_os = "linux")]
fn move_off(taken: &[usize]) -> Option<usize> {
    use nix::sched::{sched_getaffinity, sched_setaffinity, CpuSet};
    use nix::unistd::Pid;
    let me = Pid::from_raw(0);
    let allowed = sched_getaffinity(me).ok()?;
    let mut free = allowed;
    let mut any = false;
    for core in 0..CpuSet::count() {
        if allowed.is_set(core).unwrap_or(false) {
            if taken.contains(&core) {
                free.unset(core).ok()?;
            } else {
                any = true;
            }
        }
    }
    if !any {
        return None;
    }
    sched_setaffinity(me, &free).ok()?;
    let core = current_core();
    // Set back even if it could not be narrowed; a thread that cannot be
    // let loose again stays on the free cores, which is where it should be.
    let _ = sched_setaffinity(me, &allowed);
    core
}

#[cfg(not(target_os = "linux"))]
fn current_core() -> Option<usize> {
    None
}

#[cfg(not(target_os = "linux"))]
fn move_off(_taken: &[usize]) -> Option<usize> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_arriving_thread_is_noted_with_its_core() {
        let placement = Placement::new();
        let threads = 3;
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(|| placement.arrive());
            }
        });
        let cores = placement
            .cores
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        assert_eq!(cores.len(), 1 + threads);
        if cfg!(target_os = "linux") {
            assert!(!cores.contains(&UNKNOWN), "{cores:?}");
        }
    }

    /// Moving off a core lands on another one the thread may run on, and
    /// leaves the thread's affinity as it was.
    #[cfg(target_os = "linux")]
    #[test]
    fn move_off_changes_the_core_and_keeps_the_affinity() {
        use nix::sched::{sched_getaffinity, CpuSet};
        use nix::unistd::Pid;
        let me = Pid::from_raw(0);
        let Ok(before) = sched_getaffinity(me) else {
            return;
        };
        let allowed: Vec<usize> = (0..CpuSet::count())
            .filter(|&c| before.is_set(c).unwrap_or(false))
            .collect();
        let Some(core) = current_core() else {
            return;
        };
        match move_off(&[core]) {
            Some(new) => {
                assert_ne!(new, core);
                assert!(allowed.contains(&new), "{new} not in {allowed:?}");
            }
            None => assert_eq!(allowed, [core], "no other core to move to"),
        }
        assert_eq!(move_off(&allowed), None, "every core taken");
        let after = sched_getaffinity(me).map(|s| {
            (0..CpuSet::count())
                .filter(|&c| s.is_set(c).unwrap_or(false))
                .collect::<Vec<_>>()
        });
        assert_eq!(after.ok(), Some(allowed));
    }
}
