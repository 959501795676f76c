fn main() {
    for (open, close) in [
        ("$(", ")"),
        ("(", ")"),
        ("$((", "))"),
        ("`", "`"),
        ("{ ", "; }"),
        ("bash -c '", "'"),
        ("${x:-", "}"),
        ("\"$(", ")\""),
        ("<(", ")"),
    ] {
        for n in [10usize, 40, 100, 10_000] {
            let cmd = format!("{}ls{}", open.repeat(n), close.repeat(n));
            let h = std::thread::Builder::new()
                .stack_size(256 * 1024)
                .spawn(move || toolgate::classify(&cmd).class)
                .unwrap();
            println!("{open:?} {n}: {:?}", h.join().map_err(|_| "panicked"));
        }
    }
}
