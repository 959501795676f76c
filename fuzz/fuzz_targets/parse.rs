//! The front end alone: never panics, and every top-level word's span lies
//! inside the input and on character boundaries.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let script = toolgate::shell::parse(text);
    for cmd in script.commands.iter().filter(|c| !c.in_substitution) {
        for w in &cmd.words {
            assert!(w.span.start <= w.span.end && w.span.end <= text.len());
            assert!(text.is_char_boundary(w.span.start) && text.is_char_boundary(w.span.end));
        }
    }
});
