//! Deflates assets/seeds/tables.toml into OUT_DIR. The transcribed seed
//! tables are 35 kB of text that every program showing them carries, the
//! page's .wasm included (whose size has a budget); deflated they are about
//! a fifth of it, and `lab::reproduce` inflates them on first use with the
//! inflater the page already links for its links.

fn main() {
    let src = "../assets/seeds/tables.toml";
    println!("cargo:rerun-if-changed={src}");
    let text = std::fs::read(src).unwrap_or_else(|e| panic!("{src}: {e}"));
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("tables.toml.deflate"), miniz_oxide::deflate::compress_to_vec(&text, 10)).expect("OUT_DIR is writable");
}
