//! Why a batch stopped before the end of its input.

use std::any::Any;
use std::fmt;

/// What a panic carries: the value `catch_unwind` returns, for
/// [`std::panic::resume_unwind`].
pub type Panic = Box<dyn Any + Send + 'static>;

/// Why [`Batch::run`](super::Batch::run) stopped early. Every chunk before
/// the one that failed was delivered.
#[derive(Debug)]
pub enum Stopped<E> {
    /// The sink returned this error.
    Sink(E),
    /// The source, the work, the sink or a thread's start hook panicked
    /// (see the [module docs](super#panics)).
    Panic(Panic),
}

impl<E> Stopped<E> {
    /// What the panic said, when it said it with a string (as `panic!`
    /// does).
    pub fn panic_message(&self) -> Option<&str> {
        let Stopped::Panic(payload) = self else {
            return None;
        };
        payload
            .downcast_ref::<&str>()
            .copied()
            .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
    }
}

/// The sink's error as it is; a panic as `a batch thread panicked: …`.
impl<E: fmt::Display> fmt::Display for Stopped<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stopped::Sink(e) => e.fmt(f),
            Stopped::Panic(_) => match self.panic_message() {
                Some(message) => write!(f, "a batch thread panicked: {message}"),
                None => f.write_str("a batch thread panicked"),
            },
        }
    }
}

/// The sink's error stands for itself, so its source is the error's own.
impl<E: std::error::Error> std::error::Error for Stopped<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Stopped::Sink(e) => e.source(),
            Stopped::Panic(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_says_what_it_said() {
        let caught = |f: fn()| {
            Stopped::<std::io::Error>::Panic(
                std::panic::catch_unwind(f)
                    .err()
                    .unwrap_or_else(|| Box::new(())),
            )
        };
        let literal = caught(|| panic!("plain"));
        let formatted = caught(|| panic!("item {}", 7));
        let other = caught(|| std::panic::panic_any(7u8));
        assert_eq!(literal.to_string(), "a batch thread panicked: plain");
        assert_eq!(formatted.panic_message(), Some("item 7"));
        assert_eq!(other.to_string(), "a batch thread panicked");
        let sink = Stopped::Sink(std::io::Error::other("disk full"));
        assert_eq!(
            (sink.to_string(), sink.panic_message()),
            ("disk full".to_string(), None)
        );
    }
}
