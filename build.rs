//! Rebuilds the crate when the embedded taxonomy changes: include_dir does
//! not tell cargo about files added to the directory.
fn main() {
    println!("cargo:rerun-if-changed=taxonomy");
}
