//! Stores the embedded taxonomy in the binary already parsed.
//!
//! The TOML files stay the source people edit and the one `cargo test`
//! validates line by line, examples included. The binary also carries the
//! same files read into the loader's schema (without the examples) and
//! written out as Rust statics, because a hook runs as a fresh process for
//! every tool call and reading statics costs nothing next to parsing TOML.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use regex_automata::dfa::{dense, StartKind};
use regex_automata::nfa::thompson::{self, WhichCaptures};
use regex_automata::util::syntax;
use regex_automata::MatchKind;

#[path = "src/taxonomy/files.rs"]
mod files;
#[allow(dead_code)]
#[path = "src/taxonomy/generate.rs"]
mod generate;
#[allow(dead_code)]
#[path = "src/le_words.rs"]
mod le_words;
#[allow(dead_code)]
#[path = "src/taxonomy/pattern.rs"]
mod pattern;
#[allow(dead_code)]
#[path = "src/matcher/plan.rs"]
mod plan;
#[allow(dead_code)]
#[path = "src/taxonomy/schema.rs"]
mod schema;
#[allow(dead_code)]
#[path = "src/secrets/schema.rs"]
mod secrets_schema;
#[allow(dead_code)]
#[path = "src/spec/format.rs"]
mod spec_format;
#[allow(dead_code)]
#[path = "src/table.rs"]
mod table;
#[path = "src/word_hash.rs"]
mod word_hash;

/// A group whose dense DFA would be bigger than this while it is built is
/// shipped in parts, or left to be compiled on first use: the binary stays
/// small and a rare command pays.
const MAX_DENSE_DFA: usize = 1 << 20;

/// Writes a compiled part of the taxonomy where the crate embeds it from,
/// or fails the build saying where.
fn write_out(path: &Path, bytes: &[u8]) {
    if let Err(e) = std::fs::write(path, bytes) {
        panic!("{}: cannot be written: {e}", path.display());
    }
}

fn main() {
    // The taxonomy is the workspace's, at its root.
    println!("cargo:rerun-if-changed=../../taxonomy");
    let root = Path::new("../../taxonomy");
    write_specs(root);
    write_secrets(root);
    // A taxonomy that cannot be read or parsed fails the build, naming the
    // file and, for TOML, the line: the embedded taxonomy never silently
    // lacks a file. (What a parsed entry means is checked by the loader,
    // whose tests name the entry and field.)
    let files = files::toml_files(root)
        .unwrap_or_else(|e| panic!("taxonomy/: the taxonomy files cannot be listed: {e}"));
    let mut packer = schema::Packer::default();
    let mut commands = None;
    // Rule files as parsed, and the line of each entry in order.
    let mut parsed: Vec<(String, schema::RuleFile)> = Vec::new();
    let mut lines = Vec::new();
    for (rel, path) in &files {
        println!("cargo:rerun-if-changed={}", path.display());
        // Profiles live under the same root but are not taxonomy files.
        let is_commands = rel == "commands.toml";
        if !is_commands && !rel.starts_with("rules/") {
            continue;
        }
        packer.files_seen += 1;
        let text = std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("taxonomy/{rel}: cannot be read: {e}"));
        if is_commands {
            let parsed = toml::from_str::<schema::CommandsFile>(&text)
                .unwrap_or_else(|e| panic!("taxonomy/{rel}: not a valid commands file: {e}"));
            commands = Some(parsed);
            continue;
        }
        let mut rules = toml::from_str::<schema::RuleFile>(&text)
            .unwrap_or_else(|e| panic!("taxonomy/{rel}: not a valid rule file: {e}"));
        let mut ids = files::IdLines::new(&text);
        // The loader refuses a `[[safe]]` table (its tests say so); the
        // build refuses it too rather than embed a file the loader would
        // not load.
        if let Some(refused) = rules.safe.first() {
            panic!(
                "taxonomy/{rel}:{}: entry `{}`: rule files hold destructive shapes only: a safe verdict comes from a command spec in specs/*.toml",
                ids.next_line_of(&refused.id),
                refused.id
            );
        }
        for raw in &mut rules.destructive {
            // Examples and near misses are for the test suite; a process
            // that classifies does not need them.
            raw.examples = Vec::new();
            raw.near_misses = Vec::new();
            let line = ids.next_line_of(&raw.id);
            lines.push(line);
        }
        parsed.push((rel.clone(), rules));
    }
    let mut lines = lines.into_iter();
    for (rel, rules) in &parsed {
        let path = packer.span(rel);
        let mut count = 0;
        for raw in &rules.destructive {
            let kind = generate::kind_of(raw);
            let structured = kind == generate::RuleKind::Command;
            let pattern = generate::raw_pattern(raw).filter(|_| !structured);
            let rule = schema::RuleRecord {
                kind,
                line: le_words::u32_of(lines.next().unwrap_or(0)),
                id: packer.span(&raw.id),
                category: packer.span(&raw.category),
                blast_radius: raw.blast_radius.as_deref().map(|b| packer.span(b)),
                reason: packer.span(&raw.reason),
                command: packer.list(&raw.command),
                pattern: pattern.map(|p| packer.span(p)),
                shape: if structured {
                    packer.shape(raw)
                } else {
                    schema::ShapeLists::default()
                },
            };
            packer.rule(rule);
            count += 1;
        }
        packer.rule_files.push((path, count));
    }
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap_or_else(|_| ".".into()));
    let (index, dfas) = ship_automata(&parsed, commands.as_ref());
    write_out(&out.join("automata_index.data"), index.data());
    write_out(
        &out.join("automata_index.rs"),
        index.to_rust("automata_index.data").as_bytes(),
    );
    write_out(&out.join("automata.dfa"), &dfas);
    if let Some(c) = &commands {
        packer.commands(c);
    }
    assert!(
        packer.within_offsets(),
        "taxonomy/: more than 4 GiB of text, more than the bundle's records can address"
    );
    write_out(&out.join("taxonomy_text.txt"), packer.text.as_bytes());
    write_out(&out.join("taxonomy_lists.data"), &packer.lists);
    write_out(
        &out.join("bundle.rs"),
        packer
            .to_rust("taxonomy_text.txt", "taxonomy_lists.data")
            .as_bytes(),
    );
}

/// Compiles every group of the embedded taxonomy, and every post-check, into
/// a DFA written out as a table (see `src/table.rs`), in the form
/// the run-time matcher loads without compiling (see `src/matcher/plan.rs`):
/// the index, and the tables it points into.
fn ship_automata(
    rule_files: &[(String, schema::RuleFile)],
    commands: Option<&schema::CommandsFile>,
) -> (plan::FlatIndexParts, Vec<u8>) {
    // The DFAs are little-endian; a big-endian target compiles on first use.
    if std::env::var("CARGO_CFG_TARGET_ENDIAN").as_deref() != Ok("little") {
        return (plan::FlatIndexParts::default(), Vec::new());
    }
    let shapes = commands.map(|c| c.shape.clone()).unwrap_or_default();
    let mut ids: Vec<(&str, &[String])> = Vec::new();
    let mut kinds = Vec::new();
    let mut compiled = Vec::new();
    for (_, rules) in rule_files {
        for raw in &rules.destructive {
            let kind = generate::kind_of(raw);
            ids.push((raw.id.as_str(), raw.command.as_slice()));
            kinds.push((kind, raw.command.as_slice()));
            compiled.push(match kind {
                generate::RuleKind::Command => {
                    generate::structured(&raw.command, raw, &shapes).ok()
                }
                _ => Some(generate::Compiled {
                    pattern: generate::raw_pattern(raw).unwrap_or_default().to_string(),
                    tail: None,
                    post: generate::PostCheck::default(),
                }),
            });
        }
    }
    let plan = plan::plan(kinds);
    // Each group's DFA parts go into one blob; the index points into it.
    let mut built: Vec<(bool, (u32, u32))> = Vec::new();
    let mut dfas = Blob::default();
    for (key, rules) in &plan.groups {
        let (_, _, word) = plan::key_parts(key);
        let word = (!word.is_empty()).then_some(word);
        let patterns: Option<Vec<String>> = rules
            .iter()
            .map(|&i| {
                compiled[i]
                    .as_ref()
                    .map(|c| generate::group_pattern(word, c))
            })
            .collect();
        let anchored = patterns
            .as_ref()
            .is_some_and(|p| p.iter().all(|p| p.starts_with('^')));
        let dfa = patterns
            .map(|p| shipped_parts(&p, anchored))
            .unwrap_or_default();
        built.push((anchored, dfas.append(dfa)));
    }
    // Post-check regexes: a yes/no table each, in the same blob (none: the
    // check is compiled at run time).
    let mut check_table = |pattern: &str| {
        let table = table_of(&[pattern.to_string()], false).unwrap_or_default();
        dfas.append(table)
    };
    let posts: Vec<Option<plan::FlatPost>> = compiled
        .iter()
        .map(|c| {
            c.as_ref().map(|c| plan::FlatPost {
                forbid: c
                    .post
                    .forbid
                    .as_deref()
                    .map(|p| (p.as_bytes(), check_table(p))),
                max_args: c.post.max_args,
                min_args: c.post.min_args,
                subcommand_len: c.post.subcommand_len,
            })
        })
        .collect();
    let groups: Vec<plan::IndexGroup> = plan
        .groups
        .iter()
        .zip(&built)
        .map(|((key, rules), (anchored, dfa))| {
            let (special, family, word) = plan::key_parts(key);
            plan::IndexGroup {
                special,
                family,
                word,
                anchored: *anchored,
                rules,
                dfa: *dfa,
            }
        })
        .collect();
    let globs: Vec<(plan::Family, &str)> =
        plan.globs.iter().map(|(f, g)| (*f, g.as_str())).collect();
    let index = plan::write_index(
        ids.len(),
        plan::fingerprint(ids.iter().copied()),
        &groups,
        &globs,
        &posts,
    );
    (index, dfas.bytes)
}

/// The DFA blob. Identical DFAs are stored once: the same patterns filed
/// under several words (raw regexes, post-checks shared by entries) then
/// share their bytes, in the binary and in the cache.
#[derive(Default)]
struct Blob {
    bytes: Vec<u8>,
    stored: HashMap<Vec<u8>, (u32, u32)>,
}

impl Blob {
    /// Where `dfa` is in the blob (offset, length), appending it if new.
    fn append(&mut self, dfa: Vec<u8>) -> (u32, u32) {
        if let Some(&at) = self.stored.get(&dfa) {
            return at;
        }
        let at = (
            le_words::u32_of(self.bytes.len()),
            le_words::u32_of(dfa.len()),
        );
        self.bytes.extend_from_slice(&dfa);
        self.stored.insert(dfa, at);
        at
    }
}

/// A group's patterns as shipped parts (see `plan::parts`): one table for
/// the whole group, or, when that is too big, one per pattern; empty when
/// even that fails and the group is compiled at run time.
fn shipped_parts(patterns: &[String], anchored: bool) -> Vec<u8> {
    if let Some(table) = table_of(patterns, anchored) {
        return plan::write_parts([(0, table)]);
    }
    let mut parts = Vec::new();
    for (i, p) in patterns.iter().enumerate() {
        let Some(table) = table_of(std::slice::from_ref(p), anchored) else {
            if std::env::var("TOOLGATE_BUILD_DEBUG").is_ok() {
                let d = dense_dfa(std::slice::from_ref(p), anchored, MAX_DENSE_DFA);
                println!(
                    "cargo:warning=unshipped pattern (dense ok: {}): {}",
                    d.is_some(),
                    &p[..p.len().min(300)]
                );
            }
            return Vec::new();
        };
        parts.push((i, table));
    }
    plan::write_parts(parts)
}

/// Patterns as a table (see `table_dfa`); `None` when their DFA cannot be
/// built or its table would be too big.
fn table_of(patterns: &[String], anchored: bool) -> Option<Vec<u8>> {
    dense_dfa(patterns, anchored, MAX_DENSE_DFA)
        .and_then(|d| table_dfa(&d, anchored, table::Width::Narrow))
}

/// The largest table shipped (see `src/table.rs`); a bigger group
/// ships in parts, or is compiled at run time.
const MAX_SHIPPED_TABLE: usize = 1 << 20;

/// A DFA as a table of 16-bit next states by byte class, built by walking
/// it from its start state through regex-automata's public API: the dead
/// state first, then the others as found, match states last. `None` when
/// it has a quit state, more states than 16 bits number, or is too big.
fn table_dfa(dfa: &dense::DFA<Vec<u32>>, anchored: bool, width: table::Width) -> Option<Vec<u8>> {
    use regex_automata::dfa::Automaton;
    use regex_automata::util::{primitives::StateID, start};
    let classes = dfa.byte_classes();
    // One column per byte class, then one for the end of the input.
    let column_count = classes.alphabet_len();
    let mut columns = [0u8; 256];
    let mut representative: Vec<Option<u8>> = vec![None; column_count - 1];
    for b in 0..=255u8 {
        let c = classes.get(b);
        columns[usize::from(b)] = c;
        representative[usize::from(c)].get_or_insert(b);
    }
    let representative: Vec<u8> = representative.into_iter().collect::<Option<_>>()?;
    let mode = if anchored {
        regex_automata::Anchored::Yes
    } else {
        regex_automata::Anchored::No
    };
    let start = dfa.start_state(&start::Config::new().anchored(mode)).ok()?;
    // Walk: each state's successors by column, in the order found.
    let mut order: Vec<StateID> = Vec::new();
    let mut number: HashMap<StateID, usize> = HashMap::new();
    let mut rows: Vec<Vec<StateID>> = Vec::new();
    let mut visit = |sid: StateID, order: &mut Vec<StateID>| -> Option<()> {
        if dfa.is_quit_state(sid) {
            return None;
        }
        if !dfa.is_dead_state(sid) && !number.contains_key(&sid) {
            number.insert(sid, order.len());
            order.push(sid);
        }
        Some(())
    };
    visit(start, &mut order)?;
    let mut i = 0;
    while let Some(&sid) = order.get(i) {
        let mut row: Vec<StateID> = representative
            .iter()
            .map(|&b| dfa.next_state(sid, b))
            .collect();
        row.push(dfa.next_eoi_state(sid));
        for &next in &row {
            visit(next, &mut order)?;
        }
        rows.push(row);
        i += 1;
        if order.len() >= usize::from(u16::MAX) {
            return None;
        }
    }
    // Numbers: the dead state 0, then states that match nothing, then the
    // match states.
    let (plain, matching): (Vec<usize>, Vec<usize>) =
        (0..order.len()).partition(|&k| !dfa.is_match_state(order[k]));
    let mut new_number = vec![0usize; order.len()];
    for (n, &k) in plain.iter().chain(&matching).enumerate() {
        new_number[k] = n + 1;
    }
    // Every state but the dead one was numbered as it was found.
    let renumber = |sid: StateID| -> u16 {
        if dfa.is_dead_state(sid) {
            0
        } else {
            new_number[number[&sid]] as u16
        }
    };
    let mut states = vec![table::WrittenState {
        next: vec![0; column_count],
        patterns: Vec::new(),
    }];
    for &k in plain.iter().chain(&matching) {
        let sid = order[k];
        let patterns = if dfa.is_match_state(sid) {
            (0..dfa.match_len(sid))
                .map(|m| dfa.match_pattern(sid, m).as_u32())
                .collect()
        } else {
            Vec::new()
        };
        states.push(table::WrittenState {
            next: rows[k].iter().map(|&n| renumber(n)).collect(),
            patterns,
        });
    }
    let bytes = table::write(
        &columns,
        column_count,
        usize::from(renumber(start)),
        1 + plain.len(),
        dfa.pattern_len(),
        &states,
        width,
    );
    (bytes.len() <= MAX_SHIPPED_TABLE).then_some(bytes)
}

/// Patterns as one minimised dense DFA, with the settings of the run-time
/// lazy DFA (`src/matcher/compile.rs`); `None` when it cannot be built.
fn dense_dfa(
    patterns: &[String],
    anchored: bool,
    size_limit: usize,
) -> Option<dense::DFA<Vec<u32>>> {
    let start = if anchored {
        StartKind::Anchored
    } else {
        StartKind::Unanchored
    };
    let dfa = dense::Builder::new()
        .syntax(syntax::Config::new().unicode(false).utf8(false))
        .thompson(
            thompson::Config::new()
                .utf8(false)
                .which_captures(WhichCaptures::None),
        )
        .configure(
            dense::Config::new()
                .match_kind(MatchKind::All)
                // Fewer states: a smaller binary and fewer pages and cache
                // lines touched per search (6.7 MB of DFAs become 4.9 MB).
                .minimize(true)
                .start_kind(start)
                .dfa_size_limit(Some(size_limit))
                .determinize_size_limit(Some(16 << 20)),
        )
        .build_many(patterns);
    dfa.ok()
}

/// Compiles `taxonomy/specs/*.toml` into `spec_index.rs`, the name index
/// as Rust statics, and `spec_bodies.postcard`, each spec encoded on its own
/// (`spec_format::SpecIndex`), both read in place.
/// A file or spec that does not compile fails the build, naming the file,
/// the line and the field: an embedded taxonomy never silently lacks one.
fn write_specs(root: &Path) {
    let files = files::toml_files(root)
        .unwrap_or_else(|e| panic!("taxonomy/: the spec files cannot be listed: {e}"));
    let mut specs: Vec<Vec<u8>> = Vec::new();
    let mut names: Vec<(String, u32)> = Vec::new();
    // Where each name was first given, as the loader reports a repeat.
    let mut first: std::collections::HashMap<String, String> = Default::default();
    for (rel, path) in &files {
        if !rel.starts_with("specs/") {
            continue;
        }
        let text = std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("taxonomy/{rel}: cannot be read: {e}"));
        let file = toml::from_str::<spec_format::SpecFile>(&text)
            .unwrap_or_else(|e| panic!("taxonomy/{rel}: not a valid spec file: {e}"));
        let lines = spec_format::table_lines(&text, "command");
        for (k, raw) in file.command.iter().enumerate() {
            let line = lines.get(k).copied().unwrap_or(0);
            let spec = spec_format::compile(raw, rel, line).unwrap_or_else(|e| {
                let entry = raw.names.first().map_or("", String::as_str);
                panic!("taxonomy/{rel}:{line}: entry `{entry}`: {e}")
            });
            let index = u32::try_from(specs.len()).unwrap_or(u32::MAX);
            for n in spec.names.iter() {
                if let Some(prev) = first.insert(n.to_string(), format!("{rel}:{line}")) {
                    panic!("taxonomy/{rel}:{line}: duplicate id `{n}` (first defined in {prev})");
                }
                names.push((n.to_string(), index));
            }
            specs.push(postcard::to_allocvec(&spec).unwrap_or_else(|e| {
                let entry = raw.names.first().map_or("", String::as_str);
                panic!("taxonomy/{rel}:{line}: entry `{entry}` cannot be encoded: {e}")
            }));
        }
    }
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap_or_else(|_| ".".into()));
    let index = spec_format::SpecIndexParts::lay_out(&names, &specs);
    write_out(&out.join("spec_bodies.postcard"), index.bodies());
    write_out(
        &out.join("spec_index.rs"),
        index.to_rust("spec_bodies.postcard").as_bytes(),
    );
}

/// Checks `taxonomy/secrets/*.toml` and writes it out as Rust statics
/// (`secrets.rs`, included by `src/secrets/data.rs`): a process then reads
/// the detectors, placeholders and secret file names in place, with nothing
/// to parse or decode. A file that breaks a rule fails the build with its
/// file, line and field: unlike a command shape, a detector left out would
/// not make labels stricter but let a secret through.
fn write_secrets(root: &Path) {
    let dir = root.join("secrets");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut sources = Vec::new();
    let files = files::toml_files(&dir)
        .unwrap_or_else(|e| panic!("taxonomy/secrets/: the secret taxonomy cannot be read: {e}"));
    for (rel, path) in files {
        println!("cargo:rerun-if-changed={}", path.display());
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("taxonomy/secrets/{rel}: cannot be read: {e}"));
        sources.push((rel, text));
    }
    let checked = secrets_schema::check(&sources).unwrap_or_else(|problems| {
        let all: Vec<String> = problems.iter().map(ToString::to_string).collect();
        panic!(
            "the secret taxonomy has {} problem(s):\n{}",
            all.len(),
            all.join("\n")
        )
    });
    let (code, keywords) = secrets_code(&checked);
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap_or_else(|_| ".".into()));
    write_out(&out.join("secrets.rs"), code.as_bytes());
    write_out(&out.join("keywords.table"), &keyword_table(&keywords));
}

/// The secret keywords as one unanchored table of one pattern that matches
/// any of them in any ASCII letter case. It says where a keyword ends, not
/// which (a pattern for each would make it ten times the size): the look
/// runs it over every byte it reads (see `src/secrets/gate.rs`), so it is
/// written wide, for speed.
fn keyword_table(keywords: &[String]) -> Vec<u8> {
    for k in keywords {
        // A line is where a match is looked for: no keyword may span two.
        assert!(
            !k.is_empty() && !k.contains('\n'),
            "taxonomy/secrets/: keyword {k:?} is empty or holds a line break"
        );
    }
    let alternatives: Vec<String> = keywords
        .iter()
        .map(|k| k.bytes().map(|b| format!("\\x{b:02x}")).collect())
        .collect();
    let patterns = [format!("(?i)(?:{})", alternatives.join("|"))];
    // Bigger than a rule group may grow while it is built: it is one
    // table the look cannot do without, and it shrinks when minimised.
    let dfa = dense_dfa(&patterns, false, 16 << 20).unwrap_or_else(|| {
        panic!("taxonomy/secrets/: the keywords' automaton cannot be built within the size limit")
    });
    table_dfa(&dfa, false, table::Width::Wide).unwrap_or_else(|| {
        panic!("taxonomy/secrets/: the keywords' automaton does not fit a shipped table")
    })
}

/// The checked secret taxonomy as Rust source (see `src/secrets/data.rs`
/// for the types and why no static holds a pointer), and the keywords in
/// lower case.
fn secrets_code(c: &secrets_schema::Checked) -> (String, Vec<String>) {
    use std::fmt::Write;
    let mut pool = StaticText::default();
    let mut s = String::from("// Generated by build.rs from taxonomy/secrets/*.toml.\n\n");
    let _ = writeln!(
        s,
        "pub(super) const DETECTOR_COUNT: usize = {};\n",
        c.detectors.len()
    );
    let _ = writeln!(
        s,
        "pub(super) static DETECTORS: [DetectorData; DETECTOR_COUNT] = ["
    );
    for d in &c.detectors {
        let r = &d.detector;
        let _ = writeln!(
            s,
            "    DetectorData {{ id: {}, kind: {}, file: {}, line: {}, pattern: {}, case_insensitive: {}, min_entropy: {:?}, placeholders: {} }},",
            pool.str(&r.id),
            pool.str(&r.kind),
            pool.str(&d.file),
            d.line,
            pool.str(&r.pattern),
            r.case_insensitive,
            r.min_entropy,
            r.placeholders
        );
    }
    s.push_str("];\n\n");
    // Keywords, lower-cased and each once, with the detectors that list it.
    let mut keywords: Vec<(String, String, Vec<usize>, bool)> = Vec::new();
    for (i, d) in c.detectors.iter().enumerate() {
        for k in &d.detector.keywords {
            let lower = k.to_ascii_lowercase();
            // A keyword of a case-sensitive detector, spelled with more than
            // lower-case letters, is a token's own spelling (`ghp_`, `AKIA`,
            // `-----BEGIN`): a search for it hunts for tokens. Lower-case
            // words (`password`, `curl`) and the keywords of detectors that
            // ignore case are names.
            let format = !d.detector.case_insensitive && k.bytes().any(|b| !b.is_ascii_lowercase());
            match keywords.iter_mut().find(|e| e.0 == lower) {
                Some(e) => {
                    if !e.2.contains(&i) {
                        e.2.push(i);
                    }
                    e.3 |= format;
                }
                None => keywords.push((lower, k.clone(), vec![i], format)),
            }
        }
    }
    keywords.sort();
    let _ = writeln!(
        s,
        "pub(super) static KEYWORDS: [KeywordData; {}] = [",
        keywords.len()
    );
    for (lower, spelled, dets, format) in &keywords {
        let _ = writeln!(
            s,
            "    KeywordData {{ lower: {}, spelled: {}, detectors: {}, format: {format} }},",
            pool.str(lower),
            pool.str(spelled),
            pool.indexes(dets)
        );
    }
    s.push_str("];\n\n");
    let longest = keywords.iter().map(|k| k.0.len()).max().unwrap_or(0);
    let _ = writeln!(s, "pub(super) const KEYWORD_LONGEST: usize = {longest};\n");
    // Where the keywords starting with each byte begin (they are sorted by
    // their lower-case bytes), and which pairs of lower-case bytes start
    // one: a line the keyword table found is searched keyword by keyword
    // from each byte, and most bytes start no keyword's pair. (A one-byte keyword marks every
    // pair its byte starts.)
    let first: Vec<usize> = (0..=256usize)
        .map(|b| {
            keywords
                .iter()
                .position(|k| usize::from(k.0.as_bytes()[0]) >= b)
                .unwrap_or(keywords.len())
        })
        .collect();
    let mut pairs = [0u64; 1024];
    for (lower, ..) in &keywords {
        let b = lower.as_bytes();
        let seconds: Vec<u8> = match b.get(1) {
            Some(&s) => vec![s],
            None => (0..=255).collect(),
        };
        for s in seconds {
            let bit = usize::from(b[0]) * 256 + usize::from(s);
            pairs[bit / 64] |= 1 << (bit % 64);
        }
    }
    let _ = writeln!(
        s,
        "pub(super) static KEYWORD_STARTS: [u16; 257] = {first:?};\n"
    );
    let _ = writeln!(
        s,
        "pub(super) static KEYWORD_PAIRS: [u64; 1024] = {pairs:?};\n"
    );
    // The format keywords as spelled, sorted by their bytes: a masker looks
    // up those a word starts with by its first byte, without sorting them
    // in every process.
    let mut spelled: Vec<&str> = keywords
        .iter()
        .filter(|k| k.3)
        .map(|k| k.1.as_str())
        .collect();
    spelled.sort_unstable();
    let _ = writeln!(
        s,
        "pub(super) const FORMAT_KEYWORDS: Strs = {};\n",
        pool.strs(&spelled)
    );
    let p = &c.placeholders;
    let mut values = p.values.clone();
    values.sort();
    values.dedup();
    let wrappers: Vec<&str> = p
        .wrappers
        .iter()
        .flat_map(|(a, b)| [a.as_str(), b.as_str()])
        .collect();
    let _ = writeln!(
        s,
        "pub(super) static PLACEHOLDERS: PlaceholderData = PlaceholderData {{ words: {}, values: {}, wrappers: {} }};\n",
        pool.strs(&p.words),
        pool.strs(&values),
        pool.strs(&wrappers)
    );
    let _ = writeln!(
        s,
        "pub(super) const FILE_TABLE_COUNT: usize = {};\n",
        c.files.len()
    );
    s.push_str("pub(super) static FILE_TABLES: [FileTableData; FILE_TABLE_COUNT] = [\n");
    for t in &c.files {
        let table = &t.table;
        let mut entries: Vec<String> = table.entries(t.table_type).to_vec();
        let rule = match t.table_type {
            secrets_schema::TableType::Dirs => {
                format!("FileRule::Dirs({})", pool.runs(&entries))
            }
            secrets_schema::TableType::Names => {
                entries.sort();
                format!("FileRule::Names({})", pool.strs(&entries))
            }
            secrets_schema::TableType::Suffixes => {
                format!("FileRule::Suffixes({})", pool.strs(&entries))
            }
            secrets_schema::TableType::Paths => {
                format!("FileRule::Paths({})", pool.runs(&entries))
            }
            secrets_schema::TableType::Words => {
                entries.sort();
                let mut code = table.code_suffixes.clone().unwrap_or_default();
                code.sort();
                format!(
                    "FileRule::Words {{ words: {}, code_suffixes: {} }}",
                    pool.strs(&entries),
                    pool.strs(&code)
                )
            }
        };
        let except = table.except_suffixes.clone().unwrap_or_default();
        let _ = writeln!(
            s,
            "    FileTableData {{ kind: {}, rule: {rule}, except_suffixes: {} }},",
            pool.str(&table.kind),
            pool.strs(&except)
        );
    }
    s.push_str("];\n\n");
    pool.write(&mut s);
    let lowers: Vec<String> = keywords.into_iter().map(|k| k.0).collect();
    (s, lowers)
}

/// The strings and lists of the generated secret statics, written as one
/// text and runs of places in it (`src/secrets/data.rs`). Equal strings
/// are stored once.
#[derive(Default)]
struct StaticText {
    text: String,
    placed: HashMap<String, (usize, usize)>,
    strs: Vec<(usize, usize)>,
    runs: Vec<(usize, usize)>,
    indexes: Vec<usize>,
}

impl StaticText {
    fn place(&mut self, s: &str) -> (usize, usize) {
        if let Some(&p) = self.placed.get(s) {
            return p;
        }
        let p = (self.text.len(), s.len());
        self.text.push_str(s);
        self.placed.insert(s.to_string(), p);
        p
    }

    /// `Str::new(…)` naming `s`.
    fn str(&mut self, s: &str) -> String {
        let (at, len) = self.place(s);
        format!("Str::new({at}, {len})")
    }

    fn strs_at(&mut self, list: &[impl AsRef<str>]) -> (usize, usize) {
        let at = self.strs.len();
        for s in list {
            let p = self.place(s.as_ref());
            self.strs.push(p);
        }
        (at, list.len())
    }

    /// `Strs::new(…)` naming `list`.
    fn strs(&mut self, list: &[impl AsRef<str>]) -> String {
        let (at, len) = self.strs_at(list);
        format!("Strs::new({at}, {len})")
    }

    /// `Runs::new(…)` naming the `/`-separated `entries` as lists of
    /// components.
    fn runs(&mut self, entries: &[String]) -> String {
        let lists: Vec<(usize, usize)> = entries
            .iter()
            .map(|e| self.strs_at(&e.split('/').collect::<Vec<_>>()))
            .collect();
        let at = self.runs.len();
        self.runs.extend(lists);
        format!("Runs::new({at}, {})", entries.len())
    }

    /// `Indexes::new(…)` naming `list`.
    fn indexes(&mut self, list: &[usize]) -> String {
        let at = self.indexes.len();
        self.indexes.extend_from_slice(list);
        format!("Indexes::new({at}, {})", list.len())
    }

    /// The text and the tables the names point into.
    fn write(&self, s: &mut String) {
        use std::fmt::Write;
        let _ = writeln!(s, "pub(super) static TEXT: &str = {:?};\n", self.text);
        // A static array of places, each written as `Type::new(at, len)`.
        let places = |s: &mut String, name: &str, ty: &str, all: &[(usize, usize)]| {
            let items: Vec<String> = all
                .iter()
                .map(|(at, len)| format!("{ty}::new({at}, {len})"))
                .collect();
            let _ = writeln!(
                s,
                "pub(super) static {name}: [{ty}; {}] = [{}];\n",
                all.len(),
                items.join(", ")
            );
        };
        places(s, "STRS", "Str", &self.strs);
        places(s, "RUNS", "Strs", &self.runs);
        let _ = writeln!(
            s,
            "pub(super) static INDEXES: [u16; {}] = {:?};",
            self.indexes.len(),
            self.indexes
        );
    }
}
