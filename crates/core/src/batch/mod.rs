//! Classifying (or deciding) many commands at once, on every core, in input
//! order, in bounded memory.
//!
//! # Three levels
//!
//! - **In memory**: [`Batch::labels`], [`Batch::labels_in`] and
//!   [`Batch::decisions`] take a slice and return a `Vec`, for callers that
//!   hold their commands already (a Python list, an Arrow array, a log read
//!   whole).
//! - **Streamed, one item at a time**: [`Batch::for_each_label`],
//!   [`Batch::for_each_decision`] and the general [`Batch::for_each`] pull
//!   items from an iterator and hand each result, with its item, to a sink
//!   in input order, holding only a few chunks at a time.
//! - **Streamed, a chunk at a time**: [`Batch::run`], the engine the others
//!   are written on, takes a [`Source`] that fills reusable chunks of the
//!   caller's own type, a per-chunk `work` and an in-order `sink`. `toolgate
//!   scan` is a user of it: its chunks are raw bytes read straight from the
//!   input with the positions of their lines, and its work renders records
//!   into a reused buffer, so nothing is copied per line.
//!
//! ```
//! use toolgate_core::batch::Batch;
//! use toolgate_core::{Class, Classifier};
//! let classifier = Classifier::embedded()?;
//! // Any iterator: here a file's lines would do as well.
//! let calls = ["git status", "rm -rf /", "npm test"].into_iter().map(String::from);
//! let mut seen = Vec::new();
//! Batch::default().for_each_label(classifier, calls, |command, label| {
//!     seen.push((command, label.class));
//!     Ok::<(), std::convert::Infallible>(())
//! }).map_err(|e| e.to_string())?;
//! assert_eq!(seen[1], ("rm -rf /".to_string(), Class::Destructive));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # How it runs
//!
//! Every thread, the calling one included, takes the next chunk from the
//! source, works on it, and hands the result to the sink itself if every
//! earlier chunk is delivered; otherwise it leaves it for the thread that
//! is delivering those and takes the next chunk. No thread hands work to
//! another and sleeps until it is done: with one thread reading and writing
//! for a pool of workers, the hand-offs (a wake-up each, 256 context
//! switches in a scan of the shared corpus) cost 18% more CPU than one
//! thread doing everything; this way a scan on two threads costs what one
//! thread does. At most a few finished chunks per thread wait for an
//! earlier one (a thread that falls far behind would otherwise let the
//! others fill memory), so memory is bounded by the chunk size and the
//! thread count, whatever the input's length; the results' buffers are
//! reused.
//!
//! # Panics
//!
//! A panic in the source, the work, the sink or a thread's start hook does
//! not deadlock the batch nor bring down its other threads: the batch stops
//! taking chunks, delivers the results of every chunk before the one that
//! panicked, and [`Batch::run`] returns [`Stopped::Panic`] with the payload
//! (the panic hook has printed its message by then, as usual). The
//! in-memory methods, which return no `Result`, resume the panic on the
//! calling thread, as a plain loop would have panicked.

mod each;
mod engine;
mod error;
mod item;
mod source;

pub use engine::Batch;
pub use error::{Panic, Stopped};
pub use item::Item;
pub use source::{IterSource, Source};
