//! `nexusq encapsulate` and `nexusq decapsulate`.

use super::Context;
use super::args::{DecapsulateArgs, EncapsulateArgs};
use crate::error::{Error, Result};

fn not_yet() -> Error {
    Error::usage(
        "this command is not available in this version of nexusq yet",
        "see README.md",
    )
}

pub fn encapsulate(_ctx: &Context, _args: &EncapsulateArgs) -> Result<()> {
    Err(not_yet())
}

pub fn decapsulate(_ctx: &Context, _args: &DecapsulateArgs) -> Result<()> {
    Err(not_yet())
}
