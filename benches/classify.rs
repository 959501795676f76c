//! Criterion benchmarks for the classifier's stages, on named inputs.
//!
//! Run with `cargo bench --bench classify`. Figures are only meaningful as
//! ratios measured in one run: the machines are shared and noisy.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use toolgate::taxonomy::{embedded_sources, load_sources};
use toolgate::{shell, Classifier};

const SIMPLE: &str = "git status";
const DESTRUCTIVE: &str = "sudo rm -rf /var/lib/data";
const PIPELINE: &str = "find . -name '*.rs' | xargs grep -n TODO | sort | uniq -c";
const HEREDOC: &str = "bash <<'EOF'\ncd /srv && git pull && systemctl restart app\nEOF";
const NESTED: &str = "ssh prod \"docker exec db psql -c 'DELETE FROM sessions'\"";
const LONG_CHAIN: &str =
    "cd a && make && make test && make install && cd .. && rm -rf a && echo done";

const MIX: &[(&str, &str)] = &[
    ("simple", SIMPLE),
    ("destructive", DESTRUCTIVE),
    ("pipeline", PIPELINE),
    ("heredoc", HEREDOC),
    ("nested", NESTED),
    ("long_chain", LONG_CHAIN),
];

fn bench(c: &mut Criterion) {
    let classifier = match Classifier::embedded() {
        Ok(c) => c,
        Err(e) => panic!("embedded taxonomy: {e}"),
    };

    let mut group = c.benchmark_group("parse");
    for (name, cmd) in MIX {
        group.throughput(Throughput::Bytes(cmd.len() as u64));
        group.bench_function(*name, |b| b.iter(|| shell::parse(black_box(cmd))));
    }
    group.finish();

    let mut group = c.benchmark_group("classify");
    for (name, cmd) in MIX {
        group.throughput(Throughput::Elements(1));
        group.bench_function(*name, |b| b.iter(|| classifier.classify(black_box(cmd))));
    }
    group.finish();

    let mut group = c.benchmark_group("taxonomy");
    group.sample_size(10);
    let sources = embedded_sources();
    group.bench_function("load_and_compile", |b| {
        b.iter(|| {
            let tax = load_sources(black_box(&sources)).map_err(|e| e.to_string());
            tax.and_then(|t| Classifier::new(t).map_err(|e| e.to_string()))
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
