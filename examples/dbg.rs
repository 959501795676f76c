fn main() {
    let src = std::env::args().nth(1).unwrap_or_default();
    let s = toolgate::shell::parse(&src);
    println!("{:#?}", (s.error, s.limit, s.compound, s.commands.len()));
}
