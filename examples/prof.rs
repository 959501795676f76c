fn main() {
    let mut lines = Vec::new();
    for f in std::env::args().skip(1) {
        let t = std::fs::read_to_string(f).unwrap();
        lines.extend(t.lines().map(String::from));
    }
    let c = toolgate::Classifier::embedded().unwrap();
    c.compile_all().unwrap();
    for l in &lines {
        let _ = c.classify(l);
    }
    let t = std::time::Instant::now();
    let mut n = 0;
    for _ in 0..3 {
        for l in &lines {
            n += c.classify(l).category.len();
        }
    }
    eprintln!(
        "{:.0}/s {n}",
        (3 * lines.len()) as f64 / t.elapsed().as_secs_f64()
    );
}
