//! The engine every batch runs on (see the [module docs](super) for why it
//! is shaped this way): threads that each take a chunk, work on it, and
//! deliver every chunk that is next in order.

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

use super::error::{Panic, Stopped};
use super::source::Source;

/// How a batch runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Batch {
    /// Threads, the calling one included (at least one). With one, no
    /// thread is started and nothing is locked.
    pub threads: usize,
    /// Items per chunk a thread takes at a time.
    pub chunk: usize,
}

impl Default for Batch {
    /// Every core, chunks of 256.
    fn default() -> Batch {
        Batch {
            threads: std::thread::available_parallelism().map_or(1, std::num::NonZero::get),
            chunk: 256,
        }
    }
}

/// Finished chunks a batch may hold per thread while they wait for an
/// earlier one to be delivered: enough that no thread waits on another in
/// the normal course, few enough to keep memory small.
const WAITING_PER_THREAD: usize = 4;

impl Batch {
    /// Runs `work` on every chunk `source` gives, on the batch's threads,
    /// and hands each chunk's output to `sink` in input order.
    ///
    /// `work` gets the chunk (the thread's own, reused from chunk to chunk)
    /// and an output to fill, as the sink left it the last time (or
    /// `O::default()`): a sink that empties what it is given, rather than
    /// replacing it, lets its buffers be reused. The sink is called on any
    /// of the threads, one call at a time; an error from it stops the
    /// batch, with nothing after that chunk delivered. `on_start` runs
    /// first thing on every thread the batch starts (numbered from 1; the
    /// calling thread, 0, works too but is not started), for a caller that
    /// places or names its threads.
    ///
    /// At most `(4 + 2) × threads` chunks are read and not yet delivered
    /// at any time: four per thread waiting for an earlier one, and one per
    /// thread being read or worked on or delivered. A thread that cannot be started leaves its
    /// share to the others. On panics, see the [module docs](super#panics).
    ///
    /// ```
    /// use toolgate_core::batch::{Batch, IterSource};
    /// use toolgate_core::Classifier;
    /// let classifier = Classifier::embedded()?;
    /// let lines = (0..1000).map(|i| format!("cat notes{i}.txt"));
    /// let mut jsonl = Vec::new();
    /// Batch { threads: 2, chunk: 64 }.run(
    ///     IterSource::new(lines),
    ///     // Render a chunk's records into one reused buffer.
    ///     |chunk: &mut Vec<String>, out: &mut Vec<u8>| {
    ///         for command in chunk.iter() {
    ///             let label = classifier.classify(command);
    ///             out.extend_from_slice(format!("{}\n", label.class).as_bytes());
    ///         }
    ///     },
    ///     |out: &mut Vec<u8>| {
    ///         jsonl.extend_from_slice(out);
    ///         out.clear();
    ///         Ok::<(), std::convert::Infallible>(())
    ///     },
    ///     |_thread| {},
    /// ).map_err(|e| e.to_string())?;
    /// assert_eq!(jsonl.split(|&b| b == b'\n').filter(|l| !l.is_empty()).count(), 1000);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn run<S, O, E>(
        &self,
        mut source: S,
        work: impl Fn(&mut S::Chunk, &mut O) + Sync,
        sink: impl FnMut(&mut O) -> Result<(), E> + Send,
        on_start: impl Fn(usize) + Sync,
    ) -> Result<(), Stopped<E>>
    where
        S: Source,
        O: Default + Send,
        E: Send,
    {
        let chunk = self.chunk.max(1);
        // No more threads than chunks: a thread that finds nothing to do
        // costs its start.
        let most = source
            .size_hint()
            .map_or(usize::MAX, |n| n.div_ceil(chunk).max(1));
        let threads = self.threads.clamp(1, most);
        if threads == 1 {
            return alone(&mut source, chunk, &work, sink);
        }
        let shared = Shared {
            chunk,
            reading: Mutex::new(Reading {
                source,
                chunks: 0,
                ended: false,
            }),
            order: Mutex::new(Order {
                waiting: BTreeMap::new(),
                written: 0,
                writing: false,
                sleepers: 0,
                spares: Vec::new(),
                failure: None,
            }),
            room: Condvar::new(),
            sink: Mutex::new(sink),
            work,
            max_waiting: threads.saturating_mul(WAITING_PER_THREAD),
        };
        std::thread::scope(|scope| {
            let (shared, on_start) = (&shared, &on_start);
            let mut started = false;
            for me in 1..threads {
                let spawned = std::thread::Builder::new().spawn_scoped(scope, move || {
                    match catch_unwind(AssertUnwindSafe(|| on_start(me))) {
                        Ok(()) => shared.work(me),
                        Err(panic) => shared.fail(Stopped::Panic(panic)),
                    }
                });
                if spawned.is_err() {
                    break;
                }
                started = true;
            }
            // A thread started on the calling thread's core is queued
            // behind it, and cannot run (nor run `on_start`, which may
            // move it) until it yields.
            if started {
                std::thread::yield_now();
            }
            shared.work(0);
        });
        let order = shared
            .order
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        match order.failure {
            Some(failure) => Err(failure),
            None => {
                // The thread that finished the last chunk delivered every
                // one before it.
                debug_assert!(order.waiting.is_empty());
                Ok(())
            }
        }
    }
}

/// A batch on the calling thread alone: no thread, no lock.
fn alone<S: Source, O: Default, E>(
    source: &mut S,
    size: usize,
    work: &impl Fn(&mut S::Chunk, &mut O),
    mut sink: impl FnMut(&mut O) -> Result<(), E>,
) -> Result<(), Stopped<E>> {
    let mut chunk = S::Chunk::default();
    let mut out = O::default();
    loop {
        match catch_unwind(AssertUnwindSafe(|| source.fill(size, &mut chunk))) {
            Ok(true) => {}
            Ok(false) => return Ok(()),
            Err(panic) => return Err(Stopped::Panic(panic)),
        }
        catch_unwind(AssertUnwindSafe(|| work(&mut chunk, &mut out))).map_err(Stopped::Panic)?;
        catch_unwind(AssertUnwindSafe(|| sink(&mut out)))
            .map_err(Stopped::Panic)?
            .map_err(Stopped::Sink)?;
    }
}

/// What the threads of a batch share.
struct Shared<S, O, E, W, K> {
    /// Items per chunk.
    chunk: usize,
    reading: Mutex<Reading<S>>,
    order: Mutex<Order<O, E>>,
    /// Signalled when chunks are delivered or the batch fails, for threads
    /// that wait because too many chunks are waiting.
    room: Condvar,
    /// Locked only by the thread that delivers (see [`Order::writing`]).
    sink: Mutex<K>,
    work: W,
    /// At most this many finished chunks wait to be delivered.
    max_waiting: usize,
}

/// The source, and how many chunks it gave: chunks are numbered as they are
/// read, so that their numbers follow the input.
struct Reading<S> {
    source: S,
    chunks: u64,
    /// Whether the source has ended (or panicked): it is not asked again.
    ended: bool,
}

/// A finished chunk: the thread that ran it, and its output, or the panic
/// that stopped it.
type Finished<O> = (usize, Result<O, Panic>);

/// Finished chunks put back in input order.
struct Order<O, E> {
    /// Finished chunks that wait for an earlier one, by number.
    waiting: BTreeMap<u64, Finished<O>>,
    /// How many chunks are delivered.
    written: u64,
    /// Whether a thread is delivering. Only that thread calls the sink; the
    /// others leave their chunks in `waiting`, and it delivers them before
    /// it stops.
    writing: bool,
    /// Threads waiting for `room`.
    sleepers: usize,
    /// Delivered chunks' outputs, by the thread that ran them: an output
    /// goes back to its own thread, since glibc's malloc takes a lock to
    /// grow or free memory another thread's arena gave out, and a scan's
    /// threads then slept on it.
    spares: Vec<Vec<O>>,
    /// Why the batch stopped early.
    failure: Option<Stopped<E>>,
}

/// Locks a mutex. Every callback runs under `catch_unwind`, outside the
/// engine's own locks, so a poisoned lock was left by nothing half-done.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl<S, O, E, W, K> Shared<S, O, E, W, K>
where
    S: Source,
    O: Default,
    W: Fn(&mut S::Chunk, &mut O),
    K: FnMut(&mut O) -> Result<(), E>,
{
    /// One thread's share of the batch, `me` being the thread's number:
    /// chunks until the source or the batch ends.
    fn work(&self, me: usize) {
        let mut chunk = S::Chunk::default();
        let mut out = O::default();
        while let Some((number, read)) = self.next(&mut chunk) {
            let done = read.and_then(|()| {
                catch_unwind(AssertUnwindSafe(|| (self.work)(&mut chunk, &mut out)))
                    .map(|()| std::mem::take(&mut out))
            });
            out = self.finish(number, (me, done));
        }
    }

    /// Reads the next chunk into `chunk` and returns its number (with the
    /// panic of a source that panicked instead), or `None` when the source
    /// or the batch has ended. Waits first while too many finished chunks
    /// wait to be delivered.
    fn next(&self, chunk: &mut S::Chunk) -> Option<(u64, Result<(), Panic>)> {
        let mut order = lock(&self.order);
        while order.failure.is_none() && order.waiting.len() >= self.max_waiting {
            order.sleepers += 1;
            order = self
                .room
                .wait(order)
                .unwrap_or_else(PoisonError::into_inner);
            order.sleepers -= 1;
        }
        if order.failure.is_some() {
            return None;
        }
        drop(order);
        let mut reading = lock(&self.reading);
        if reading.ended {
            return None;
        }
        let reading = &mut *reading;
        let read = match catch_unwind(AssertUnwindSafe(|| reading.source.fill(self.chunk, chunk))) {
            Ok(true) => Ok(()),
            Ok(false) => {
                reading.ended = true;
                return None;
            }
            // Its number is the one the chunk would have had, so that
            // every chunk before it is delivered first.
            Err(panic) => {
                reading.ended = true;
                Err(panic)
            }
        };
        reading.chunks += 1;
        Some((reading.chunks - 1, read))
    }

    /// Hands in a finished chunk and, unless another thread is delivering,
    /// delivers every chunk that is next in order. Returns an output for
    /// the thread's next chunk.
    fn finish(&self, number: u64, finished: Finished<O>) -> O {
        let me = finished.0;
        let mut order = lock(&self.order);
        order.waiting.insert(number, finished);
        if !order.writing {
            order.writing = true;
            while order.failure.is_none() {
                let next = order.written;
                let Some((owner, done)) = order.waiting.remove(&next) else {
                    break;
                };
                drop(order);
                let delivered = done.map_err(Stopped::Panic).and_then(|mut out| {
                    let mut sink = lock(&self.sink);
                    match catch_unwind(AssertUnwindSafe(|| (*sink)(&mut out))) {
                        Ok(Ok(())) => Ok(out),
                        Ok(Err(e)) => Err(Stopped::Sink(e)),
                        Err(panic) => Err(Stopped::Panic(panic)),
                    }
                });
                order = lock(&self.order);
                match delivered {
                    Ok(out) => {
                        order.written += 1;
                        // Grown as threads deliver, not sized for the
                        // threads asked for: some may not start.
                        if order.spares.len() <= owner {
                            order.spares.resize_with(owner + 1, Vec::new);
                        }
                        order.spares[owner].push(out);
                    }
                    Err(failure) => order.failure = Some(failure),
                }
                if order.sleepers > 0 {
                    self.room.notify_all();
                }
            }
            order.writing = false;
        }
        order
            .spares
            .get_mut(me)
            .and_then(Vec::pop)
            .unwrap_or_default()
    }

    /// Stops the batch (keeping an earlier failure, the cause).
    fn fail(&self, failure: Stopped<E>) {
        let mut order = lock(&self.order);
        if order.failure.is_none() {
            order.failure = Some(failure);
        }
        self.room.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use std::convert::Infallible;
    use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};

    use super::*;
    use crate::batch::IterSource;

    /// Every item of `0..n` through `work`, and what the sink got, in the
    /// order it got it.
    fn run_numbers(
        batch: Batch,
        n: usize,
        work: impl Fn(usize) -> usize + Sync,
    ) -> (Vec<usize>, Result<(), Stopped<Infallible>>) {
        let mut got = Vec::new();
        let run = batch.run(
            IterSource::new(0..n),
            |chunk: &mut Vec<usize>, out: &mut Vec<usize>| {
                out.extend(chunk.iter().map(|&i| work(i)))
            },
            |out: &mut Vec<usize>| {
                got.append(out);
                Ok(())
            },
            |_| {},
        );
        (got, run)
    }

    /// Work that takes longer on some items than others, so that chunks
    /// finish out of order.
    fn uneven(i: usize) -> usize {
        let spins = if i.is_multiple_of(7) { 20_000 } else { 10 };
        (0..spins).fold(i, |a, b| std::hint::black_box(a ^ b)) ^ (0..spins).fold(0, |a, b| a ^ b)
    }

    #[test]
    fn order_is_kept_with_many_threads_and_small_chunks() {
        let want: Vec<usize> = (0..5000).collect();
        for (threads, chunk) in [(1, 1), (8, 1), (8, 3), (5, 64), (2, 10_000)] {
            let (got, run) = run_numbers(Batch { threads, chunk }, 5000, uneven);
            assert!(run.is_ok());
            assert_eq!(got, want, "{threads} threads, chunks of {chunk}");
        }
    }

    #[test]
    fn one_thread_gives_what_many_give() {
        let (one, _) = run_numbers(
            Batch {
                threads: 1,
                chunk: 5,
            },
            777,
            |i| i * 3,
        );
        for threads in [2, 3, 16] {
            let (many, _) = run_numbers(Batch { threads, chunk: 5 }, 777, |i| i * 3);
            assert_eq!(many, one, "{threads} threads");
        }
    }

    #[test]
    fn an_empty_source_calls_nothing() {
        for threads in [1, 4] {
            let calls = AtomicUsize::new(0);
            let run = Batch { threads, chunk: 8 }.run(
                IterSource::new(std::iter::empty::<usize>()),
                |_: &mut Vec<usize>, _: &mut ()| {
                    calls.fetch_add(1, SeqCst);
                },
                |_: &mut ()| {
                    calls.fetch_add(1, SeqCst);
                    Ok::<(), Infallible>(())
                },
                |_| {
                    calls.fetch_add(1, SeqCst);
                },
            );
            assert!(run.is_ok());
            assert_eq!(calls.load(SeqCst), 0, "{threads} threads");
        }
    }

    /// An iterator of unknown length, so that the batch starts every
    /// thread, which records how far ahead of the sink it was pulled.
    #[test]
    fn only_a_few_chunks_are_read_ahead_of_the_sink() {
        let (threads, chunk, n) = (4, 8, 20_000);
        let pulled = AtomicUsize::new(0);
        let delivered = AtomicUsize::new(0);
        let ahead = AtomicUsize::new(0);
        let items = std::iter::from_fn(|| {
            let i = pulled.fetch_add(1, SeqCst);
            ahead.fetch_max(i + 1 - delivered.load(SeqCst), SeqCst);
            (i < n).then_some(i)
        });
        let mut got = 0;
        let run = Batch { threads, chunk }.run(
            IterSource::new(items),
            |chunk: &mut Vec<usize>, out: &mut Vec<usize>| {
                // The first chunk holds the others back: they run ahead
                // until the batch makes them wait.
                if chunk.first() == Some(&0) {
                    std::thread::sleep(std::time::Duration::from_millis(50));
                }
                out.append(chunk);
            },
            |out: &mut Vec<usize>| {
                got += out.len();
                delivered.fetch_add(out.len(), SeqCst);
                out.clear();
                Ok::<(), Infallible>(())
            },
            |_| {},
        );
        assert!(run.is_ok());
        assert_eq!(got, n);
        let bound = (WAITING_PER_THREAD + 2) * threads * chunk;
        let ahead = ahead.load(SeqCst);
        assert!(
            ahead <= bound,
            "{ahead} items read ahead, more than {bound}"
        );
    }

    /// A panic on any thread stops the batch: the sink has every chunk
    /// before the one that panicked, and nothing is left waiting forever.
    #[test]
    fn a_panicking_item_stops_the_batch_after_the_chunks_before_it() {
        for threads in [1, 2, 4] {
            let batch = Batch { threads, chunk: 10 };
            let (got, run) = run_numbers(batch, 2000, |i| {
                assert_ne!(i, 503, "item 503 is bad");
                i
            });
            assert_eq!(got, (0..500).collect::<Vec<_>>(), "{threads} threads");
            let message = run.as_ref().err().and_then(Stopped::panic_message);
            assert_eq!(
                message,
                Some("assertion `left != right` failed: item 503 is bad\n  left: 503\n right: 503")
            );
        }
    }

    #[test]
    fn a_panicking_source_or_sink_stops_the_batch_too() {
        for threads in [1, 3] {
            let batch = Batch { threads, chunk: 10 };
            let items = (0..1000).inspect(|&i| assert_ne!(i, 300, "source"));
            let mut got = Vec::new();
            let run = batch.run(
                IterSource::new(items),
                |chunk: &mut Vec<usize>, out: &mut Vec<usize>| out.append(chunk),
                |out: &mut Vec<usize>| {
                    got.append(out);
                    Ok::<(), Infallible>(())
                },
                |_| {},
            );
            assert!(matches!(run, Err(Stopped::Panic(_))));
            assert_eq!(got, (0..300).collect::<Vec<_>>(), "{threads} threads");

            let mut got = Vec::new();
            let run = batch.run(
                IterSource::new(0..1000),
                |chunk: &mut Vec<usize>, out: &mut Vec<usize>| out.append(chunk),
                |out: &mut Vec<usize>| {
                    assert_ne!(out.first(), Some(&700), "sink");
                    got.append(out);
                    Ok::<(), Infallible>(())
                },
                |_| {},
            );
            assert!(matches!(run, Err(Stopped::Panic(_))));
            assert_eq!(got, (0..700).collect::<Vec<_>>(), "{threads} threads");
        }
    }

    #[test]
    fn a_panicking_start_hook_stops_the_batch() {
        let mut got = Vec::new();
        let run = Batch {
            threads: 3,
            chunk: 1,
        }
        .run(
            IterSource::new(0..100_000),
            |chunk: &mut Vec<usize>, out: &mut Vec<usize>| out.append(chunk),
            |out: &mut Vec<usize>| {
                got.append(out);
                Ok::<(), Infallible>(())
            },
            |me| assert_ne!(me, 2, "thread 2 cannot start"),
        );
        assert!(matches!(run, Err(Stopped::Panic(_))));
        assert!(got.iter().copied().eq(0..got.len()), "a prefix, in order");
    }

    #[test]
    fn a_sink_error_stops_the_batch_with_nothing_after_it() {
        for threads in [1, 4] {
            let mut got = Vec::new();
            let run = Batch { threads, chunk: 10 }.run(
                IterSource::new(0..1000),
                |chunk: &mut Vec<usize>, out: &mut Vec<usize>| out.append(chunk),
                |out: &mut Vec<usize>| {
                    if out.first() == Some(&70) {
                        return Err("disk full");
                    }
                    got.append(out);
                    Ok(())
                },
                |_| {},
            );
            assert!(matches!(run, Err(Stopped::Sink("disk full"))));
            assert_eq!(got, (0..70).collect::<Vec<_>>(), "{threads} threads");
        }
    }

    #[test]
    fn every_started_thread_runs_the_start_hook_first() {
        let threads = 4;
        let started = Mutex::new(Vec::new());
        let run = Batch { threads, chunk: 1 }.run(
            IterSource::new(0..1000),
            |_: &mut Vec<usize>, _: &mut ()| {},
            |_: &mut ()| Ok::<(), Infallible>(()),
            |me| lock(&started).push(me),
        );
        assert!(run.is_ok());
        let mut started = started.into_inner().unwrap_or_else(PoisonError::into_inner);
        started.sort_unstable();
        assert_eq!(started, [1, 2, 3]);
    }

    /// No more threads than chunks, when the source knows its length.
    #[test]
    fn a_short_source_starts_no_idle_thread() {
        let started = AtomicUsize::new(0);
        let run = Batch {
            threads: 8,
            chunk: 10,
        }
        .run(
            IterSource::new(0..25),
            |_: &mut Vec<usize>, _: &mut ()| {},
            |_: &mut ()| Ok::<(), Infallible>(()),
            |_| {
                started.fetch_add(1, SeqCst);
            },
        );
        assert!(run.is_ok());
        assert_eq!(
            started.load(SeqCst),
            2,
            "three chunks: two threads besides the caller"
        );
    }

    /// What the sink leaves in an output comes back to the work: buffers
    /// are reused, not made afresh for every chunk.
    #[test]
    fn outputs_are_reused() {
        for threads in [1, 2, 4] {
            let fresh = AtomicUsize::new(0);
            let run = Batch { threads, chunk: 4 }.run(
                IterSource::new(0..4000),
                |chunk: &mut Vec<usize>, out: &mut Vec<usize>| {
                    if out.capacity() == 0 {
                        fresh.fetch_add(1, SeqCst);
                    }
                    out.append(chunk);
                },
                |out: &mut Vec<usize>| {
                    out.clear();
                    Ok::<(), Infallible>(())
                },
                |_| {},
            );
            assert!(run.is_ok());
            // A thread makes an output only when none of its own is spare:
            // at most as many as it can have out at once, which is every
            // chunk that may wait (the limit, overshot by one per thread
            // that checked it before finishing), one being delivered and
            // one in hand. One slow thread can make the others' chunks all
            // wait, so the bound is per thread, not per thread's share.
            // Without reuse it would be one per chunk.
            let chunks = 4000 / 4;
            let per_thread = threads * WAITING_PER_THREAD + threads + 2;
            let most = per_thread * threads;
            let fresh = fresh.load(SeqCst);
            assert!(most < chunks / 10);
            assert!(fresh <= most, "{fresh} fresh outputs for {chunks} chunks");
        }
    }
}
