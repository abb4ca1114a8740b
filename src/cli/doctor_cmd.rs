//! `nexusq doctor`.

use super::Context;
use crate::error::{Error, Result};

pub fn run(_ctx: &Context) -> Result<()> {
    Err(Error::usage(
        "`nexusq doctor` is not available in this version yet",
        "see README.md",
    ))
}
