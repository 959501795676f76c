use serde_json::Value;
use toolgate::{classify, Class};
fn main() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/peers");
    for f in [
        "docker_agent_cases.jsonl",
        "codex_cases.jsonl",
        "dcg_v0.4.1_cases.jsonl",
    ] {
        let text = std::fs::read_to_string(root.join(f)).unwrap();
        for line in text.lines() {
            let v: Value = serde_json::from_str(line).unwrap();
            if v.get("tool").is_some() {
                continue;
            }
            let cmd = v["cmd"].as_str().unwrap();
            let expect = v["expect"].as_str().unwrap();
            let l = classify(cmd);
            let bad = match (f, expect) {
                (_, "not_safe") => l.class == Class::Safe,
                (_, "not_destructive") => l.class == Class::Destructive,
                (_, "safe") => l.class != Class::Safe,
                (_, "dangerous") | (_, "block") => l.class != Class::Destructive,
                (_, "allow") => l.class == Class::Destructive,
                (_, "eq") => {
                    let c = v["class"].as_str().unwrap();
                    let br = v["blast_radius"].as_str();
                    let cat = v["category"].as_str();
                    l.class.as_str() != c
                        || br.is_some_and(|b| l.blast_radius.map(|x| x.as_str()) != Some(b))
                        || cat.is_some_and(|c| c != l.category)
                }
                _ => true,
            };
            if bad {
                println!(
                    "{f} {expect} {} {} | got {} {:?} {} | {}",
                    v["class"],
                    v["blast_radius"],
                    l.class,
                    l.blast_radius,
                    l.category,
                    cmd.replace('\n', "\\n")
                );
            }
        }
    }
}
