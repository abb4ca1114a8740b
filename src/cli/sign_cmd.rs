//! `nexusq sign` and `nexusq verify`.

use super::Context;
use super::args::{SignArgs, VerifyArgs};
use crate::error::{Error, Result};

fn not_yet() -> Error {
    Error::usage(
        "this command is not available in this version of nexusq yet",
        "see README.md",
    )
}

pub fn sign(_ctx: &Context, _args: &SignArgs) -> Result<()> {
    Err(not_yet())
}

pub fn verify(_ctx: &Context, _args: &VerifyArgs) -> Result<()> {
    Err(not_yet())
}
