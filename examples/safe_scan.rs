use toolgate::{classify, Class};
fn main() {
    for f in std::env::args().skip(1) {
        let text = std::fs::read_to_string(&f).unwrap();
        let mut n = 0;
        let mut counts = [0usize; 3];
        for line in text.lines() {
            if line.trim().is_empty() {
                continue;
            }
            n += 1;
            let l = classify(line);
            match l.class {
                Class::Safe => {
                    counts[0] += 1;
                    println!("SAFE {}: {} | {}", f, line, l.category);
                }
                Class::Destructive => counts[1] += 1,
                Class::Unknown => counts[2] += 1,
            }
        }
        eprintln!(
            "{f}: {n} lines safe={} destructive={} unknown={}",
            counts[0], counts[1], counts[2]
        );
    }
}
