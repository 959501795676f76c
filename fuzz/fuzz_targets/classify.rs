//! Any bytes: classification never panics, and never calls a command safe
//! when the front end hit a limit or could not parse it.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let label = toolgate::classify_bytes(data);
    if let Ok(text) = std::str::from_utf8(data) {
        let script = toolgate::shell::parse(text);
        if script.error.is_some() || script.limit.is_some() {
            assert_ne!(label.class, toolgate::Class::Safe, "{text:?}");
        }
    }
});
