//! A batch one item at a time: labels and decisions, streamed from an
//! iterator or taken from a slice, all on [`Batch::run`].

use std::convert::Infallible;
use std::ops::Range;

use serde_json::json;

use super::engine::Batch;
use super::error::Stopped;
use super::item::Item;
use super::source::{Indices, IterSource};
use crate::classify::{Classifier, Context};
use crate::gate::{Gate, Verdict};
use crate::label::Label;

impl Batch {
    /// The label of every command, in input order.
    ///
    /// ```
    /// use toolgate_core::batch::Batch;
    /// use toolgate_core::{Class, Classifier};
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
        self.collect(commands.len(), |i| {
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
        self.collect(commands.len(), |i| {
            let cwd = cwds.get(i).and_then(|c| c.as_ref()).map(AsRef::as_ref);
            classifier.classify_in(commands[i].as_ref(), &Context { cwd })
        })
    }

    /// What `gate` decides for every command, run by the tool `tool` (a
    /// shell tool, such as `"shell"` or `"Bash"`) in its item's working
    /// directory, in input order.
    ///
    /// ```
    /// use toolgate_core::batch::Batch;
    /// use toolgate_core::gate::{Decision, Gate, GateConfig, Mode, ModeSetting};
    /// let classifier = toolgate_core::Classifier::embedded()?;
    /// let gate = Gate::new(classifier, GateConfig { mode: ModeSetting::Known(Mode::Balanced), ..GateConfig::default() });
    /// let calls = [("cat /app/main.py", Some("/app")), ("rm -rf ~", None)];
    /// let verdicts = Batch::default().decisions(&gate, "shell", &calls);
    /// let decisions: Vec<Decision> = verdicts.iter().map(|v| v.decision).collect();
    /// assert_eq!(decisions, [Decision::Allow, Decision::Ask]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn decisions<I: Item + Sync>(
        &self,
        gate: &Gate<'_>,
        tool: &str,
        items: &[I],
    ) -> Vec<Verdict> {
        self.collect(items.len(), |i| decide(gate, tool, &items[i]))
    }

    /// Streams `items` through `work` on the batch's threads, and hands
    /// each result to `sink` in input order. Only a few chunks of items are
    /// pulled ahead of the sink (see [`Batch::run`]), so the input may be
    /// as long as it likes. `work` takes each item by value, so that a
    /// result can carry its item (which the iterator no longer has).
    ///
    /// ```
    /// use toolgate_core::batch::Batch;
    /// let mut lengths = Vec::new();
    /// Batch { threads: 2, chunk: 2 }
    ///     .for_each(["ls", "git status", "pwd"], str::len, |n| {
    ///         lengths.push(n);
    ///         Ok::<(), std::convert::Infallible>(())
    ///     })
    ///     .map_err(|e| e.to_string())?;
    /// assert_eq!(lengths, [2, 10, 3]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn for_each<I, T, E>(
        &self,
        items: I,
        work: impl Fn(I::Item) -> T + Sync,
        mut sink: impl FnMut(T) -> Result<(), E> + Send,
    ) -> Result<(), Stopped<E>>
    where
        I: IntoIterator,
        I::IntoIter: Send,
        T: Send,
        E: Send,
    {
        self.run(
            IterSource::new(items),
            // Drained here, not when the chunk is refilled: an owned item
            // is then freed by the thread that worked on it, outside the
            // lock on the source.
            |chunk: &mut Vec<I::Item>, out: &mut Vec<T>| out.extend(chunk.drain(..).map(&work)),
            |out: &mut Vec<T>| out.drain(..).try_for_each(&mut sink),
            |_| {},
        )
    }

    /// Labels every item an iterator yields ([`Classifier::classify_in`],
    /// in the item's working directory) and hands each item and its label
    /// to `sink`, in input order, in bounded memory.
    ///
    /// ```
    /// use toolgate_core::batch::Batch;
    /// use toolgate_core::{Class, Classifier};
    /// let classifier = Classifier::embedded()?;
    /// let log = "cat /app/x.py\t/app\nrm -rf /srv\t/srv\n";
    /// let calls = log.lines().filter_map(|l| l.split_once('\t')).map(|(c, d)| (c, Some(d)));
    /// let mut destructive = Vec::new();
    /// Batch::default()
    ///     .for_each_label(classifier, calls, |(command, _), label| {
    ///         if label.class == Class::Destructive {
    ///             destructive.push(command);
    ///         }
    ///         Ok::<(), std::convert::Infallible>(())
    ///     })
    ///     .map_err(|e| e.to_string())?;
    /// assert_eq!(destructive, ["rm -rf /srv"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn for_each_label<I, E>(
        &self,
        classifier: &Classifier,
        items: I,
        mut sink: impl FnMut(I::Item, Label) -> Result<(), E> + Send,
    ) -> Result<(), Stopped<E>>
    where
        I: IntoIterator,
        I::IntoIter: Send,
        I::Item: Item + Send,
        E: Send,
    {
        self.for_each(
            items,
            |item| {
                let label = classifier.classify_in(item.command(), &Context { cwd: item.cwd() });
                (item, label)
            },
            |(item, label)| sink(item, label),
        )
    }

    /// Decides every item an iterator yields as [`Batch::decisions`] does,
    /// and hands each item and its verdict to `sink`, in input order, in
    /// bounded memory.
    pub fn for_each_decision<I, E>(
        &self,
        gate: &Gate<'_>,
        tool: &str,
        items: I,
        mut sink: impl FnMut(I::Item, Verdict) -> Result<(), E> + Send,
    ) -> Result<(), Stopped<E>>
    where
        I: IntoIterator,
        I::IntoIter: Send,
        I::Item: Item + Send,
        E: Send,
    {
        self.for_each(
            items,
            |item| {
                let verdict = decide(gate, tool, &item);
                (item, verdict)
            },
            |(item, verdict)| sink(item, verdict),
        )
    }

    /// `f(i)` for every `i < n`, on the batch's threads, in index order.
    /// A panic in `f` is resumed here, once the batch has stopped.
    fn collect<T: Send>(&self, n: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
        let mut all = Vec::with_capacity(n);
        let run = self.run(
            Indices { next: 0, end: n },
            |range: &mut Range<usize>, out: &mut Vec<T>| out.extend(range.clone().map(&f)),
            |out: &mut Vec<T>| {
                all.append(out);
                Ok::<(), Infallible>(())
            },
            |_| {},
        );
        match run {
            Ok(()) => all,
            Err(Stopped::Panic(panic)) => std::panic::resume_unwind(panic),
            Err(Stopped::Sink(never)) => match never {},
        }
    }
}

/// What `gate` decides for one shell command, as a tool call of `tool`.
fn decide(gate: &Gate<'_>, tool: &str, item: &impl Item) -> Verdict {
    let call = json!({ "command": item.command() });
    gate.decide_in(tool, &call, None, &Context { cwd: item.cwd() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::{GateConfig, Mode, ModeSetting};
    use crate::label::Class::{Safe, Unknown};

    fn classifier() -> &'static Classifier {
        Classifier::embedded().unwrap_or_else(|e| panic!("{e}"))
    }

    /// Commands of the three classes, each different.
    fn commands(n: usize) -> Vec<String> {
        (0..n)
            .map(|i| match i % 3 {
                0 => format!("cat f{i}.txt"),
                1 => format!("rm -rf /tmp/d{i}"),
                _ => format!("npm run t{i}"),
            })
            .collect()
    }

    /// Every label of a stream, in the order the sink got them.
    fn streamed<I>(batch: Batch, items: I) -> Vec<(I::Item, Label)>
    where
        I: IntoIterator,
        I::IntoIter: Send,
        I::Item: Item + Send,
    {
        let mut got = Vec::new();
        let run = batch.for_each_label(classifier(), items, |item, label| {
            got.push((item, label));
            Ok::<(), Infallible>(())
        });
        assert!(run.is_ok());
        got
    }

    const SHAPES: [(usize, usize); 6] = [(1, 256), (2, 1), (2, 7), (4, 256), (8, 3), (3, 5000)];

    #[test]
    fn order_is_kept_whatever_the_threads_and_chunks() {
        let c = classifier();
        let commands = commands(1000);
        let want: Vec<Label> = commands.iter().map(|cmd| c.classify(cmd)).collect();
        for (threads, chunk) in SHAPES {
            let batch = Batch { threads, chunk };
            assert_eq!(batch.labels(c, &commands), want, "{batch:?}");
            let got = streamed(batch, commands.iter());
            assert!(
                got.iter().map(|(c, _)| *c).eq(&commands),
                "{batch:?}: the items come back with their labels"
            );
            assert!(
                got.into_iter().map(|(_, l)| l).eq(want.clone()),
                "{batch:?}"
            );
        }
    }

    #[test]
    fn an_empty_input_gives_nothing() {
        let c = classifier();
        for (threads, chunk) in SHAPES {
            let batch = Batch { threads, chunk };
            assert!(batch.labels::<&str>(c, &[]).is_empty());
            assert!(streamed(batch, Vec::<String>::new()).is_empty());
            let gate = Gate::new(c, GateConfig::default());
            assert!(batch.decisions::<&str>(&gate, "shell", &[]).is_empty());
        }
    }

    #[test]
    fn each_command_has_its_working_directory() {
        let c = classifier();
        let commands = ["cat /app/x.py", "cat /app/x.py", "cat /app/x.py"];
        let cwds = [Some("/app"), None, Some("/srv")];
        let batch = Batch {
            threads: 2,
            chunk: 1,
        };
        let classes: Vec<_> = batch
            .labels_in(c, &commands, &cwds)
            .into_iter()
            .map(|l| l.class)
            .collect();
        assert_eq!(classes, [Safe, Unknown, Unknown]);
        let pairs = commands.into_iter().zip(cwds);
        let streamed: Vec<_> = streamed(batch, pairs)
            .into_iter()
            .map(|(_, l)| l.class)
            .collect();
        assert_eq!(streamed, classes);
    }

    #[test]
    fn decisions_are_the_gates_one_by_one() {
        let c = classifier();
        let config = GateConfig {
            mode: ModeSetting::Known(Mode::Balanced),
            ..GateConfig::default()
        };
        let gate = Gate::new(c, config);
        let items: Vec<(String, Option<&str>)> = commands(300)
            .into_iter()
            .enumerate()
            .map(|(i, cmd)| (cmd, (i % 2 == 0).then_some("/tmp")))
            .collect();
        let want: Vec<(_, _)> = items
            .iter()
            .map(|item| {
                let v = decide(&gate, "shell", item);
                (v.decision, v.source)
            })
            .collect();
        for (threads, chunk) in SHAPES {
            let batch = Batch { threads, chunk };
            let got = batch.decisions(&gate, "shell", &items);
            let got: Vec<_> = got.into_iter().map(|v| (v.decision, v.source)).collect();
            assert_eq!(got, want, "{batch:?}");
            let mut streamed = Vec::new();
            let run = batch.for_each_decision(&gate, "shell", &items, |item, v| {
                streamed.push((item.0.clone(), v.decision, v.source));
                Ok::<(), Infallible>(())
            });
            assert!(run.is_ok());
            assert!(streamed.iter().map(|s| &s.0).eq(items.iter().map(|i| &i.0)));
            assert!(streamed.into_iter().map(|s| (s.1, s.2)).eq(want.clone()));
        }
    }

    #[test]
    fn a_panic_in_the_work_of_a_slice_is_resumed_on_the_caller() {
        let batch = Batch {
            threads: 3,
            chunk: 4,
        };
        let caught = std::panic::catch_unwind(|| {
            batch.collect(100, |i| {
                assert_ne!(i, 57, "item 57");
                i
            })
        });
        let message = caught
            .err()
            .and_then(|p| p.downcast_ref::<String>().cloned());
        assert!(message.is_some_and(|m| m.contains("item 57")));
    }
}
