//! Deflates assets/seeds/tables.toml into OUT_DIR. The transcribed seed
//! tables are 38 kB of text that every program showing them carries, the
//! page's .wasm included (whose size has a budget); deflated they are about
//! a fifth of it, and `lab::reproduce` inflates them on first use with the
//! inflater the page already links for its links. Whole-line comments
//! (the format's description, for the reader of the file) are blanked
//! first: nothing reads them at run time, and blank lines keep a parse
//! error's line number that of the file.

fn main() {
    let src = "../assets/seeds/tables.toml";
    println!("cargo:rerun-if-changed={src}");
    let text = std::fs::read_to_string(src).unwrap_or_else(|e| panic!("{src}: {e}"));
    let blanked: String = text.lines().map(|l| if l.trim_start().starts_with('#') { "" } else { l }).flat_map(|l| [l, "\n"]).collect();
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("tables.toml.deflate"), miniz_oxide::deflate::compress_to_vec(blanked.as_bytes(), 10)).expect("OUT_DIR is writable");
}
