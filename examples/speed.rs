use std::time::Instant;
fn main() {
    let mut lines = Vec::new();
    for f in std::env::args().skip(1) {
        let t = std::fs::read_to_string(f).unwrap();
        lines.extend(t.lines().map(String::from));
    }
    let c = toolgate::Classifier::embedded().unwrap();
    let t = Instant::now();
    let mut n = 0;
    for _ in 0..3 {
        for l in &lines {
            n += c.classify(l).category.len();
        }
    }
    let el = t.elapsed();
    println!(
        "{} lines x3 in {:?}: {:.0} cmds/s ({n})",
        lines.len(),
        el,
        (lines.len() * 3) as f64 / el.as_secs_f64()
    );
}
