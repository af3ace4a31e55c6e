//! Cooperative interruption of one tool call.
//!
//! A server gives every tool call an [`Interrupt`]: a deadline (the per-call time limit) and a
//! stop flag (set when the client goes away or the server gives up waiting). The call's
//! blocking work runs inside [`Interrupt::run`], which makes the interrupt the current thread's;
//! loops whose length a client controls (capability 1's `like` and `contains` over many rows,
//! BPO's fuzzy matching of a long id) ask [`stopped`] now and then and give up early. Code
//! outside `run` is never stopped, so the engines stay usable on their own.
//!
//! An interrupt may also carry a budget of CPU time ([`Interrupt::on_cpu`]), counted on the
//! thread that made it: work tried on an async worker before it is handed to a blocking
//! thread is stopped by what it cost, not by the time the worker spent descheduled (other
//! processes on the same cores, a container's CPU quota).

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The deadline and stop flag of one call; clones share the flag.
#[derive(Debug, Clone)]
pub struct Interrupt {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    deadline: Instant,
    stop: AtomicBool,
    /// This thread's CPU time after which the call stops, when it has a CPU budget.
    cpu_deadline: Option<Duration>,
}

thread_local! {
    static CURRENT: RefCell<Option<Interrupt>> = const { RefCell::new(None) };
}

impl Interrupt {
    /// An interrupt that fires `limit` from now (or at once when `limit` cannot be added).
    pub fn new(limit: Duration) -> Self {
        let now = Instant::now();
        Self {
            inner: Arc::new(Inner {
                deadline: now.checked_add(limit).unwrap_or(now),
                stop: AtomicBool::new(false),
                cpu_deadline: None,
            }),
        }
    }

    /// An interrupt that fires once the calling thread has spent `cpu` more CPU time, or
    /// `wall` from now (for work that waits rather than computes: a page read from disk). Only
    /// for work run on the thread that made it.
    pub fn on_cpu(cpu: Duration, wall: Duration) -> Self {
        let now = Instant::now();
        Self {
            inner: Arc::new(Inner {
                deadline: now.checked_add(wall).unwrap_or(now),
                stop: AtomicBool::new(false),
                cpu_deadline: Some(thread_cpu_time().saturating_add(cpu)),
            }),
        }
    }

    /// When the call's time is up.
    pub fn deadline(&self) -> Instant {
        self.inner.deadline
    }

    /// Asks the call to stop now.
    pub fn stop(&self) {
        self.inner.stop.store(true, Ordering::Relaxed);
    }

    /// Whether the call was asked to stop or its deadline has passed.
    pub fn is_stopped(&self) -> bool {
        self.inner.stop.load(Ordering::Relaxed)
            || Instant::now() >= self.inner.deadline
            || self
                .inner
                .cpu_deadline
                .is_some_and(|deadline| thread_cpu_time() >= deadline)
    }

    /// Runs `work` with this interrupt as the current thread's (the previous one is restored
    /// afterwards, also when `work` panics).
    pub fn run<R>(&self, work: impl FnOnce() -> R) -> R {
        struct Restore(Option<Interrupt>);
        impl Drop for Restore {
            fn drop(&mut self) {
                let previous = self.0.take();
                CURRENT.with(|c| *c.borrow_mut() = previous);
            }
        }
        let previous = CURRENT.with(|c| c.borrow_mut().replace(self.clone()));
        let _restore = Restore(previous);
        work()
    }
}

/// The CPU time the calling thread has used.
fn thread_cpu_time() -> Duration {
    let mut time = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `time` is a valid, writable timespec; CLOCK_THREAD_CPUTIME_ID is supported by
    // every Linux and BSD kernel and needs no other argument.
    let done = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut time) };
    if done != 0 {
        return Duration::ZERO;
    }
    Duration::new(
        u64::try_from(time.tv_sec).unwrap_or(0),
        u32::try_from(time.tv_nsec).unwrap_or(0),
    )
}

/// Whether the call running on this thread should give up: its interrupt was stopped or its
/// deadline passed. Always `false` outside [`Interrupt::run`]. Costs a clock read.
pub fn stopped() -> bool {
    CURRENT.with(|c| c.borrow().as_ref().is_some_and(Interrupt::is_stopped))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_work_inside_run_is_stopped() {
        assert!(!stopped());
        let interrupt = Interrupt::new(Duration::from_secs(60));
        assert!(!interrupt.run(stopped));
        interrupt.stop();
        assert!(interrupt.run(stopped));
        assert!(!stopped(), "the interrupt ends with run");
    }

    #[test]
    fn the_deadline_stops_the_call() {
        let interrupt = Interrupt::new(Duration::from_millis(20));
        let waited = interrupt.run(|| {
            let start = Instant::now();
            while !stopped() {
                std::thread::sleep(Duration::from_millis(1));
            }
            start.elapsed()
        });
        assert!(waited >= Duration::from_millis(15), "{waited:?}");
        assert!(interrupt.is_stopped());
    }

    #[test]
    fn a_cpu_budget_counts_work_not_waiting() {
        let interrupt = Interrupt::on_cpu(Duration::from_millis(20), Duration::from_secs(60));
        interrupt.run(|| {
            std::thread::sleep(Duration::from_millis(60));
            assert!(!stopped(), "sleeping costs no CPU time");
            let start = Instant::now();
            let mut spins = 0u64;
            while !stopped() {
                spins = std::hint::black_box(spins + 1);
                assert!(start.elapsed() < Duration::from_secs(10), "never stopped");
            }
        });
        assert!(interrupt.is_stopped());
    }

    #[test]
    fn a_cpu_budget_keeps_its_wall_limit() {
        let interrupt = Interrupt::on_cpu(Duration::from_secs(60), Duration::from_millis(20));
        std::thread::sleep(Duration::from_millis(30));
        assert!(interrupt.is_stopped());
    }

    #[test]
    fn nested_runs_restore_the_outer_interrupt() {
        let outer = Interrupt::new(Duration::from_secs(60));
        let inner = Interrupt::new(Duration::from_secs(60));
        inner.stop();
        outer.run(|| {
            assert!(inner.run(stopped));
            assert!(!stopped());
        });
    }
}
