//! The README's check catalogue is generated from `checks/`; this keeps it current.

use crate::common;

#[test]
fn catalogue_matches_checks_dir() {
    let readme = std::fs::read_to_string(common::repo().join("README.md")).expect("README");
    let start = readme
        .find("<!-- catalog:start -->\n")
        .expect("start marker")
        + "<!-- catalog:start -->\n".len();
    let end = readme.find("<!-- catalog:end -->").expect("end marker");
    let config = premarket::Config::load(&common::repo()).expect("example site");
    let generated = premarket::cli::list_markdown(&config.catalog);
    assert_eq!(
        &readme[start..end],
        generated,
        "README catalogue is stale: replace it with `cargo run -- list --markdown`"
    );
}
