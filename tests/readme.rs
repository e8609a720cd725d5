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

/// The README's "What runs on which model" is `premarket list --models` of the example site.
#[test]
fn model_table_matches_the_code() {
    let readme = std::fs::read_to_string(common::repo().join("README.md")).expect("README");
    let start = readme
        .find("<!-- models:start -->\n")
        .expect("start marker")
        + "<!-- models:start -->\n".len();
    let end = readme.find("<!-- models:end -->").expect("end marker");
    let config = premarket::Config::load(&common::repo()).expect("example site");
    let plan =
        premarket::Plan::new(&config, &premarket::Selection::default()).expect("example plan");
    let generated = premarket::cli::models_markdown(&plan);
    assert_eq!(
        &readme[start..end],
        generated,
        "README model table is stale: replace it with `cargo run -- list --models`"
    );
}
