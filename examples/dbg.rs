fn main() {
    let c = toolgate::Classifier::embedded().unwrap();
    for src in std::env::args().skip(1) {
        let a = c.analyze(&src);
        println!(
            "{src:?} => {} {:?} {} | {}",
            a.label.class, a.label.blast_radius, a.label.category, a.label.reason
        );
        for e in &a.commands {
            println!(
                "   [{}] {:?} d={:?} s={:?} via={:?}",
                e.depth, e.canonical, e.destructive, e.safe, e.via
            );
        }
        for f in &a.findings {
            println!("   finding {} {} {:?}", f.rule, f.blast_radius, f.matched);
        }
    }
}
