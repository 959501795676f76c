//! Criterion benchmarks for the secret detectors (`toolgate::secrets`): a
//! scan of 1 MiB of text of a few kinds, warm (the keyword table read and
//! the detectors a text calls for already built, as after a look's first
//! file), and the short texts a decision log masks.
//!
//! Run with `cargo bench --bench secrets`. The machines are shared and
//! noisy: compare figures of one run.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use toolgate::secrets;

const MIB: usize = 1 << 20;

/// `seed` repeated and cut to exactly 1 MiB, at a line's end.
fn one_mib(seed: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(MIB + seed.len());
    while out.len() < MIB {
        out.extend_from_slice(seed);
        out.push(b'\n');
    }
    out.truncate(MIB);
    if let Some(last) = out.last_mut() {
        *last = b'\n';
    }
    out
}

/// The workspace's own Rust sources: code full of the words secrets are
/// named with (`token`, `password`, `secret`, `auth`).
fn sources() -> Vec<u8> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/crates/core/src");
    let mut out = Vec::new();
    let mut stack = vec![std::path::PathBuf::from(root)];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for p in paths {
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "rs") {
                out.extend(std::fs::read(&p).unwrap_or_default());
            }
        }
    }
    out
}

fn inputs() -> Vec<(&'static str, Vec<u8>)> {
    let root = env!("CARGO_MANIFEST_DIR");
    let read = |p: &str| std::fs::read(format!("{root}/{p}")).unwrap_or_default();
    let tldr = std::fs::read("/work/shared/corpus/tldr.txt")
        .ok()
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| read("corpus/core.jsonl"));
    let mut with_key = one_mib(&read("Cargo.lock"));
    let key = b"aws_secret_access_key = q1CLrnXp20d8yip6eHZlPEZraMB6Bwr3Yx6Z9Cts\n";
    with_key.truncate(MIB - key.len());
    with_key.extend_from_slice(key);
    vec![
        ("rust_sources", one_mib(&sources())),
        ("shell_commands", one_mib(&tldr)),
        ("lockfile", one_mib(&read("Cargo.lock"))),
        ("lockfile_key_at_end", with_key),
    ]
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("secrets_1mib");
    group.sample_size(20);
    group.throughput(Throughput::Bytes(MIB as u64));
    for (name, text) in inputs() {
        // Warm: what the first scan builds stays built.
        let _ = secrets::scan(&text).count();
        group.bench_function(format!("scan/{name}"), |b| {
            b.iter(|| secrets::scan(black_box(&text)).count())
        });
        group.bench_function(format!("contains_secret/{name}"), |b| {
            b.iter(|| secrets::contains_secret(black_box(&text)).is_some())
        });
    }
    group.finish();

    let mut group = c.benchmark_group("secrets_short");
    for (name, text) in [
        ("plain_command", "cargo test --workspace -- --nocapture"),
        (
            "token_command",
            "GITHUB_TOKEN=ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8 gh pr list",
        ),
    ] {
        let _ = secrets::scan(text.as_bytes()).count();
        group.bench_function(name, |b| {
            b.iter(|| secrets::scan(black_box(text.as_bytes())).count())
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
