//! `nexusq encrypt` and `nexusq decrypt`.

use super::Context;
use super::args::{DecryptArgs, EncryptArgs};
use crate::error::{Error, Result};

fn not_yet() -> Error {
    Error::usage(
        "this command is not available in this version of nexusq yet",
        "see README.md",
    )
}

pub fn encrypt(_ctx: &Context, _args: &EncryptArgs) -> Result<()> {
    Err(not_yet())
}

pub fn decrypt(_ctx: &Context, _args: &DecryptArgs) -> Result<()> {
    Err(not_yet())
}
