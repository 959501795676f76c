//! What a pipeline feeds each of its commands on standard input, and
//! where that input came from (the network, a decoder): a shell reading
//! a downloaded script is the download's to answer for.

use smallvec::SmallVec;

use crate::normalize;
use crate::shell::{Script, SimpleCommand};
use crate::taxonomy::Taxonomy;

/// For each command of a script: the text the script feeds it on stdin (a
/// here-document, a here-string, or `echo …`/`printf …`/`cat <<EOF` in the
/// previous pipeline stage), and the downloader or decoder upstream in its
/// pipeline when the input came from the network or was decoded. One pass,
/// so long pipelines stay linear. `None` for a script without pipes, whose
/// commands only their own here-documents and here-strings feed.
pub(super) fn stdin_feeds(
    script: &Script,
    tax: &Taxonomy,
) -> Option<Vec<(Option<String>, Option<&'static str>)>> {
    if !script
        .commands
        .iter()
        .any(|c| c.stage > 0 || c.upstream.is_some())
    {
        return None;
    }
    // Per pipeline: the last command seen and the first source found among
    // the stages before it. Each command is examined as a source at most
    // once, when a later stage first needs it.
    // (Pipelines of one script are few: a list searched in place, not a
    // hash map allocated for every script with a pipe.)
    type Stage = (usize, Option<&'static str>);
    let mut state: SmallVec<[(usize, Stage); 4]> = SmallVec::new();
    let state_of = |state: &[(usize, Stage)], pipeline: usize| {
        state.iter().find(|(p, _)| *p == pipeline).map(|(_, s)| *s)
    };
    let mut out = Vec::with_capacity(script.commands.len());
    for (i, cmd) in script.commands.iter().enumerate() {
        let mut feed = (cmd.stdin.as_ref().map(|t| t.text.clone()), None);
        if cmd.pipeline == usize::MAX {
            out.push(feed);
            continue;
        }
        if let Some((outer, _)) = cmd.upstream {
            // Inside a compound stage: fed by the outer pipeline.
            if let Some((prev, upstream)) = state_of(&state, outer) {
                feed.1 = upstream.or_else(|| source_of(&script.commands[prev], tax));
            }
            out.push(feed);
            continue;
        }
        let mut source = None;
        if cmd.stage > 0 {
            if let Some((prev, upstream)) = state_of(&state, cmd.pipeline) {
                let p = &script.commands[prev];
                source = upstream.or_else(|| source_of(p, tax));
                if feed.0.is_none() && p.stage + 1 == cmd.stage {
                    feed.0 = literal_output(p);
                }
                feed.1 = source;
            }
        }
        out.push(feed);
        match state.iter_mut().find(|(p, _)| *p == cmd.pipeline) {
            Some((_, s)) => *s = (i, source),
            None => state.push((cmd.pipeline, (i, source))),
        }
    }
    Some(out)
}

/// What a pipeline stage writes, when the script spells it out.
fn literal_output(p: &SimpleCommand) -> Option<String> {
    let name = p.words.first().map(|w| w.text.as_str())?;
    match name {
        "echo" | "printf" => {
            let args: Vec<&str> = p.words[1..]
                .iter()
                .map(|w| w.text.as_str())
                .filter(|t| !matches!(*t, "-e" | "-n" | "-E"))
                .collect();
            Some(format!("{}\n", args.join(" ").replace("\\n", "\n")))
        }
        "cat" if p.words.len() == 1 => p.stdin.as_ref().map(|s| s.text.clone()),
        _ => None,
    }
}

/// The network or decoding source a command is (wrappers peeled), if it is
/// one.
fn source_of(cmd: &SimpleCommand, tax: &Taxonomy) -> Option<&'static str> {
    cmd.words.first()?;
    let name = normalize::peel(&cmd.words, tax).name;
    normalize::DOWNLOADERS
        .iter()
        .chain(DECODERS)
        .find(|d| **d == name)
        .copied()
}

/// Programs that turn hidden text back into a script.
const DECODERS: &[&str] = &["base64", "xxd", "openssl", "gunzip", "zcat", "rev", "tr"];
