//! Compiles the repository's example site (`baselines/*.yaml`, `checks/*.yaml`) into the lab, so
//! an installed `premarket demo` needs no checkout (`src/lab/example.rs` reads the list).

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let root = Path::new(&manifest).join("../..");
    let mut out = String::from("/// The example site's files: (path under the site, text).\n");
    out.push_str("pub static FILES: &[(&str, &str)] = &[\n");
    for folder in ["baselines", "checks"] {
        let dir = root.join(folder);
        println!("cargo:rerun-if-changed={}", dir.display());
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
            .filter_map(|entry| entry.ok())
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .filter(|name| name.ends_with(".yaml") || name.ends_with(".yml"))
            .collect();
        names.sort();
        for name in names {
            let path = dir
                .join(&name)
                .canonicalize()
                .expect("a listed file exists");
            println!("cargo:rerun-if-changed={}", path.display());
            let _ = writeln!(
                out,
                "    ({:?}, include_str!({:?})),",
                format!("{folder}/{name}"),
                path.display().to_string()
            );
        }
    }
    out.push_str("];\n");
    let target =
        Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("example_files.rs");
    std::fs::write(&target, out)
        .unwrap_or_else(|e| panic!("cannot write {}: {e}", target.display()));
}
