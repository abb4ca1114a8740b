//! `nexusq bench`.

use super::Context;
use super::args::BenchArgs;
use crate::error::{Error, Result};

pub fn run(_ctx: &Context, _args: &BenchArgs) -> Result<()> {
    Err(Error::usage(
        "`nexusq bench` is not available in this version yet",
        "see BENCHMARKS.md",
    ))
}
