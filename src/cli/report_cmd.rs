//! `nexusq report EVIDENCE.jsonl... [-o report.html]`: read the evidence files, render the page
//! (`nexusq_core::tools::report`), write it whole.

use super::Context;
use super::args::ReportArgs;
use super::error::{Error, Result};
use super::io::{create_output, read_small};
use nexusq_core::fs::Access;
use nexusq_core::tools::bench::evidence;
use std::io::Write;

pub fn run(ctx: &Context, args: &ReportArgs) -> Result<()> {
    let mut datasets = Vec::new();
    for path in &args.evidence {
        let bytes = read_small(path, "an evidence file")?;
        let name = path.display().to_string();
        let text = String::from_utf8(bytes).map_err(|_| {
            Error::check(
                format!("{name} is not UTF-8 text, so not an evidence file"),
                "pass the JSON lines of `nexusq bench --json` or `benches/arena --json`",
            )
        })?;
        let found = evidence::parse(&name, &text).map_err(|e| {
            Error::check(
                format!("{name}, {e}"),
                "pass the JSON lines of `nexusq bench --json` or `benches/arena --json` \
                 (format 2, docs/evidence.md); rerun older benchmarks to get that format",
            )
        })?;
        datasets.extend(found);
    }
    let page = nexusq_core::tools::report::render(&datasets);
    let mut sink = create_output(args.output.as_deref(), false, Access::Public)?;
    sink.write_all(page.as_bytes()).map_err(|e| {
        Error::io(
            format!("cannot write the report: {e}"),
            "check where the output goes and that there is space",
        )
    })?;
    let to_file = sink.is_file();
    sink.commit()?;
    if let (true, Some(out)) = (to_file, &args.output) {
        ctx.out.note(&format!(
            "wrote {} ({} dataset{})",
            out.display(),
            datasets.len(),
            if datasets.len() == 1 { "" } else { "s" }
        ));
    }
    Ok(())
}
