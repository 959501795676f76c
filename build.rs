//! Link settings of the `toolgate` binary.

fn main() {
    pack_relative_relocations();
}

/// Packs the binary's relative relocations (`DT_RELR`, glibc 2.36 and
/// later): the dynamic loader then applies its ~12,000 pointer fix-ups from
/// a bitmap instead of a table entry each, which takes about a tenth off
/// the instructions of a hook process, and keeps every hardening (position
/// independence, read-only relocations, immediate binding). A linker that
/// does not know the option ignores it. (See BENCHMARKS.md.)
fn pack_relative_relocations() {
    let var = |k: &str| std::env::var(k).unwrap_or_default();
    if var("CARGO_CFG_TARGET_OS") == "linux" && var("CARGO_CFG_TARGET_ENV") == "gnu" {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}
