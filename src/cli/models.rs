//! `premarket list --models`: what each check runs on each model family, as a Markdown table
//! (src/platform/README.md, "What runs on which model"). It is generated from the same availability the
//! collector and the parse stage use: for every check of the site's first device of a platform,
//! the commands every model gets, then per family (a model name the platform lists) the
//! model-dependent commands sent, those sent but refused by some switches (a SKIP then), or
//! SKIP with the reason when the family has none of them.

use crate::core::Platform;
use crate::parse::model::applies;
use crate::parse::{AnyQuery, Applies, Model};
use crate::plan::{DevicePlan, Plan, PlannedCheck};

/// The release the family columns assume, and an older release line whose answers that differ
/// are listed under the table.
fn releases(platform: Platform) -> (&'static str, Option<&'static str>) {
    crate::platform::spec(platform).releases
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

fn code(command: &str) -> String {
    format!("`{}`", cell(command))
}

/// The table for every platform of `plan` whose models differ.
pub fn markdown(plan: &Plan) -> String {
    let mut out = String::new();
    for platform in Platform::ALL {
        let examples = crate::platform::model_examples(platform);
        let Some(device) = plan.devices.iter().find(|d| d.device.platform == platform) else {
            continue;
        };
        if examples.is_empty() {
            continue;
        }
        out.push_str(&table(device, examples, releases(platform)));
    }
    out
}

/// What a family's model gets of `queries`: the commands, or SKIP and why.
fn family_cell(queries: &[&dyn AnyQuery], model: &Model) -> String {
    let mut sent = Vec::new();
    let mut lacks = Vec::new();
    for q in queries {
        let command = q.key().command.text;
        match applies(*q, Some(model)) {
            Applies::Yes => sent.push(code(&command)),
            Applies::Unknown => sent.push(format!("{} (SKIP if refused)", code(&command))),
            Applies::No(why) => {
                if !lacks.contains(&why) {
                    lacks.push(why);
                }
            }
        }
    }
    match (sent.is_empty(), queries.is_empty()) {
        (_, true) => "—".to_string(),
        (false, false) => sent.join(", "),
        (true, false) => format!("SKIP: {}", cell(&lacks.join("; "))),
    }
}

/// What one planned check sends: the commands every model gets (`—` when none), then for each
/// family of `examples` what a model of it gets at `release` (the commands, or SKIP and why).
/// Shared by the table and `premarket explain`.
pub fn by_family(
    check: &PlannedCheck,
    examples: &[(&str, &str)],
    release: &str,
) -> (String, Vec<(String, String)>) {
    let (dependent, every) = partition(check);
    let mut common: Vec<String> = Vec::new();
    for q in every {
        let c = code(&q.key().command.text);
        if !common.contains(&c) {
            common.push(c);
        }
    }
    let common = if common.is_empty() {
        "—".to_string()
    } else {
        common.join(", ")
    };
    let families = examples
        .iter()
        .map(|(family, name)| {
            let model = Model::new(*name, release);
            (family.to_string(), family_cell(&dependent, &model))
        })
        .collect();
    (common, families)
}

/// The check's queries that depend on the model, and those every model gets.
fn partition(check: &PlannedCheck) -> (Vec<&dyn AnyQuery>, Vec<&dyn AnyQuery>) {
    check
        .queries
        .iter()
        .map(|q| q.as_ref())
        .partition(|q| q.availability().is_some())
}

/// The release the family columns of `platform` assume (`list --models`, `explain`).
pub fn release(platform: Platform) -> &'static str {
    releases(platform).0
}

fn table(
    device: &DevicePlan,
    examples: &[(&str, &str)],
    (release, older_release): (&str, Option<&str>),
) -> String {
    let mut out = format!(
        "| check | every model |{}\n|---|---|{}\n",
        examples
            .iter()
            .map(|(family, _)| format!(" {family} |"))
            .collect::<String>(),
        "---|".repeat(examples.len())
    );
    let mut older = Vec::new();
    for check in &device.checks {
        let (common, families) = by_family(check, examples, release);
        out.push_str(&format!("| `{}` | {common} |", check.entry.id));
        for (_, cell) in &families {
            out.push_str(&format!(" {cell} |"));
        }
        let (dependent, _) = partition(check);
        for (_, name) in examples {
            let model = Model::new(*name, release);
            let Some(old) = older_release.map(|v| Model::new(*name, v)) else {
                continue;
            };
            for q in &dependent {
                let command = q.key().command.text;
                let differs = applies(*q, Some(&model)) != applies(*q, Some(&old));
                if differs
                    && applies(*q, Some(&old)) == Applies::Unknown
                    && !older.contains(&command)
                {
                    older.push(command);
                }
            }
        }
        out.push('\n');
    }
    for command in older {
        out.push_str(&format!(
            "\nOn {} and its line, `{command}` is sent to every family that has it and is SKIP if the release refuses it.\n",
            older_release.unwrap_or_default(),
        ));
    }
    out
}
