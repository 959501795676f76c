//! Classifying many commands at once, on every core, in input order.
//!
//! For callers that hold their commands in memory (a Python list, an Arrow
//! array, a log read whole): the commands are cut into chunks, threads take
//! chunks as they finish the last, and every label lands at its command's
//! index. `toolgate scan` streams files instead and has its own scheduler
//! (it writes as it goes, in bounded memory).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::classify::{Classifier, Context};
use crate::label::Label;

/// How a batch runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Batch {
    /// Threads, the calling one included (at least one).
    pub threads: usize,
    /// Commands per chunk a thread takes at a time.
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

impl Batch {
    /// The label of every command, in input order.
    ///
    /// ```
    /// use toolgate::batch::Batch;
    /// use toolgate::{Class, Classifier};
    /// let c = Classifier::embedded()?;
    /// let labels = Batch::default().labels(c, &["git status", "rm -rf /", "npm test"]);
    /// let classes: Vec<Class> = labels.iter().map(|l| l.class).collect();
    /// assert_eq!(classes, [Class::Safe, Class::Destructive, Class::Unknown]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn labels<S: AsRef<str> + Sync>(
        &self,
        classifier: &Classifier,
        commands: &[S],
    ) -> Vec<Label> {
        self.run(commands.len(), |i| {
            classifier.classify(commands[i].as_ref())
        })
    }

    /// [`Batch::labels`] with each command's working directory (`None`:
    /// unknown), as [`Classifier::classify_in`] takes it.
    pub fn labels_in<S: AsRef<str> + Sync, D: AsRef<str> + Sync>(
        &self,
        classifier: &Classifier,
        commands: &[S],
        cwds: &[Option<D>],
    ) -> Vec<Label> {
        self.run(commands.len(), |i| {
            let cwd = cwds.get(i).and_then(|c| c.as_ref()).map(AsRef::as_ref);
            classifier.classify_in(commands[i].as_ref(), &Context { cwd })
        })
    }

    /// `f(i)` for every `i < n`, on the batch's threads, in index order.
    fn run<T: Send>(&self, n: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
        let chunk = self.chunk.max(1);
        let threads = self.threads.clamp(1, n.div_ceil(chunk).max(1));
        if threads == 1 {
            return (0..n).map(f).collect();
        }
        let next = AtomicUsize::new(0);
        // Each finished chunk, by its first index; put in order at the end.
        let done: Mutex<Vec<(usize, Vec<T>)>> = Mutex::new(Vec::new());
        let work = || loop {
            let start = next.fetch_add(chunk, Ordering::Relaxed);
            if start >= n {
                break;
            }
            let part: Vec<T> = (start..(start + chunk).min(n)).map(&f).collect();
            done.lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push((start, part));
        };
        std::thread::scope(|s| {
            for _ in 1..threads {
                s.spawn(work);
            }
            work();
        });
        let mut parts = done
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        parts.sort_unstable_by_key(|(start, _)| *start);
        parts.into_iter().flat_map(|(_, part)| part).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_is_kept_whatever_the_threads_and_chunks() {
        let c = Classifier::embedded().unwrap_or_else(|e| panic!("{e}"));
        let commands: Vec<String> = (0..1000)
            .map(|i| match i % 3 {
                0 => format!("cat f{i}.txt"),
                1 => format!("rm -rf /tmp/d{i}"),
                _ => format!("npm run t{i}"),
            })
            .collect();
        let want: Vec<Label> = commands.iter().map(|cmd| c.classify(cmd)).collect();
        for (threads, chunk) in [(1, 256), (2, 1), (2, 7), (4, 256), (3, 5000)] {
            let got = Batch { threads, chunk }.labels(c, &commands);
            assert_eq!(got, want, "{threads} threads, chunks of {chunk}");
        }
        assert!(Batch::default().labels::<&str>(c, &[]).is_empty());
    }

    #[test]
    fn each_command_has_its_working_directory() {
        let c = Classifier::embedded().unwrap_or_else(|e| panic!("{e}"));
        let commands = ["cat /app/x.py", "cat /app/x.py", "cat /app/x.py"];
        let cwds = [Some("/app"), None, Some("/srv")];
        let classes: Vec<_> = Batch {
            threads: 2,
            chunk: 1,
        }
        .labels_in(c, &commands, &cwds)
        .into_iter()
        .map(|l| l.class)
        .collect();
        use crate::label::Class::{Safe, Unknown};
        assert_eq!(classes, [Safe, Unknown, Unknown]);
    }
}
