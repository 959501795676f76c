//! The shell front end: reads POSIX shell (with the bash extensions agents
//! write) the way a shell does, and finds every simple command in it.
//!
//! [`parse`] turns text into a [`Script`]: simple commands with quote-removed
//! [`Word`]s, their redirections and here-document bodies, plus whether the
//! script was compound. What those commands *run* in turn (wrappers, `sh -c`
//! strings, `find -exec`) is the normaliser's job, in `crate::normalize`.

mod bytes;
mod command_name;
mod line_masks;
mod parse;
mod plain_line;
mod syntax;

pub use command_name::{case_folded_away, command_name, folds_case};
pub(crate) use parse::parse_into;
pub use parse::{parse, parse_at_depth, MAX_COMMANDS, MAX_DEPTH, MAX_INPUT};
pub use syntax::{
    Limit, ParseError, Place, Redirect, RedirectKind, Script, SimpleCommand, StdinText, Variables,
    Word,
};
