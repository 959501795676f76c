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
        Err(e) => panic!("{e}"),
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

    // The cold path: a fresh classifier (as in a hook process) and its first
    // command, which finds its groups' shipped DFAs (or, for a taxonomy
    // not embedded, compiles them). Loading the taxonomy is not included:
    // see `taxonomy/load_embedded_fast`.
    let mut group = c.benchmark_group("classify_cold");
    group.sample_size(20);
    for (name, cmd) in MIX {
        group.bench_function(*name, |b| {
            b.iter_batched(
                || {
                    let tax =
                        toolgate::taxonomy::load_embedded_fast().unwrap_or_else(|e| panic!("{e}"));
                    Classifier::new(tax).unwrap_or_else(|e| panic!("{e}"))
                },
                |fresh| fresh.classify(black_box(cmd)),
                criterion::BatchSize::LargeInput,
            )
        });
    }
    group.finish();

    // Every line of the shared corpora (or the project's own when they are
    // absent), one thread: commands per second.
    let lines = corpus_lines();
    let bytes: u64 = lines.iter().map(|l| l.len() as u64 + 1).sum();
    let mut group = c.benchmark_group("corpus");
    group.sample_size(10);
    for (unit, throughput) in [
        ("commands", Throughput::Elements(lines.len() as u64)),
        ("bytes", Throughput::Bytes(bytes)),
    ] {
        group.throughput(throughput);
        group.bench_function(format!("classify_all_lines/{unit}"), |b| {
            b.iter(|| {
                lines
                    .iter()
                    .filter(|l| classifier.classify(l).class == toolgate::Class::Safe)
                    .count()
            })
        });
    }
    // What `scan --format jsonl --threads 1` does per line, next to the
    // floor for the job: read each line and write it back as a JSON string.
    group.throughput(Throughput::Elements(lines.len() as u64));
    group.bench_function("scan_jsonl_one_thread", |b| {
        let mut out = Vec::with_capacity(16 << 20);
        b.iter(|| {
            out.clear();
            for l in &lines {
                let label = classifier.classify(l);
                toolgate::report::push_record(&mut out, l, Some(&label), None);
            }
            out.len()
        })
    });
    // The library's batch API on one thread and on every core, side by
    // side in one run: its speed-up is their ratio.
    for threads in [
        1,
        std::thread::available_parallelism().map_or(1, std::num::NonZero::get),
    ] {
        let batch = toolgate::batch::Batch {
            threads,
            ..Default::default()
        };
        group.bench_function(format!("batch_labels/{threads}_threads"), |b| {
            b.iter(|| batch.labels(classifier, &lines).len())
        });
        // The same commands streamed from an iterator, each label handed
        // to a sink in order: what bounded memory costs against a slice.
        group.bench_function(format!("batch_for_each_label/{threads}_threads"), |b| {
            b.iter(|| {
                let mut safe = 0usize;
                let run = batch.for_each_label(classifier, &lines, |_, label| {
                    safe += usize::from(label.class == toolgate::Class::Safe);
                    Ok::<(), std::convert::Infallible>(())
                });
                run.map(|()| safe).ok()
            })
        });
        // The engine as `scan --format jsonl` drives it: each chunk's
        // records rendered into a reused buffer, written in order.
        group.bench_function(format!("batch_run_jsonl/{threads}_threads"), |b| {
            let batch = toolgate::batch::Batch {
                chunk: 512,
                ..batch
            };
            let mut all = Vec::with_capacity(16 << 20);
            b.iter(|| {
                all.clear();
                let run = batch.run(
                    toolgate::batch::IterSource::new(&lines),
                    |chunk: &mut Vec<&String>, out: &mut Vec<u8>| {
                        for l in chunk.iter() {
                            let label = classifier.classify_terse(l);
                            toolgate::report::push_record(out, l, Some(&label), None);
                        }
                    },
                    |out: &mut Vec<u8>| {
                        all.extend_from_slice(out);
                        out.clear();
                        Ok::<(), std::convert::Infallible>(())
                    },
                    |_| {},
                );
                run.map(|()| all.len()).ok()
            })
        });
    }
    group.bench_function("floor_json_echo", |b| {
        let mut out = Vec::with_capacity(16 << 20);
        b.iter(|| {
            out.clear();
            for l in &lines {
                let _ = serde_json::to_writer(&mut out, l);
                out.push(b'\n');
            }
            out.len()
        })
    });
    group.finish();

    let mut group = c.benchmark_group("taxonomy");
    group.sample_size(10);
    let sources = embedded_sources();
    // What a hook process pays: the build-time binary form, patterns left for
    // first use.
    group.bench_function("load_embedded_fast", |b| {
        b.iter(|| {
            toolgate::taxonomy::load_embedded_fast()
                .map(|t| t.rule_count())
                .ok()
        })
    });
    // Every pattern generated, checked and compiled, from the TOML.
    group.bench_function("load_and_compile_everything", |b| {
        b.iter(|| {
            let tax = load_sources(black_box(&sources)).map_err(|e| e.to_string());
            tax.and_then(|t| Classifier::new(t).map_err(|e| e.to_string()))
                .and_then(|c| c.compile_all().map_err(|e| e.to_string()))
        })
    });
    group.finish();
}

fn corpus_lines() -> Vec<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let shared = root.join("../shared/corpus");
    let mut lines = Vec::new();
    if let Ok(dir) = std::fs::read_dir(&shared) {
        let mut files: Vec<_> = dir.filter_map(|e| e.ok().map(|e| e.path())).collect();
        files.sort();
        for f in files
            .iter()
            .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        {
            let text = std::fs::read_to_string(f).unwrap_or_default();
            lines.extend(text.lines().map(String::from));
        }
    }
    if lines.is_empty() {
        let own =
            std::fs::read_to_string(root.join("corpus/shell-traps.jsonl")).unwrap_or_default();
        for l in own.lines() {
            let v: serde_json::Value = serde_json::from_str(l).unwrap_or_default();
            lines.extend(v["command"].as_str().map(String::from));
        }
    }
    lines
}

criterion_group!(benches, bench);
criterion_main!(benches);
