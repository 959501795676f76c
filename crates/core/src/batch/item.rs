//! What a batch classifies: a command, and where it runs.

use std::borrow::Cow;

/// One command of a batch and the working directory it runs in, if known
/// (as [`crate::Context`] takes it: absolute, or `None`).
///
/// A trait rather than a struct so that callers pass what they hold,
/// without a copy: `&str`, `String`, `Cow<str>`, or a `(command, cwd)`
/// pair of any of them.
///
/// ```
/// use toolgate_core::batch::Item;
/// assert_eq!("ls".cwd(), None);
/// let here = (String::from("cat x.py"), Some("/app"));
/// assert_eq!((here.command(), here.cwd()), ("cat x.py", Some("/app")));
/// ```
pub trait Item {
    /// The command's text.
    fn command(&self) -> &str;

    /// Its working directory; `None` (the default): unknown.
    fn cwd(&self) -> Option<&str> {
        None
    }
}

impl Item for str {
    fn command(&self) -> &str {
        self
    }
}

impl Item for String {
    fn command(&self) -> &str {
        self
    }
}

impl Item for Box<str> {
    fn command(&self) -> &str {
        self
    }
}

impl Item for Cow<'_, str> {
    fn command(&self) -> &str {
        self
    }
}

impl<T: Item + ?Sized> Item for &T {
    fn command(&self) -> &str {
        (**self).command()
    }

    fn cwd(&self) -> Option<&str> {
        (**self).cwd()
    }
}

/// A command with its working directory.
impl<C: AsRef<str>, D: AsRef<str>> Item for (C, Option<D>) {
    fn command(&self) -> &str {
        self.0.as_ref()
    }

    fn cwd(&self) -> Option<&str> {
        self.1.as_ref().map(AsRef::as_ref)
    }
}
