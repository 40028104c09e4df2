//! docs/variables.md is generated from the system variable registry; this test fails when
//! they disagree. Regenerate with `MYRIAD_UPDATE_DOCS=1 cargo test -p myriad-sql --test docs`.

use myriad_sql::sysvars::{Kind, Scope, DEFINITIONS};

fn render() -> String {
    let mut out = String::from(
        "# System variables\n\n\
         Generated from `crates/sql/src/system/sysvars.rs` by `crates/sql/tests/docs.rs`; do not edit by hand.\n\n\
         Every variable can be set at start-up as `--name=value` on the command line or `name=value` in the\n\
         `[mysqld]` / `[myriad]` groups of an option file (dashes and underscores are interchangeable).\n\
         Dynamic variables can also be changed with `SET [GLOBAL|SESSION] name = value`; a bad value is\n\
         error 1231 or 1232, a number out of range is clamped with warning 1292, as in MySQL.\n\n\
         | Name | Scope | Dynamic | Type | Default | Description |\n|---|---|---|---|---|---|\n",
    );
    for d in DEFINITIONS {
        let scope = match d.scope {
            Scope::Global => "global",
            Scope::Session => "session",
            Scope::Both => "global, session",
        };
        let kind = match d.kind {
            Kind::Bool => "boolean".to_string(),
            Kind::UInt { min, max, .. } => format!("integer {min}..{max}"),
            Kind::Int { min, max } => format!("integer {min}..{max}"),
            Kind::Double { min, max } => format!("number {min}..{max}"),
            Kind::Str { .. } => "string".to_string(),
            Kind::Enum(names) => format!("one of {}", names.join(", ")),
            Kind::Set(_) => "set of modes".to_string(),
            Kind::Flags(_) => "switches `name=on\\|off`".to_string(),
            Kind::Charset { .. } => "character set".to_string(),
            Kind::Collation => "collation".to_string(),
        };
        let default = d
            .default
            .map(|v| format!("`{v}`"))
            .unwrap_or_else(|| "NULL".to_string());
        let dynamic = if d.read_only { "no" } else { "yes" };
        out.push_str(&format!(
            "| `{}` | {scope} | {dynamic} | {kind} | {default} | {} |\n",
            d.name, d.help
        ));
    }
    out
}

#[test]
fn variables_doc_is_up_to_date() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/variables.md");
    let want = render();
    if std::env::var_os("MYRIAD_UPDATE_DOCS").is_some() {
        std::fs::write(&path, &want).expect("write docs/variables.md");
        return;
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "docs/variables.md is stale: run MYRIAD_UPDATE_DOCS=1 cargo test -p myriad-sql --test docs"
    );
}
